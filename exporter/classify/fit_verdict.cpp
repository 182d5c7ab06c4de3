#include "exporter/classify/fit_verdict.h"

#include <utility>

#include "exporter/classify/volumes.h"

namespace podwait::rules {
FitVerdict Judge(const FitError& fit, const PodVolumeFacts* volumes, std::string_view* why,
                 std::string* note) {
  if (const FitReason* res = DominantReason(fit.reasons, FitKind::kResource)) {
    if (auto mixed = ConstraintDecidesMix(fit, volumes)) {
      *why = mixed->reason;
      if (note != nullptr) *note = std::move(mixed->note);
      return FitVerdict::kConstraint;
    }
    *why = res->reason;
    return FitVerdict::kResource;
  }
  if (const FitReason* con = DominantReason(fit.reasons, FitKind::kConstraint)) {
    *why = con->reason;
    return FitVerdict::kConstraint;
  }
  if (DominantReason(fit.reasons, FitKind::kNodeSpecific) != nullptr) {
    *why = r::kNodesUnavailable;
    return FitVerdict::kResource;
  }
  *why = r::kUnschedulableOther;
  return FitVerdict::kUnknown;
}

Classification FromFit(Timestamp start, FitVerdict verdict, std::string_view why,
                       std::string evidence) {
  WaitClass c = verdict == FitVerdict::kResource ? WaitClass::kCapacity : WaitClass::kConstraints;
  return Waiting(Stage::kUnscheduled, c, why, start, std::move(evidence));
}

}  // namespace podwait::rules
