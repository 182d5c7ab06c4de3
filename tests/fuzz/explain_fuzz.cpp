// `podwait-exporter explain -f -`: a kubectl dump (JSON, or YAML of one or more documents) on
// standard input, classified and printed as a wide table and as YAML.

#include <sstream>

#include "exporter/explain/explain.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in{std::string(podwait::fuzz::Text(data, size))};
  std::ostringstream out, err;
  podwait::RunExplain({"-f", "-", "-o", "wide", "--all", "--now=2024-05-02T10:00:00Z"}, in, out,
                      err);
  std::istringstream again{std::string(podwait::fuzz::Text(data, size))};
  podwait::RunExplain({"-f", "-", "-o", "yaml", "-l", "app.kubernetes.io/component!=pd",
                       "--now=2024-05-02T10:00:00Z"},
                      again, out, err);
  return 0;
}
