#pragma once

// tidb-operator v2 objects (core.pingcap.com/v1alpha1): pure parsers from a Cluster, a component
// group or a component instance document to the facts of exporter/model/v2.h, and a reader of
// `kubectl get clusters,pdgroups,pds,tikvs,tidbs -A -o json` dumps (a v1 List of mixed kinds).
// Field names follow pingcap/tidb-operator's api/core/v1alpha1/ (cluster_types.go,
// common_types.go, <component>_types.go); tests/fixtures/v2/README.md says where each comes from.
//
// Every member is type-checked: a member that is present with the wrong type is an error (the
// document is skipped and counted by the caller), an absent optional member is left unset.

#include <rapidjson/fwd.h>

#include <optional>
#include <string>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/model/v2.h"

namespace podwait {

// A parse result: the value, or what was wrong with the document (common/result.h).
template <typename T>
using V2Parse = Result<T>;

// A Cluster document. REQUIRES nothing of `object`: anything that is not a Cluster is an error.
V2Parse<v2::Cluster> ParseV2Cluster(const rapidjson::Value& object);
// An instance document of any kind of v2::Kinds() (PD, TiKV, ..., TiProxy, DM, DMWorker).
V2Parse<v2::Instance> ParseV2Instance(const rapidjson::Value& object);
// A group document (PDGroup, TiKVGroup, ...).
V2Parse<v2::Group> ParseV2Group(const rapidjson::Value& object);

// What a dump holds: the v2 objects it could read, one error per v2 object it could not, and how
// many items were of other kinds (pods, events, v1 TidbClusters: for other readers).
struct V2Objects {
  std::vector<v2::Cluster> clusters;
  std::vector<v2::Group> groups;
  std::vector<v2::Instance> instances;
  std::vector<std::string> errors;  // "<kind> <namespace>/<name>: what was wrong"
  size_t other = 0;
};

// Adds one object to *out by its apiVersion and kind.
void AddV2Object(const rapidjson::Value& object, V2Objects* out);
// A List (kind List or <Kind>List, items of any kinds) or one object.
V2Objects ParseV2Objects(const rapidjson::Value& document);

}  // namespace podwait
