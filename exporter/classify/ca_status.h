#pragma once

// Pure parser for the `status` key of cluster-autoscaler's status ConfigMap
// (kube-system/cluster-autoscaler-status). Two formats exist:
//   - the old human-readable text ("Cluster-autoscaler status at <time>:\nCluster-wide:\n  Health:
//     Healthy (...)\n  ScaleUp: InProgress (ready=3 registered=3)\n...\nNodeGroups:\n  Name: grp\n
//     ...\n  ScaleUp: Backoff (...)"), written by every CA up to 1.29;
//   - the YAML document of CA >= 1.30 (clusterstate/api ClusterAutoscalerStatus: autoscalerStatus,
//     clusterWide.{health,scaleUp,scaleDown}, nodeGroups[].{name,health,scaleUp.{status,
//     backoffInfo.{errorCode,errorMessage}},scaleDown}), parsed with yaml-cpp.
// Never throws; a text that is neither gives an error that says why.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/model/types.h"
#include "exporter/model/vocabulary.h"

namespace podwait {

struct CaStatus {
  enum class Format : uint8_t { kText, kYaml };
  Format format = Format::kYaml;
  std::string autoscaler_status;  // YAML only: Running, Initializing
  std::string cluster_scale_up;   // cluster-wide ScaleUp status: InProgress, NoActivity, ...
  std::vector<NodeGroupStatus> node_groups;
  // When CA wrote it: YAML clusterWide.health.lastProbeTime (RFC 3339), else the top-level `time`;
  // the text format's header "Cluster-autoscaler status at <Go time>:". 0: absent or unreadable.
  Timestamp probe_time = 0;
};

using CaStatusParse = Result<CaStatus>;

CaStatusParse ParseCaStatus(std::string_view status);

// A time as Go's time.Time.String() writes it ("2025-06-03 09:12:31.447918391 +0000 UTC", the
// monotonic "m=+..." suffix ignored), or an RFC 3339 one; nullopt otherwise.
std::optional<Timestamp> ParseGoTime(std::string_view text);

// The CA status as the evaluation reads it: whether the ConfigMap exists (an autoscaler signal)
// and its status, when it parsed.
struct CaStatusReading {
  bool configmap_present = false;
  std::shared_ptr<const CaStatus> status;  // nullptr: no ConfigMap, no status key, or unparsable
};

// The reason of a pod whose node group is in backoff with this backoffInfo.errorCode: one of a
// fixed set (quota, stockout, IP space, permissions, reservation, timeout, cloud provider error),
// scale_up_backoff without a code (the text format), backoff_other for a code not in the set. The
// generic code "OutOfResource" is read by its errorMessage (stockout or quota, else other).
std::string_view BackoffReason(std::string_view code, std::string_view message = {});

// Copies what classification needs into `state`: node groups, the cluster-wide backoff and the
// probe time.
void ApplyCaStatus(const CaStatus& status, AutoscalerState* state);

}  // namespace podwait
