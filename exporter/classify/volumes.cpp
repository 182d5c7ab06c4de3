#include "exporter/classify/volumes.h"

#include "exporter/classify/scheduler_filters.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

bool AnyContainerStarted(const PodRecord& pod) {
  for (const auto* list : {&pod.detail().init_containers, &pod.detail().containers}) {
    for (const auto& c : *list) {
      if (c.state == ContainerState::kRunning || c.state == ContainerState::kTerminated) {
        return true;
      }
    }
  }
  return false;
}

// The volume/sandbox reason of an event, or "" when it is not one.
std::string_view VolumeReasonOf(const EventRecord& e) {
  namespace r = reason;
  if (e.reason == "FailedAttachVolume") {
    return e.message.find("Multi-Attach error") != std::string::npos ? r::kVolumeMultiAttach
                                                                     : r::kVolumeAttachFailed;
  }
  if (e.reason == "FailedMount") {
    // "timed out waiting for the condition" (1.17+), "context deadline exceeded" (newer),
    // "timeout expired waiting for volumes to attach or mount" (before 1.17).
    const bool timeout = e.message.find("timed out waiting") != std::string::npos ||
                         e.message.find("context deadline exceeded") != std::string::npos ||
                         e.message.find("timeout expired waiting") != std::string::npos;
    return timeout ? r::kVolumeMountTimeout : r::kVolumeMountFailed;
  }
  if (e.reason == "FailedCreatePodSandBox") return r::kSandboxCreation;
  return {};
}

}  // namespace

std::optional<VolumeWait> FindVolumeWait(const PodRecord& pod,
                                         const std::vector<const EventRecord*>& events,
                                         Timestamp stage_start) {
  if (AnyContainerStarted(pod)) return std::nullopt;
  const EventRecord* newest = nullptr;
  std::string_view why;
  for (const EventRecord* e : events) {
    if (e->last < stage_start) continue;
    std::string_view w = VolumeReasonOf(*e);
    if (w.empty()) continue;
    if (newest == nullptr || e->last >= newest->last) {
      newest = e;
      why = w;
    }
  }
  if (newest != nullptr) {
    return VolumeWait{why, newest->reason + ": " + newest->message, true};
  }
  for (std::string_view type : {"PodReadyToStartContainers", "PodHasNetwork"}) {
    const PodCondition* c = pod.Condition(type);
    if (c != nullptr && c->status == ConditionStatus::kFalse) {
      return VolumeWait{reason::kSandboxCreation, std::string(type) + "=False", false};
    }
  }
  return std::nullopt;
}

std::optional<MixedConstraint> ConstraintDecidesMix(const FitError& fit,
                                                    const PodVolumeFacts* volumes) {
  // Every node reported it: whatever else those nodes lack, this excludes all of them.
  if (fit.total_nodes > 0) {
    for (const auto& r : fit.reasons) {
      if (r.kind == FitKind::kConstraint && r.count >= fit.total_nodes) {
        return MixedConstraint{r.reason, "every node: " + r.text};
      }
    }
  }
  const FitReason* late_volume = nullptr;
  for (const auto& r : fit.reasons) {
    if (r.kind != FitKind::kConstraint) continue;
    const SchedulerFilterInfo* f = FilterInfo(FilterOf(r));
    if (f != nullptr && f->volume && RunsAfterResourceFit(f->filter)) {
      if (late_volume == nullptr || r.count > late_volume->count) late_volume = &r;
    }
  }
  if (late_volume == nullptr) return std::nullopt;
  const VolumePinning pinning = volumes != nullptr ? volumes->pinning : VolumePinning::kUnknown;
  switch (pinning) {
    case VolumePinning::kNotNode:
      return std::nullopt;
    case VolumePinning::kNode:
      return MixedConstraint{late_volume->reason, "local PersistentVolume " + volumes->volume +
                                                      " pinned to node " + volumes->node};
    case VolumePinning::kUnknown:
      break;
  }
  return MixedConstraint{late_volume->reason,
                         "volume checked after resources, its placement unknown"};
}

}  // namespace podwait
