// An Event (core/v1 or events.k8s.io/v1 shape) through the JSON helper and the event parser.

#include "exporter/common/json.h"
#include "exporter/sources/events.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  auto doc = json::Parse(fuzz::Text(data, size));
  if (!doc.ok()) return 0;
  EventParseOptions options;
  options.max_message_bytes = 64;
  ParseEvent(*doc.value, options);
  return 0;
}
