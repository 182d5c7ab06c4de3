#include "exporter/state/pod_store.h"

#include <algorithm>
#include <unordered_set>

#include "exporter/state/event_store.h"

namespace podwait {

PodStore::PodStore(EventStore* events, size_t max_tombstones)
    : events_(events), max_tombstones_(max_tombstones), upserts_(max_tombstones) {}

void PodStore::Journal(const PodRecord& pod) {
  upserts_.Record(version_, {std::string(), pod.namespace_, pod.name});
}

void PodStore::CountLocked(const PodRecord& pod, int sign) {
  // A TidbMonitor's, a DMCluster's or a discovery's pods make no TiDB cluster (PodOwnerOf).
  if (pod.cluster.empty() || pod.owner != PodOwner::kTidbCluster) return;
  auto it = clusters_.try_emplace(ClusterKey{pod.namespace_, pod.cluster}).first;
  it->second.pods += sign;
  if (IsReadyPdPod(pod)) it->second.ready_pd_pods += sign;
  if (it->second.pods == 0) clusters_.erase(it);
}

void PodStore::EraseLocked(Index::iterator it, std::vector<PodChanges::Deleted>* removed) {
  const PodPtr pod = it->pod;  // erase() hashes the entry: the record must still be there
  CountLocked(*pod, -1);
  pods_.erase(it);
  ++version_;
  tombstones_.push_back({version_, {pod->uid, pod->namespace_, pod->name}});
  if (removed != nullptr) removed->push_back(tombstones_.back().pod);
  while (tombstones_.size() > max_tombstones_) {
    trail_start_ = tombstones_.front().version;
    tombstones_.pop_front();
  }
}

void PodStore::UpsertLocked(PodPtr pod, std::vector<PodChanges::Deleted>* removed) {
  auto it = pods_.find(NameKey{pod->namespace_, pod->name});
  if (it == pods_.end()) {
    CountLocked(*pod, +1);
    pods_.insert(Entry{pod, ++version_});
    Journal(*pod);
    return;
  }
  if (it->pod->uid != pod->uid) {
    // Only one pod of a name exists at a time: an older incarnation is gone.
    EraseLocked(it, removed);
    CountLocked(*pod, +1);
    pods_.insert(Entry{pod, ++version_});
    Journal(*pod);
    return;
  }
  if (!pod->resource_version.empty() && it->pod->resource_version == pod->resource_version) {
    return;  // the same object again (relist): not a change
  }
  // Same namespace/name, so the same hash and place: the record is swapped in place.
  CountLocked(*it->pod, -1);
  CountLocked(*pod, +1);
  it->pod = std::move(pod);
  it->version = ++version_;
  Journal(*it->pod);
}

void PodStore::ForgetEvents(const std::vector<PodChanges::Deleted>& removed) {
  if (events_ == nullptr) return;
  for (const auto& d : removed) events_->ForgetPod(d.namespace_, d.name, d.uid);
}

void PodStore::Upsert(PodPtr pod) {
  if (pod == nullptr || pod->uid.empty()) return;
  std::vector<PodChanges::Deleted> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    UpsertLocked(std::move(pod), &removed);
  }
  ForgetEvents(removed);
}

bool PodStore::Delete(std::string_view uid, std::string_view namespace_, std::string_view name,
                      std::optional<uint8_t> source) {
  std::vector<PodChanges::Deleted> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Index::iterator it = pods_.end();
    if (!name.empty()) {
      it = pods_.find(NameKey{namespace_, name});
      if (it != pods_.end() && !uid.empty() && it->pod->uid != uid) return false;
    } else if (!uid.empty()) {
      it = std::find_if(pods_.begin(), pods_.end(),
                        [uid](const Entry& e) { return e.pod->uid == uid; });
    }
    if (it == pods_.end()) return false;
    if (source && it->pod->source != *source) return false;
    EraseLocked(it, &removed);
  }
  ForgetEvents(removed);
  return true;
}

void PodStore::Replace(std::vector<PodPtr> pods, std::string_view namespace_scope,
                       std::optional<uint8_t> source) {
  std::vector<PodChanges::Deleted> removed;
  {
    // The names listed (views into `pods`' records, which outlive this set).
    std::unordered_set<NameKey, EntryHash, EntryEq> keep;
    keep.reserve(pods.size());
    for (const auto& p : pods) {
      if (p != nullptr) keep.insert(NameKey{p->namespace_, p->name});
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (pods_.empty()) pods_.reserve(pods.size());
    for (auto it = pods_.begin(); it != pods_.end();) {
      auto next = std::next(it);
      const PodRecord& pod = *it->pod;
      if ((namespace_scope.empty() || pod.namespace_ == namespace_scope) &&
          (!source || pod.source == *source) &&
          keep.find(NameKey{pod.namespace_, pod.name}) == keep.end()) {
        EraseLocked(it, &removed);
      }
      it = next;
    }
    keep = {};
    for (auto& p : pods) {
      if (p == nullptr || p->uid.empty()) continue;
      if (!namespace_scope.empty() && p->namespace_ != namespace_scope) continue;
      UpsertLocked(std::move(p), &removed);
    }
  }
  ForgetEvents(removed);
}

PodPtr PodStore::Get(std::string_view namespace_, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(NameKey{namespace_, name});
  return it == pods_.end() ? nullptr : it->pod;
}

PodPtr PodStore::GetByUid(std::string_view uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : pods_) {
    if (e.pod->uid == uid) return e.pod;
  }
  return nullptr;
}

bool PodStore::Contains(std::string_view namespace_, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.find(NameKey{namespace_, name}) != pods_.end();
}

size_t PodStore::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

uint64_t PodStore::Version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

std::vector<PodPtr> PodStore::Snapshot(uint64_t* version) const {
  std::vector<PodPtr> out;
  std::lock_guard<std::mutex> lock(mu_);
  out.reserve(pods_.size());
  for (const Entry& e : pods_) out.push_back(e.pod);
  if (version != nullptr) *version = version_;
  return out;
}

PodClusters PodStore::Clusters() const {
  PodClusters out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, counts] : clusters_)
    out.emplace_hint(out.end(), key, counts.ready_pd_pods);
  return out;
}

PodChanges PodStore::ChangesSince(uint64_t since) const {
  PodChanges changes;
  std::lock_guard<std::mutex> lock(mu_);
  changes.version = version_;
  if (since == 0 || since < trail_start_ || !upserts_.Covers(since) || since > version_) {
    changes.full = true;
    changes.upserted.reserve(pods_.size());
    for (const Entry& e : pods_) changes.upserted.push_back(e.pod);
    return changes;
  }
  upserts_.Since(since, [&](const PodChanges::Deleted& key, uint64_t version) {
    auto it = pods_.find(NameKey{key.namespace_, key.name});
    // Once per pod: at its latest change (a pod changed twice has two records).
    if (it != pods_.end() && it->version == version) changes.upserted.push_back(it->pod);
  });
  for (auto it = tombstones_.rbegin(); it != tombstones_.rend() && it->version > since; ++it) {
    changes.deleted.push_back(it->pod);
  }
  return changes;
}

}  // namespace podwait
