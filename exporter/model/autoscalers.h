#pragma once

// The autoscalers podwait knows, one row each (docs/DESIGN.md §7, "add an autoscaler signal"):
// the name the --autoscaler flag and the podwait_autoscaler_detected{kind} label use, the events
// it writes, what its verdict on a pod means and the Kubernetes resources podwait reads for it.
// Pure data; the event parsers and the rules that read a row are in exporter/classify/
// autoscaler.cpp, and `podwait-exporter contract` prints the rows (the RBAC checks read them).

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "exporter/model/types.h"

namespace podwait {

// One Kubernetes permission podwait needs: list and watch (and get, for a named object) of a
// resource. `name` empty: every object of the resource in the watched namespaces; otherwise the
// one object `namespace_`/`name`.
struct ResourceAccess {
  std::string_view group;  // "" is the core group
  std::string_view resource;
  std::string_view namespace_;
  std::string_view name;
  std::string_view why;
  // A cluster-scoped resource (read only when every namespace is watched).
  bool cluster_scoped = false;
};

struct AutoscalerInfo {
  AutoscalerKind kind;
  std::string_view name;  // --autoscaler=<name>; podwait_autoscaler_detected{kind="<name>"}
  // Who wrote an event: these reasons are its own, and these event sources (source.component or
  // reportingController, exact or as a prefix) are its components.
  std::span<const std::string_view> event_reasons;
  std::span<const std::string_view> event_sources;
  std::span<const std::string_view> event_source_prefixes;
  // The reasons of its events that are a verdict on one pod, and what such a verdict means.
  std::span<const std::string_view> verdict_reasons;
  std::string_view verdict;
  // Present when: a status object it writes exists (the resource with a name below), or one of
  // its events is newer than kAutoscalerRecent.
  std::span<const ResourceAccess> resources;
};

namespace autoscaler_rows {
inline constexpr std::string_view kCaReasons[] = {"TriggeredScaleUp", "NotTriggerScaleUp",
                                                  "ScaleDown", "ScaleDownFailed"};
inline constexpr std::string_view kCaSources[] = {"cluster-autoscaler"};
inline constexpr std::string_view kCaVerdicts[] = {"TriggeredScaleUp", "NotTriggerScaleUp"};
inline constexpr ResourceAccess kCaResources[] = {
    {"", "events", "", "", "TriggeredScaleUp/NotTriggerScaleUp events on pods"},
    {"", "configmaps", "kube-system", "cluster-autoscaler-status",
     "the status ConfigMap (--write-status-configmap): node groups in scale-up or backoff"},
    {"autoscaling.x-k8s.io", "provisioningrequests", "", "",
     "ProvisioningRequests (autoscaling.x-k8s.io/v1): whether the request a pod consumes is "
     "accepted, provisioned, failed, expired or revoked"},
};
// Karpenter (and EKS Auto Mode, which runs it). The scheduler's preemption never writes an
// event with reason Nominated; Karpenter does.
inline constexpr std::string_view kKarpenterReasons[] = {"Nominated", "NominatedMachine"};
inline constexpr std::string_view kKarpenterSources[] = {"karpenter"};
inline constexpr std::string_view kKarpenterSourcePrefixes[] = {"eks-auto-mode"};
inline constexpr std::string_view kKarpenterVerdicts[] = {"Nominated", "NominatedMachine",
                                                          "FailedScheduling"};
inline constexpr ResourceAccess kKarpenterResources[] = {
    {"", "events", "", "",
     "Nominated/FailedScheduling events on pods; launch failures (InsufficientCapacityError, "
     "NodeClassNotReady) on NodeClaims"},
    {"karpenter.sh", "nodeclaims", "", "",
     "NodeClaims (karpenter.sh/v1): whether a nominated pod's node is launching, registering or "
     "initializing",
     true},
};
inline constexpr std::span<const std::string_view> kNothing;
}  // namespace autoscaler_rows

// Every autoscaler, in AutoscalerKind order (kNone has no row).
inline constexpr std::array<AutoscalerInfo, kAutoscalerKindCount - 1> kAutoscalers = {{
    {AutoscalerKind::kClusterAutoscaler, "cluster-autoscaler", autoscaler_rows::kCaReasons,
     autoscaler_rows::kCaSources, autoscaler_rows::kNothing, autoscaler_rows::kCaVerdicts,
     "TriggeredScaleUp: a node group is being scaled up for the pod (capacity is coming); "
     "NotTriggerScaleUp: no node group can take it (the message says why)",
     autoscaler_rows::kCaResources},
    {AutoscalerKind::kKarpenter, "karpenter", autoscaler_rows::kKarpenterReasons,
     autoscaler_rows::kKarpenterSources, autoscaler_rows::kKarpenterSourcePrefixes,
     autoscaler_rows::kKarpenterVerdicts,
     "Nominated: a node or NodeClaim is launched or chosen for the pod; FailedScheduling "
     "(\"Failed to schedule pod, ...\"): no NodePool can take it",
     autoscaler_rows::kKarpenterResources},
}};

// The row of `kind`; kind must not be kNone.
constexpr const AutoscalerInfo& InfoOf(AutoscalerKind kind) {
  return kAutoscalers[static_cast<size_t>(kind) - 1];
}
// The row named `name` (the --autoscaler value), or nullptr.
const AutoscalerInfo* FindAutoscaler(std::string_view name);
// Every name, comma-separated ("cluster-autoscaler, karpenter"): the --autoscaler values between
// auto and none, for its help and errors.
std::string AutoscalerNames();

}  // namespace podwait
