#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <string>
#include <string_view>

#include "exporter/common/clock.h"

namespace podwait::sim {

// Relative and absolute times in scenarios. Accepted: "now", "-5m", "+30s", "${now}",
// "${now-5m}", "${now+1h}", or an RFC 3339 timestamp. Returns false for anything else.
bool ResolveTime(std::string_view text, Timestamp now, Timestamp* out);

// Replaces every "${now}", "${now-5m}", "${now+30s}" inside string values of `v` (recursively)
// with the RFC 3339 time relative to `now`. A string that is exactly such a placeholder becomes
// the timestamp; placeholders inside longer strings are substituted in place.
void ExpandTimes(rapidjson::Value& v, rapidjson::Document::AllocatorType& alloc, Timestamp now);

// Looks up a current pod's uid ("" when there is no such pod), for events that name a pod.
using PodUidLookup = std::function<std::string(const std::string& ns, const std::string& name)>;

// Shorthand expansions into real-shaped documents (see tests/sim/README.md for the fields).
// Each returns false and sets *error on bad input.
bool ExpandPod(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
               std::string* error);
bool ExpandEvent(const rapidjson::Value& spec, Timestamp now, const PodUidLookup& lookup,
                 rapidjson::Document* out, std::string* error);
bool ExpandTidbCluster(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
                       std::string* error);
// A tidb-operator v2 object (core.pingcap.com/v1alpha1): a Cluster, a group or an instance.
bool ExpandV2(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
              std::string* error);
bool ExpandConfigMap(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
                     std::string* error);
// The cluster-autoscaler status ConfigMap (kube-system/cluster-autoscaler-status).
bool ExpandAutoscalerStatus(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
                            std::string* error);

// The member_id of PD member `index` of a cluster: a full-range uint64 as decimal text (some are
// above INT64_MAX, like real PD ids). Shared by the TidbCluster shorthand and the PD API.
std::string PdMemberId(const std::string& ns, const std::string& cluster, size_t index);
// The cluster_id PD reports for a cluster (below 2^63). The same id is the cluster's everywhere
// the simulator writes one: PD's /members header, tidb-operator v1's tidb.pingcap.com/cluster-id
// label and a v2 Cluster's status.id.
uint64_t PdClusterId(const std::string& ns, const std::string& cluster);

// A stable 64-bit hash (FNV-1a) for made-up ids.
uint64_t StableHash(std::string_view text);

}  // namespace podwait::sim
