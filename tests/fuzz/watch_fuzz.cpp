// A watch response body: split into lines as it arrives (in chunks whose size the first byte
// picks), each line decoded as a watch event, Status objects read, and the whole body read as a
// Status the way a failed request's body is.

#include "exporter/kube/watch_protocol.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::string_view body = fuzz::Text(data + 1, size - 1);
  LineSplitter splitter(1u << 20);
  rapidjson::Document doc;
  auto on_line = [&](std::string_view line) {
    Result<WatchEvent> event = ParseWatchEvent(line, &doc);
    if (!event.ok()) return;
    ObjectResourceVersion(*event->object);
    if (event->type == WatchEventType::kError) IsResourceExpired(ParseApiStatus(*event->object));
  };
  for (size_t at = 0; at < body.size(); at += chunk) splitter.Feed(body.substr(at, chunk), on_line);
  splitter.Reset();
  ParseApiStatusBody(body);
  return 0;
}
