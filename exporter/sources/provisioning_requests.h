#pragma once

// cluster-autoscaler's ProvisioningRequests (autoscaling.x-k8s.io/v1, namespaced) into the
// ProvisioningRequestStore (docs/DESIGN.md §3): one reflector per watched namespace (--namespaces),
// or one over all. The input is optional: a 404 (the CRD is not installed) or a 403 (the service
// account may not list them) disables it.

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/types.h"
#include "exporter/state/provisioning_request_store.h"

namespace podwait {

inline constexpr std::string_view kProvisioningRequestApi = "/apis/autoscaling.x-k8s.io/v1";

// Pure: a ProvisioningRequest document (cluster-autoscaler apis/provisioningrequest/
// autoscaling.x-k8s.io/v1/types.go): namespace, name, spec.provisioningClassName and the
// conditions Accepted, Provisioned, Failed, BookingExpired and CapacityRevoked (metav1.Condition:
// status, reason, message, lastTransitionTime). An error without a namespace or a name.
Result<ProvisioningRequestFacts> ParseProvisioningRequest(const rapidjson::Value& object);

// The reflector's handler. Called only from its reflector's thread.
class ProvisioningRequestSource final : public ReflectorHandler {
 public:
  ProvisioningRequestSource(ProvisioningRequestStore& store, std::string namespace_scope)
      : store_(store), scope_(std::move(namespace_scope)) {}

  void OnListBegin() override { staged_.clear(); }
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override { staged_.clear(); }
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  bool OnNotFound() override { return true; }
  bool OnForbidden() override { return true; }
  std::optional<size_t> ObjectCount() const override { return store_.Count(); }

 private:
  ProvisioningRequestStore& store_;
  const std::string scope_;
  std::vector<ProvisioningRequestFacts> staged_;
};

// "provisioningrequests[/<namespace>]", one per watched namespace or one over all.
std::vector<ReflectorOptions> ProvisioningRequestReflectorOptions(const Config& config);

}  // namespace podwait
