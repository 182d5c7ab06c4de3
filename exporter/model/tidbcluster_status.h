#pragma once

// What podwait keeps of a TidbCluster (pingcap.com/v1alpha1): the parts that dependency readiness
// and the failover metrics need. Field names follow tidb-operator's
// pkg/apis/pingcap/v1alpha1/types.go (TidbClusterStatus, PDStatus, TiKVStatus, TiDBStatus,
// TiFlashStatus, PDFailureMember, TiDBFailureMember, TiKVFailureStore). The parser is
// exporter/sources/tidbcluster.h.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/model/types.h"

namespace podwait {

// A member or store the operator recorded as failed (status.<component>.failureMembers or
// failureStores; maps keyed by member name or store id).
struct TidbFailureMember {
  std::string component;  // pd, tidb, tikv, tiflash
  std::string id;         // the map key (PD member name, TiDB pod name, store id)
  std::string pod_name;
  Timestamp created_at = 0;  // 0 when the operator did not record it (older versions)
};

struct TidbStoreStatus {
  std::string id;
  std::string pod_name;
  std::string state;  // Up, Down, Offline, Tombstone (as PD reported to the operator)
};

struct TidbClusterStatus {
  ClusterKey key;
  std::string uid;
  std::string resource_version;
  // status.pd.members: member name -> health
  std::map<std::string, bool> pd_members;
  std::string pd_leader;                     // status.pd.leader.name; empty when none
  std::vector<TidbStoreStatus> tikv_stores;  // status.tikv.stores (TiKV only; TiFlash is separate)
  bool tikv_bootstrapped = false;            // status.tikv.bootStrapped
  std::vector<TidbFailureMember> failure_members;  // all four components
  // spec.<component>.replicas; -1 when the component is not in the spec
  int32_t pd_replicas = -1;
  int32_t tikv_replicas = -1;
  int32_t tidb_replicas = -1;
  int32_t tiflash_replicas = -1;

  int PdHealthy() const {
    int n = 0;
    for (const auto& [name, healthy] : pd_members) n += healthy ? 1 : 0;
    return n;
  }
  int TikvStoresIn(std::string_view state) const {
    int n = 0;
    for (const auto& s : tikv_stores) n += s.state == state ? 1 : 0;
    return n;
  }
};

}  // namespace podwait
