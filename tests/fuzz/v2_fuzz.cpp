// tidb-operator v2 objects (core.pingcap.com/v1alpha1) as text: the JSON helper and the v2
// parsers (a List of mixed kinds, or one Cluster, group or instance).

#include <rapidjson/document.h>

#include "exporter/common/json.h"
#include "exporter/sources/v2_objects.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rapidjson::Document doc;
  if (!podwait::json::ParseInto(podwait::fuzz::Text(data, size), &doc).empty()) return 0;
  podwait::ParseV2Objects(doc);
  podwait::ParseV2Cluster(doc);
  podwait::ParseV2Instance(doc);
  podwait::ParseV2Group(doc);
  return 0;
}
