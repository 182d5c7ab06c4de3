#pragma once

// Autoscaler presence (docs/DESIGN.md §4: "detected (CA status ConfigMap, CA/Karpenter events seen
// recently) or set by flag"), which autoscaler wrote an event and whether it is a verdict on the
// pod. Every function reads the table of exporter/model/autoscalers.h plus one rule row per kind
// here. Pure: time is passed in.

#include <optional>
#include <string_view>

#include "exporter/common/clock.h"
#include "exporter/model/autoscalers.h"
#include "exporter/model/types.h"

namespace podwait {

// --autoscaler=auto|none|<a kind of the table>: detect, none at all, or this one.
struct AutoscalerMode {
  enum class How : uint8_t { kAuto, kNone, kForced };
  How how = How::kAuto;
  AutoscalerKind forced = AutoscalerKind::kNone;  // How::kForced: the one in use

  static const AutoscalerMode kAuto;
  static const AutoscalerMode kNone;
  static constexpr AutoscalerMode Forced(AutoscalerKind kind) { return {How::kForced, kind}; }
  // Whether that autoscaler's signals are read: detected, or forced to it.
  constexpr bool MayUse(AutoscalerKind kind) const {
    return how == How::kAuto || (how == How::kForced && forced == kind);
  }
  bool operator==(const AutoscalerMode&) const = default;
};
inline constexpr AutoscalerMode AutoscalerMode::kAuto{AutoscalerMode::How::kAuto};
inline constexpr AutoscalerMode AutoscalerMode::kNone{AutoscalerMode::How::kNone};

std::optional<AutoscalerMode> ParseAutoscalerMode(std::string_view flag);

// Events older than this no longer prove an autoscaler is there. One hour is the API server's
// default event TTL: an autoscaler that is still running keeps writing events for pending pods.
inline constexpr Timestamp kAutoscalerRecent = 60 * kMinute;

// What podwait has seen of each autoscaler.
struct AutoscalerSignals {
  // Its status object exists (cluster-autoscaler: kube-system/cluster-autoscaler-status).
  PerAutoscaler<bool> status_object;
  // The newest event it wrote (EventAutoscalerKind); 0: never.
  PerAutoscaler<Timestamp> last_event;
};

// Sets state->detected and forced_none (node groups are left alone). A forced mode ignores the
// signals: the operator knows which autoscaler runs.
void DetectAutoscaler(AutoscalerMode mode, const AutoscalerSignals& signals, Timestamp now,
                      AutoscalerState* state, Timestamp recent = kAutoscalerRecent);

// Which autoscaler wrote an event: the first row of the table whose reasons or sources name it
// (TriggeredScaleUp, NotTriggerScaleUp, ScaleDown... are cluster-autoscaler's; Nominated/
// NominatedMachine Karpenter's; sources cluster-autoscaler, karpenter, eks-auto-mode/...), or
// whose own parser recognizes it (Karpenter's "Failed to schedule pod, " prefix). kNone for the
// scheduler's and everybody else's events.
AutoscalerKind EventAutoscalerKind(const EventRecord& event);

// Whether an event is an autoscaler's verdict on its pod (the row's verdict reasons; a Karpenter
// nomination only in a form ParseKarpenterNominated reads).
bool IsAutoscalerVerdict(const EventRecord& event);

}  // namespace podwait
