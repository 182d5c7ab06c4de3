#pragma once

// The PersistentVolumeClaims and PersistentVolumes the exporter knows, reduced to what the
// classifier asks of an unscheduled pod's volumes (classify/volumes.h): is a volume it claims
// pinned to one node? Written by the PVC and PV sources (sources/volumes.h), read by the
// evaluation. A claim or volume change is remembered by namespace, so an incremental evaluation
// classifies again the waiting pods of that namespace that claim volumes.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/classify/volumes.h"
#include "exporter/model/types.h"

namespace podwait {

// A PersistentVolumeClaim: bound to `volume` (spec.volumeName, with status.phase Bound) or not.
struct ClaimRecord {
  std::string namespace_;
  std::string name;
  std::string volume;  // "" while not bound
};

// A PersistentVolume: the one node its required node affinity allows (a local volume), or "";
// the claim it is bound to (spec.claimRef), if any.
struct VolumeRecord {
  std::string name;
  std::string pinned_node;
  std::string claim_namespace;
  std::string claim_name;
};

// Thread-safe.
class VolumeStore {
 public:
  VolumeStore() = default;
  VolumeStore(const VolumeStore&) = delete;
  VolumeStore& operator=(const VolumeStore&) = delete;

  // Makes the claims of one namespace ("" every namespace) exactly `listed`.
  void ReplaceClaims(std::string_view namespace_scope, std::vector<ClaimRecord> listed);
  void UpsertClaim(ClaimRecord claim);
  void RemoveClaim(std::string_view namespace_, std::string_view name);
  // Volumes are cluster-scoped: a list replaces all of them.
  void ReplaceVolumes(std::vector<VolumeRecord> listed);
  void UpsertVolume(VolumeRecord volume);
  void RemoveVolume(std::string_view name);

  // What is known of `pod`'s claimed volumes (PodRecord::claims): kNode as soon as one bound
  // volume is pinned to a node; kNotNode when every claim is bound to a volume that is not (or
  // the pod claims none); kUnknown when a claim or its volume is not known, or not bound yet.
  PodVolumeFacts FactsFor(const PodRecord& pod) const;

  uint64_t Version() const;
  // The namespaces whose claims or volumes changed after version `since` (in order); *version
  // is set to the current version.
  std::vector<std::string> ChangedNamespacesSince(uint64_t since, uint64_t* version) const;

  size_t ClaimCount() const;
  size_t VolumeCount() const;

 private:
  using ClaimKey = std::pair<std::string, std::string>;  // namespace, name
  void ChangedLocked(const std::string& namespace_);
  void VolumeChangedLocked(const VolumeRecord& v);

  mutable std::mutex mu_;
  std::map<ClaimKey, ClaimRecord> claims_;
  std::map<std::string, VolumeRecord, std::less<>> volumes_;
  std::map<std::string, uint64_t> changed_at_;  // namespace -> version of its last change
  uint64_t version_ = 0;
};

}  // namespace podwait
