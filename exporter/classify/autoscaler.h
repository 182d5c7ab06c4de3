#pragma once

// Autoscaler presence (docs/DESIGN.md §4: "detected (CA status ConfigMap, CA/Karpenter events seen
// recently) or set by flag") and which autoscaler wrote an event. Pure: time is passed in.

#include <optional>
#include <string_view>

#include "exporter/common/clock.h"
#include "exporter/model/types.h"

namespace podwait {

// --autoscaler=auto|cluster-autoscaler|karpenter|none
enum class AutoscalerMode : uint8_t { kAuto, kClusterAutoscaler, kKarpenter, kNone };
std::optional<AutoscalerMode> ParseAutoscalerMode(std::string_view flag);

// Events older than this no longer prove an autoscaler is there. One hour is the API server's
// default event TTL: an autoscaler that is still running keeps writing events for pending pods.
inline constexpr Timestamp kAutoscalerRecent = 60 * kMinute;

struct AutoscalerSignals {
  bool ca_status_configmap = false;    // kube-system/cluster-autoscaler-status exists
  Timestamp last_ca_event = 0;         // last event written by cluster-autoscaler; 0: never
  Timestamp last_karpenter_event = 0;  // last event written by Karpenter; 0: never
};

// Sets state->cluster_autoscaler, karpenter and forced_none (node groups are left alone). A forced
// mode ignores the signals: the operator knows which autoscaler runs.
void DetectAutoscaler(AutoscalerMode mode, const AutoscalerSignals& signals, Timestamp now,
                      AutoscalerState* state, Timestamp recent = kAutoscalerRecent);

// Which autoscaler wrote an event: by reason (TriggeredScaleUp, NotTriggerScaleUp, ScaleDown...
// are cluster-autoscaler's; Nominated/NominatedMachine Karpenter's), by source (cluster-autoscaler,
// karpenter, eks-auto-mode/...) and by Karpenter's "Failed to schedule pod, " prefix. kNone for
// the scheduler's and everybody else's events.
AutoscalerKind EventAutoscalerKind(const EventRecord& event);

}  // namespace podwait
