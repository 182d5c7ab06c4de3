#pragma once

// Per-cluster dependency state (docs/DESIGN.md §4): whether `pd` and `tikv` are ready, not ready or
// unknown, since when they are ready, and why not. Inputs: PD probe results (PdFacts), TidbCluster
// status, and the number of Ready PD pods (the fallback when the PD API cannot be reached).
//
// Rules (EvaluateDependencies):
//  - pd ready   = PD answers with a leader and a healthy majority of /health.
//  - tikv ready = pd ready, is_initialized, and at least one TiKV store Up (TiFlash stores don't
//    count). When PD does not report is_initialized (PD < 3.0), the stores decide.
//  - When the chosen source cannot say (the PD API is unreachable and, for `both`, no TidbCluster
//    status exists): no Ready PD pod -> not ready (pd_not_ready); Ready PD pods -> unknown
//    (dependency_unknown): a network policy or a probe problem, not a PD outage.
//  - A tidb-operator v2 cluster (v2::ClusterFacts present) in that case: no PD instance
//    Ready=True and no Ready PD pod -> pd not ready (pd_not_ready); otherwise pd unknown. tikv then
//    follows pd when pd is not ready; else no TiKV instance Ready=True with status.state Serving
//    -> not ready (no_tikv_store_up), otherwise unknown. Unknown is never `dependency`.
//  - readiness_source: pd-api (only the API), tidbcluster (only the TidbCluster status), both
//    (the API when it answers, the TidbCluster status otherwise).
//
// ready_since: set when a dependency becomes ready after having been not ready (or on the first
// sight of it ready: then from the cluster's own transition times where they exist,
// dependency_times.h, so that an exporter restart does not restart the ready grace). An unknown
// spell in between keeps it: ready -> unknown -> ready is the same ready period as far as anyone
// can tell; ready -> not ready -> ready starts a new one. It keeps its last value while not ready
// ("when it last became ready"; 0 if never seen ready).

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/config/config.h"
#include "exporter/model/pd_facts.h"
#include "exporter/model/tidbcluster.h"
#include "exporter/model/types.h"
#include "exporter/model/v2.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/waiting_tracker.h"

namespace podwait {

// Which input decided a cluster's readiness.
enum class DependencySource : uint8_t { kPdApi, kTidbCluster, kPods, kV2Instances };
inline constexpr std::string_view kDependencySourceNames[] = {"pd-api", "tidbcluster", "pods",
                                                              "v2-instances"};
constexpr std::string_view DependencySourceName(DependencySource s) {
  return kDependencySourceNames[static_cast<size_t>(s)];
}

struct DependencyInputs {
  const PdFacts* pd = nullptr;            // last probe; nullptr when never probed
  const TidbClusterStatus* tc = nullptr;  // nullptr when no TidbCluster
  int ready_pd_pods = 0;
  std::string_view readiness_source = "both";
  const v2::ClusterFacts* v2 = nullptr;  // nullptr (or not present) for a v1 cluster
};

struct DependencyEvaluation {
  ClusterDependencies deps;  // ready_since left 0: transitions are the store's business
  DependencySource source = DependencySource::kPods;
};

// Pure: readiness and reasons from the inputs.
DependencyEvaluation EvaluateDependencies(const DependencyInputs& in);

// Applies one evaluation to the previous status of a dependency: keeps or sets ready_since per
// the rules above. *last_known is the last non-unknown readiness seen (kUnknown before any).
// cluster_since: the cluster's own date of the readiness (dependency_times.h), 0 when none; a
// dependency seen ready for the first time (after an exporter restart) is dated from it when it
// is not in the future, else from `now`.
DependencyStatus ApplyTransition(const DependencyStatus& previous, DependencyStatus next,
                                 Readiness* last_known, Timestamp now, Timestamp cluster_since = 0);

// Everything known about one cluster, for metrics and views.
struct ClusterDependencyView {
  ClusterDependencies deps;
  DependencySource source = DependencySource::kPods;
  std::optional<PdFacts> pd;  // last probe, if any
  bool has_tidbcluster = false;
  // From the TidbCluster status (when present).
  int tc_pd_members_healthy = 0;
  int tc_pd_members_unhealthy = 0;
  bool tc_pd_has_leader = false;
  std::map<std::string, int> tc_tikv_stores;    // state -> count
  std::map<std::string, int> failover_members;  // component -> count (pd, tidb, tikv, tiflash)
  int ready_pd_pods = 0;
  // From the cluster's tidb-operator v2 instances (when it has any). v2 records no failover
  // members: failover_members stays empty for such a cluster.
  std::optional<v2::ClusterFacts> v2;
};

// Thread-safe. Readers get copies; no lock is held while callers use them.
class DependencyStore {
 public:
  DependencyStore(const Config& config, const Clock& clock);
  DependencyStore(const DependencyStore&) = delete;
  DependencyStore& operator=(const DependencyStore&) = delete;

  // The registry's full set (membership and Ready PD pods). Clusters not in it are dropped with
  // their probe results. Use as the ClusterRegistry listener.
  void SyncClusters(const std::map<ClusterKey, ClusterInfo>& clusters);
  // A probe result; ignored for a cluster that is not (or no longer) known.
  void OnPdProbe(const ClusterKey& cluster, PdFacts facts);
  // TidbCluster status: the full set after a (re)list, one upsert, one delete. Kept for every
  // cluster of this shard even before the registry lists it.
  void ReplaceTidbClusters(const std::vector<TidbClusterStatus>& all);
  void OnTidbCluster(const TidbClusterStatus& status);
  void OnTidbClusterDeleted(const ClusterKey& cluster);
  // The facts of one tidb-operator v2 cluster (V2Store's listener); not present: forgotten.
  void OnV2Cluster(const ClusterKey& cluster, const v2::ClusterFacts& facts);

  std::map<ClusterKey, ClusterDependencies> Snapshot() const;
  std::optional<ClusterDependencies> Get(const ClusterKey& cluster) const;
  std::map<ClusterKey, ClusterDependencyView> Views() const;
  // Failover members/stores of every known cluster, for the failover-during-wait metric.
  std::vector<FailureMember> FailureMembers() const;

 private:
  struct Entry {
    int ready_pd_pods = 0;
    std::optional<PdFacts> pd;
    ClusterDependencies deps;
    DependencySource source = DependencySource::kPods;
    Readiness last_known[2] = {Readiness::kUnknown, Readiness::kUnknown};
  };
  // REQUIRES: mu_ held.
  void Reevaluate(const ClusterKey& key, Entry* entry);

  const Config config_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::map<ClusterKey, Entry> clusters_;
  std::map<ClusterKey, TidbClusterStatus> tidbclusters_;
  std::map<ClusterKey, v2::ClusterFacts> v2_;
};

}  // namespace podwait
