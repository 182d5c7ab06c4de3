// Scheduler, cluster-autoscaler and Karpenter messages (event and condition texts).

#include "exporter/classify/messages.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  const std::string_view message = fuzz::Text(data, size);
  FitError fit = ParseFitError(message);
  for (FitKind kind :
       {FitKind::kResource, FitKind::kNodeSpecific, FitKind::kConstraint, FitKind::kLimit}) {
    DominantReason(fit.reasons, kind);
  }
  NormalizeFitReason(message);
  ParseTriggeredScaleUp(message);
  ParseNotTriggerScaleUp(message);
  ParseKarpenterNominated(message);
  if (auto verdicts = ParseKarpenterFailedScheduling(message)) {
    for (const auto& v : *verdicts) (void)v.reason;
  }
  return 0;
}
