// A TidbCluster (pingcap.com/v1alpha1) as text: the JSON helper and the TidbCluster parser.

#include "exporter/sources/tidbcluster.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  podwait::ParseTidbCluster(podwait::fuzz::Text(data, size));
  return 0;
}
