// A kubeconfig file (YAML): the current context and a named one.

#include "exporter/kube/kubeconfig.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  const std::string_view text = podwait::fuzz::Text(data, size);
  ParseKubeconfig(text, "fuzz/config", "");
  ParseKubeconfig(text, "fuzz/config", "prod");
  return 0;
}
