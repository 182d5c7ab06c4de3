// The exporter-toolkit web config (--web.config.file) as YAML text: the strict parser.

#include <string>

#include "exporter/http/web_config.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  podwait::ParseWebConfig(podwait::fuzz::Text(data, size), "/etc/podwait");
  return 0;
}
