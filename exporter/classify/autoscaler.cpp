#include "exporter/classify/autoscaler.h"

namespace podwait {
namespace {

bool Recent(Timestamp last, Timestamp now, Timestamp recent) {
  // A timestamp from the future (clock skew between the API server and us) counts as recent.
  return last != 0 && now - last <= recent;
}

}  // namespace

std::optional<AutoscalerMode> ParseAutoscalerMode(std::string_view flag) {
  if (flag == "auto") return AutoscalerMode::kAuto;
  if (flag == "cluster-autoscaler") return AutoscalerMode::kClusterAutoscaler;
  if (flag == "karpenter") return AutoscalerMode::kKarpenter;
  if (flag == "none") return AutoscalerMode::kNone;
  return std::nullopt;
}

void DetectAutoscaler(AutoscalerMode mode, const AutoscalerSignals& signals, Timestamp now,
                      AutoscalerState* state, Timestamp recent) {
  state->forced_none = mode == AutoscalerMode::kNone;
  switch (mode) {
    case AutoscalerMode::kNone:
      state->cluster_autoscaler = false;
      state->karpenter = false;
      return;
    case AutoscalerMode::kClusterAutoscaler:
      state->cluster_autoscaler = true;
      state->karpenter = false;
      return;
    case AutoscalerMode::kKarpenter:
      state->cluster_autoscaler = false;
      state->karpenter = true;
      return;
    case AutoscalerMode::kAuto:
      // The ConfigMap alone counts as CA: only CA writes it. (An uninstalled CA leaves it behind;
      // --autoscaler=none is the way out for such clusters.)
      state->cluster_autoscaler =
          signals.ca_status_configmap || Recent(signals.last_ca_event, now, recent);
      state->karpenter = Recent(signals.last_karpenter_event, now, recent);
      return;
  }
}

AutoscalerKind EventAutoscalerKind(const EventRecord& e) {
  if (e.reason == "TriggeredScaleUp" || e.reason == "NotTriggerScaleUp" ||
      e.reason == "ScaleDown" || e.reason == "ScaleDownFailed") {
    return AutoscalerKind::kClusterAutoscaler;
  }
  if (e.source == "cluster-autoscaler") return AutoscalerKind::kClusterAutoscaler;
  if (e.reason == "Nominated" || e.reason == "NominatedMachine") {
    // The scheduler's preemption also records "Nominated"-like state, but never as an event with
    // this reason; Karpenter (and EKS Auto Mode, which runs Karpenter) does.
    return AutoscalerKind::kKarpenter;
  }
  if (e.source == "karpenter" || e.source.starts_with("eks-auto-mode")) {
    return AutoscalerKind::kKarpenter;
  }
  if (e.reason == "FailedScheduling" && e.message.starts_with("Failed to schedule pod, ")) {
    return AutoscalerKind::kKarpenter;
  }
  return AutoscalerKind::kNone;
}

}  // namespace podwait
