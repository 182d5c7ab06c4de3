// What an exec credential plugin prints (an ExecCredential, v1 and v1beta1).

#include "exporter/kube/exec_credential.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  const std::string_view text = fuzz::Text(data, size);
  ParseExecCredential(text, "client.authentication.k8s.io/v1");
  ParseExecCredential(text, "client.authentication.k8s.io/v1beta1");
  return 0;
}
