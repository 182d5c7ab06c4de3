#include "exporter/classify/volumes.h"

#include "exporter/classify/scheduler_filters.h"

namespace podwait {

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
