#pragma once

// What podwait keeps of a v1 DMCluster (pingcap.com/v1alpha1 dmclusters): its DM masters, which
// its dm-workers join at start (a dm-worker exits when no master takes its registration,
// pingcap/tiflow dm/worker/join.go; tidb-operator v1 starts it with --join=<dc>-dm-master:8261,
// pkg/manager/member/startscript/v1/template.go). Field names follow tidb-operator v1.6.6's
// pkg/apis/pingcap/v1alpha1/types.go (DMClusterSpec.Master.Replicas, DMClusterStatus.Master:
// MasterStatus.Members, a map by member name of MasterMember with health, and Leader). The
// parser is exporter/sources/dmcluster.h.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "exporter/model/types.h"

namespace podwait {

struct DmClusterStatus {
  ClusterKey key;  // the DMCluster's namespace and name (its pods' app.kubernetes.io/instance)
  int32_t master_replicas = -1;                // spec.master.replicas; -1 when not written
  std::map<std::string, bool> master_members;  // status.master.members: name -> health
  std::string master_leader;                   // status.master.leader.name; empty when none

  int MastersHealthy() const {
    int n = 0;
    for (const auto& [name, healthy] : master_members) n += healthy ? 1 : 0;
    return n;
  }
  // The masters' etcd has a quorum to take a dm-worker's registration: more than half of the
  // desired masters (or of the members, when more are listed) are healthy.
  bool MasterMajority() const {
    const int total =
        std::max(static_cast<int>(master_members.size()), static_cast<int>(master_replicas));
    return total > 0 && MastersHealthy() * 2 > total;
  }
  bool operator==(const DmClusterStatus&) const = default;
};

}  // namespace podwait
