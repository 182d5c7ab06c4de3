#include "exporter/state/volume_store.h"

#include <set>

namespace podwait {

void VolumeStore::ChangedLocked(const std::string& namespace_) {
  changed_at_[namespace_] = ++version_;
}

// A volume's change matters to the namespace of the claim bound to it; a volume no claim names
// (yet) matters to none.
void VolumeStore::VolumeChangedLocked(const VolumeRecord& v) {
  if (!v.claim_namespace.empty()) {
    ChangedLocked(v.claim_namespace);
    return;
  }
  for (const auto& [key, claim] : claims_) {
    if (claim.volume == v.name) ChangedLocked(key.first);
  }
}

void VolumeStore::ReplaceClaims(std::string_view namespace_scope, std::vector<ClaimRecord> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> touched;
  for (auto it = claims_.begin(); it != claims_.end();) {
    if (namespace_scope.empty() || it->first.first == namespace_scope) {
      touched.insert(it->first.first);
      it = claims_.erase(it);
    } else {
      ++it;
    }
  }
  for (ClaimRecord& c : listed) {
    if (!namespace_scope.empty() && c.namespace_ != namespace_scope) continue;
    touched.insert(c.namespace_);
    ClaimKey key{c.namespace_, c.name};
    claims_.insert_or_assign(std::move(key), std::move(c));
  }
  for (const std::string& ns : touched) ChangedLocked(ns);
}

void VolumeStore::UpsertClaim(ClaimRecord claim) {
  std::lock_guard<std::mutex> lock(mu_);
  ChangedLocked(claim.namespace_);
  ClaimKey key{claim.namespace_, claim.name};
  claims_.insert_or_assign(std::move(key), std::move(claim));
}

void VolumeStore::RemoveClaim(std::string_view namespace_, std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (claims_.erase(ClaimKey{std::string(namespace_), std::string(name)}) > 0) {
    ChangedLocked(std::string(namespace_));
  }
}

void VolumeStore::ReplaceVolumes(std::vector<VolumeRecord> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, v] : volumes_) VolumeChangedLocked(v);
  volumes_.clear();
  for (VolumeRecord& v : listed) {
    VolumeChangedLocked(v);
    std::string name = v.name;
    volumes_.insert_or_assign(std::move(name), std::move(v));
  }
}

void VolumeStore::UpsertVolume(VolumeRecord volume) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = volumes_.find(volume.name);
  if (it != volumes_.end()) VolumeChangedLocked(it->second);  // it may have been rebound
  VolumeChangedLocked(volume);
  std::string name = volume.name;
  volumes_.insert_or_assign(std::move(name), std::move(volume));
}

void VolumeStore::RemoveVolume(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = volumes_.find(name);
  if (it == volumes_.end()) return;
  VolumeChangedLocked(it->second);
  volumes_.erase(it);
}

PodVolumeFacts VolumeStore::FactsFor(const PodRecord& pod) const {
  std::lock_guard<std::mutex> lock(mu_);
  PodVolumeFacts facts;
  bool all_known = true;
  for (const std::string& claim_name : pod.detail().claims) {
    auto c = claims_.find(ClaimKey{pod.namespace_, claim_name});
    if (c == claims_.end() || c->second.volume.empty()) {
      all_known = false;
      continue;
    }
    auto v = volumes_.find(c->second.volume);
    if (v == volumes_.end()) {
      all_known = false;
      continue;
    }
    if (!v->second.pinned_node.empty()) {
      facts.pinning = VolumePinning::kNode;
      facts.volume = v->second.name;
      facts.node = v->second.pinned_node;
      return facts;
    }
  }
  facts.pinning = all_known ? VolumePinning::kNotNode : VolumePinning::kUnknown;
  return facts;
}

uint64_t VolumeStore::Version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

std::vector<std::string> VolumeStore::ChangedNamespacesSince(uint64_t since,
                                                             uint64_t* version) const {
  std::lock_guard<std::mutex> lock(mu_);
  *version = version_;
  std::vector<std::string> out;
  for (const auto& [ns, at] : changed_at_) {
    if (at > since) out.push_back(ns);
  }
  return out;
}

size_t VolumeStore::ClaimCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return claims_.size();
}

size_t VolumeStore::VolumeCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return volumes_.size();
}

}  // namespace podwait
