// The cluster-autoscaler-status ConfigMap's "status" value, in both formats (the YAML of
// cluster-autoscaler >= 1.30 and the older text), and what classification takes from it.

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  CaStatusParse status = ParseCaStatus(fuzz::Text(data, size));
  if (status.ok()) {
    AutoscalerState state;
    ApplyCaStatus(*status.value, &state);
  }
  return 0;
}
