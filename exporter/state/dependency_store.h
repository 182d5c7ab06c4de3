#pragma once

// Per-cluster dependency state (docs/DESIGN.md §4): whether `pd` and `tikv` are ready, not ready or
// unknown, since when they are ready, and why not. Inputs: PD probe results (PdFacts), TidbCluster
// status, and the number of Ready PD pods (the fallback when the PD API cannot be reached). A
// cluster whose PD is not its own (its TidbCluster's PdSource) reads the referenced cluster's
// status and Ready PD pods instead, or, with PD in another Kubernetes, only its probe.
//
// The rules are pure functions in classify/dependencies.h (EvaluateDependencies, ApplyTransition).

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/classify/dependencies.h"
#include "exporter/common/clock.h"
#include "exporter/config/config.h"
#include "exporter/model/dmcluster_status.h"
#include "exporter/model/pd_facts.h"
#include "exporter/model/tidbcluster_status.h"
#include "exporter/model/types.h"
#include "exporter/model/v2.h"
#include "exporter/model/waiting.h"
#include "exporter/state/cluster_registry.h"

namespace podwait {

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
  // Where its PD lives (its TidbCluster's spec; own without one). A v1 DMCluster's view has
  // deps.tidb_cluster false: no PD to probe.
  PdSource pd_source;
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
  // v1 DMClusters (DmClusterStore's listener): the dm-master state of each, shown under the
  // DMCluster's key (its pods' instance label) whether or not a TiDB cluster has that name.
  void ReplaceDmClusters(const std::vector<DmClusterStatus>& all);
  void OnDmCluster(const DmClusterStatus& status);
  void OnDmClusterDeleted(const ClusterKey& cluster);
  // The facts of one tidb-operator v2 cluster (V2Store's listener); not present: forgotten.
  void OnV2Cluster(const ClusterKey& cluster, const v2::ClusterFacts& facts);

  // Every input has been read once (the exporter's lists synced and PD probed once): from now on
  // a dependency seen not ready and then ready is a transition podwait watched, dated by its
  // clock. Before, a first not-ready verdict comes from the inputs read so far and the ready
  // that follows is dated from the cluster's own times (classify/dependencies.h). Idempotent.
  void OnInputsSynced();

  // Every known cluster has a PD probe result (answered or not).
  bool EveryClusterProbed() const;

  std::map<ClusterKey, ClusterDependencies> Snapshot() const;
  std::optional<ClusterDependencies> Get(const ClusterKey& cluster) const;
  std::map<ClusterKey, ClusterDependencyView> Views() const;
  // The clusters of this shard whose PD is not their own (PdSource), for the prober's targets.
  std::map<ClusterKey, PdSource> PdSources() const;
  // Failover members/stores of every known cluster, for the failover-during-wait metric.
  std::vector<FailureMember> FailureMembers() const;

 private:
  struct Entry {
    int ready_pd_pods = 0;
    std::optional<PdFacts> pd;
    ClusterDependencies deps;
    DependencySource source = DependencySource::kPods;
    TransitionMemory memory[std::size(kAllDependencies)] = {};
  };
  // REQUIRES: mu_ held.
  void Reevaluate(const ClusterKey& key, Entry* entry);
  // The clusters that reference `cluster` as their PD (PdSourceKind::kReferenced), again.
  // REQUIRES: mu_ held.
  void ReevaluateReferrersLocked(const ClusterKey& cluster);
  // The TidbCluster status the cluster's dependencies are read from: its own (own PD), the
  // referenced cluster's with this one's stores (in *scratch), or none (PD elsewhere, or no
  // TidbCluster). REQUIRES: mu_ held.
  const TidbClusterStatus* DependencyTcLocked(const ClusterKey& key,
                                              TidbClusterStatus* scratch) const;
  // The cluster's PD source (own without a TidbCluster). REQUIRES: mu_ held.
  PdSource SourceOfLocked(const ClusterKey& key) const;
  // Whether a TidbCluster is kept: this shard's, or one that has its own PD (it may be
  // referenced by a heterogeneous cluster of this shard).
  bool Kept(const TidbClusterStatus& tc) const;

  const Config config_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::map<ClusterKey, Entry> clusters_;
  std::map<ClusterKey, TidbClusterStatus> tidbclusters_;
  std::map<ClusterKey, v2::ClusterFacts> v2_;
  struct DmEntry {
    DependencyStatus dm_master;
    TransitionMemory memory;
  };
  std::map<ClusterKey, DmEntry> dm_;  // v1 DMClusters of this shard
  // REQUIRES: mu_ held.
  void ApplyDmLocked(const DmClusterStatus& status);
  bool inputs_synced_ = false;
};

}  // namespace podwait
