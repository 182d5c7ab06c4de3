// A pod as the API server sends it (a list item or a watch event's object): the JSON helper, the
// pod parser (full and compact) and the classifier on what parsed.

#include "exporter/classify/classifier.h"
#include "exporter/common/json.h"
#include "exporter/sources/pods.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  auto doc = json::Parse(fuzz::Text(data, size));
  if (!doc.ok()) return 0;
  for (bool compact : {true, false}) {
    PodParseOptions options;
    options.compact_ready = compact;
    options.max_message_bytes = 64;
    Result<PodRecord> p = ParsePod(*doc.value, options);
    if (!p.ok()) continue;
    Classify(*p, {}, nullptr, AutoscalerState{}, ClassifierOptions{}, 1'700'000'000'000);
  }
  return 0;
}
