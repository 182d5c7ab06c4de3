// `podwait-exporter explain -f -`: a pods dump on standard input, classified and printed.

#include <sstream>

#include "exporter/explain/explain.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in{std::string(podwait::fuzz::Text(data, size))};
  std::ostringstream out, err;
  podwait::RunExplain({"-f", "-", "-o", "wide", "--all", "--now=2024-05-02T10:00:00Z"}, in, out,
                      err);
  return 0;
}
