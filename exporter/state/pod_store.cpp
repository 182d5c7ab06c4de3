#include "exporter/state/pod_store.h"

#include <unordered_set>

#include "exporter/state/event_store.h"

namespace podwait {

PodStore::PodStore(EventStore* events, size_t max_tombstones)
    : events_(events), max_tombstones_(max_tombstones) {}

void PodStore::EraseLocked(UidMap::iterator it, std::vector<PodChanges::Deleted>* removed) {
  const PodPtr pod = it->second.pod;  // keeps the viewed strings alive until the end
  auto name_it = by_name_.find(NameKey{pod->namespace_, pod->name});
  if (name_it != by_name_.end() && name_it->second == pod->uid) by_name_.erase(name_it);
  by_uid_.erase(it);
  ++version_;
  tombstones_.push_back({version_, {pod->uid, pod->namespace_, pod->name}});
  if (removed != nullptr) removed->push_back(tombstones_.back().pod);
  while (tombstones_.size() > max_tombstones_) {
    trail_start_ = tombstones_.front().version;
    tombstones_.pop_front();
  }
}

void PodStore::UpsertLocked(PodPtr pod, std::vector<PodChanges::Deleted>* removed) {
  auto name_it = by_name_.find(NameKey{pod->namespace_, pod->name});
  if (name_it != by_name_.end() && name_it->second != pod->uid) {
    // Only one pod of a name exists at a time: an older incarnation is gone.
    auto old = by_uid_.find(name_it->second);
    if (old != by_uid_.end()) EraseLocked(old, removed);
  }
  auto it = by_uid_.find(pod->uid);
  if (it != by_uid_.end()) {
    if (!pod->resource_version.empty() &&
        it->second.pod->resource_version == pod->resource_version) {
      return;  // the same object again (relist): not a change
    }
    // Re-point both index keys at the new record before the old one can be freed.
    auto node = by_uid_.extract(it);
    node.key() = pod->uid;
    auto name_node = by_name_.extract(NameKey{pod->namespace_, pod->name});
    node.mapped().pod = std::move(pod);
    node.mapped().version = ++version_;
    const PodRecord& rec = *node.mapped().pod;
    if (!name_node.empty()) {
      name_node.key() = NameKey{rec.namespace_, rec.name};
      name_node.mapped() = rec.uid;
      by_name_.insert(std::move(name_node));
    } else {
      by_name_.emplace(NameKey{rec.namespace_, rec.name}, rec.uid);
    }
    by_uid_.insert(std::move(node));
    return;
  }
  const PodRecord& rec = *pod;
  const uint64_t v = ++version_;
  by_uid_.emplace(rec.uid, Entry{std::move(pod), v});
  by_name_[NameKey{rec.namespace_, rec.name}] = rec.uid;
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

bool PodStore::Delete(std::string_view uid, std::string_view namespace_, std::string_view name) {
  std::vector<PodChanges::Deleted> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (uid.empty()) {
      auto name_it = by_name_.find(NameKey{namespace_, name});
      if (name_it == by_name_.end()) return false;
      uid = name_it->second;
    }
    auto it = by_uid_.find(uid);
    if (it == by_uid_.end()) return false;
    EraseLocked(it, &removed);
  }
  ForgetEvents(removed);
  return true;
}

void PodStore::Replace(std::vector<PodPtr> pods, std::string_view namespace_scope) {
  std::vector<PodChanges::Deleted> removed;
  {
    std::unordered_set<std::string_view> keep;
    keep.reserve(pods.size());
    for (const auto& p : pods) {
      if (p != nullptr) keep.insert(p->uid);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (by_uid_.empty()) {
      by_uid_.reserve(pods.size());
      by_name_.reserve(pods.size());
    }
    for (auto it = by_uid_.begin(); it != by_uid_.end();) {
      auto next = std::next(it);
      const PodRecord& pod = *it->second.pod;
      if ((namespace_scope.empty() || pod.namespace_ == namespace_scope) &&
          keep.find(pod.uid) == keep.end()) {
        EraseLocked(it, &removed);
      }
      it = next;
    }
    keep = {};  // its views point into `pods`, which are moved from below
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
  auto name_it = by_name_.find(NameKey{namespace_, name});
  if (name_it == by_name_.end()) return nullptr;
  auto it = by_uid_.find(name_it->second);
  return it == by_uid_.end() ? nullptr : it->second.pod;
}

PodPtr PodStore::GetByUid(std::string_view uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_uid_.find(uid);
  return it == by_uid_.end() ? nullptr : it->second.pod;
}

bool PodStore::Contains(std::string_view namespace_, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_name_.count(NameKey{namespace_, name}) > 0;
}

size_t PodStore::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_uid_.size();
}

uint64_t PodStore::Version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

std::vector<PodPtr> PodStore::Snapshot(uint64_t* version) const {
  std::vector<PodPtr> out;
  std::lock_guard<std::mutex> lock(mu_);
  out.reserve(by_uid_.size());
  for (const auto& [uid, entry] : by_uid_) out.push_back(entry.pod);
  if (version != nullptr) *version = version_;
  return out;
}

PodChanges PodStore::ChangesSince(uint64_t since) const {
  PodChanges changes;
  std::lock_guard<std::mutex> lock(mu_);
  changes.version = version_;
  if (since == 0 || since < trail_start_ || since > version_) {
    changes.full = true;
    changes.upserted.reserve(by_uid_.size());
    for (const auto& [uid, entry] : by_uid_) changes.upserted.push_back(entry.pod);
    return changes;
  }
  for (const auto& [uid, entry] : by_uid_) {
    if (entry.version > since) changes.upserted.push_back(entry.pod);
  }
  for (auto it = tombstones_.rbegin(); it != tombstones_.rend() && it->version > since; ++it) {
    changes.deleted.push_back(it->pod);
  }
  return changes;
}

}  // namespace podwait
