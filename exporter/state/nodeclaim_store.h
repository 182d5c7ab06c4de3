#pragma once

// Karpenter's NodeClaims (karpenter.sh/v1) and the launch failures Karpenter reported on them, as
// the classifier reads them (model/types.h NodeClaimView). Written by the NodeClaim reflector and
// the reflector of NodeClaim events (sources/nodeclaims.h); read once per evaluation.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "exporter/model/types.h"

namespace podwait {

// Thread-safe: every method takes the store's lock.
class NodeClaimStore {
 public:
  // Launch failures kept, the newest: a failure matters only while a pod nominated to its
  // NodeClaim still waits, and Karpenter nominates such a pod again within seconds.
  static constexpr size_t kMaxFailures = 512;

  // The complete list of NodeClaims (a list's end): the view is synced from now on.
  void Replace(std::vector<NodeClaimFacts> listed);
  void Upsert(NodeClaimFacts claim);
  void Remove(std::string_view name);
  // The complete list of launch failures (the event list's end), or one more.
  void ReplaceFailures(std::vector<NodeClaimFailure> listed);
  void AddFailure(NodeClaimFailure failure);

  // The current view: the same object as long as nothing changed (AutoscalerState compares it
  // by pointer).
  std::shared_ptr<const NodeClaimView> View() const;
  size_t Count() const;
  size_t FailureCount() const;

 private:
  void TrimFailures();  // REQUIRES: mu_ held

  mutable std::mutex mu_;
  NodeClaimView current_;
  mutable std::shared_ptr<const NodeClaimView> view_;  // nullptr: current_ changed since
};

}  // namespace podwait
