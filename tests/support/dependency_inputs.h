#pragma once

// Dependency inputs of a healthy cluster, shared by the dependency rules' and the dependency
// store's tests (made up; PdFacts as pd/prober.cpp fills it, TidbClusterStatus as
// sources/tidbcluster.cpp parses pingcap/tidb-operator's TidbCluster status).

#include "exporter/model/pd_facts.h"
#include "exporter/model/tidbcluster_status.h"

namespace podwait::fixtures {

inline PdFacts HealthyPd() {
  PdFacts f;
  f.reachable = true;
  f.success = true;
  f.health_known = true;
  f.members_healthy = 3;
  f.leader_known = true;
  f.has_leader = true;
  f.cluster_status_known = true;
  f.is_initialized = true;
  f.stores_known = true;
  f.tikv_stores = {{"Up", 3}};
  return f;
}

inline PdFacts Unreachable() {
  PdFacts f;
  f.error = "health: Couldn't connect to server";
  return f;
}

inline TidbClusterStatus HealthyTc() {
  TidbClusterStatus tc;
  tc.key = {"ns", "c"};
  tc.pd_members = {{"c-pd-0", true}, {"c-pd-1", true}, {"c-pd-2", false}};
  tc.pd_leader = "c-pd-0";
  tc.tikv_stores = {{"1", "c-tikv-0", "Up"}};
  tc.tikv_bootstrapped = true;
  return tc;
}

}  // namespace podwait::fixtures
