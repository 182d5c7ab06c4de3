// Any answer a PD (or whatever answers on its address) may send: every endpoint's parser.

#include "exporter/pd/api.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace podwait;
  const std::string_view body = fuzz::Text(data, size);
  ParsePdHealth(body);
  ParsePdLeader(body);
  ParsePdMembers(body);
  ParsePdClusterStatus(body);
  ParsePdStores(body);
  ParsePdReplicateConfig(body);
  IsPdNotBootstrapped(500, body);
  return 0;
}
