#pragma once

// cluster-autoscaler's ProvisioningRequests (autoscaling.x-k8s.io/v1, namespaced) as the
// classifier reads them (model/types.h ProvisioningRequestView). Written by the
// ProvisioningRequest reflectors (sources/provisioning_requests.h), one per watched namespace or
// one over all; read once per evaluation.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/model/types.h"

namespace podwait {

// Thread-safe: every method takes the store's lock.
class ProvisioningRequestStore {
 public:
  // The complete list of one reflector: the requests of namespace `scope` ("" = every namespace)
  // become `listed`.
  void Replace(std::string_view scope, std::vector<ProvisioningRequestFacts> listed);
  void Upsert(ProvisioningRequestFacts request);
  void Remove(std::string_view namespace_, std::string_view name);

  // The current view: the same object as long as nothing changed (AutoscalerState compares it
  // by pointer).
  std::shared_ptr<const ProvisioningRequestView> View() const;
  size_t Count() const;

 private:
  mutable std::mutex mu_;
  ProvisioningRequestView current_;
  mutable std::shared_ptr<const ProvisioningRequestView> view_;  // nullptr: current_ changed since
};

}  // namespace podwait
