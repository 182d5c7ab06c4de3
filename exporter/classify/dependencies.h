#pragma once

// The dependency readiness rules (docs/DESIGN.md §4), pure: a cluster's PD and TiKV readiness and
// reasons from its inputs (PD probe, TidbCluster status, tidb-operator v2 facts, Ready PD pods),
// and how a new readiness carries ready_since over. The dependency store
// (state/dependency_store.h) applies them as its inputs change; the pod rules
// (classify/classifier.h) read the result.
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
//  - dm-master (a v2 cluster with DM or DMWorker instances only; otherwise left unknown without a
//    reason: it does not apply): ready while more than half of its DM instances are Ready=True,
//    else not ready (dm_master_not_ready), whatever the readiness source. The DM masters'
//    instances are the only view podwait has of them (no DM API is probed).
//  - A cluster whose PD is not its own (model/tidbcluster_status.h PdSource): the dependency
//    store hands in the referenced cluster's TidbCluster status (with this cluster's own stores)
//    and PD probe; where neither answers and PD's pods are not in view (pd_local false), pd and
//    tikv are unknown with reason pd_elsewhere, never not ready.
//  - tso (a v2 cluster in PD microservices mode only: a PDGroup with spec.template.spec.mode and
//    status.mode ms and no ModeSwitching=True; otherwise left unknown without a reason: it does
//    not apply, and the pod rules drop it from what a pod needs): ready while a TSO instance is
//    Ready=True (one TSO primary serves every timestamp), else not ready (tso_not_ready),
//    whatever the readiness source. PD does not allocate timestamps in that mode, so PD's
//    readiness does not cover them.
//  - readiness_source: pd-api (only the API), tidbcluster (only the TidbCluster status), both
//    (the API when it answers, the TidbCluster status otherwise).
//
// ready_since: set when a dependency becomes ready after having been not ready (or on the first
// sight of it ready: then from the cluster's own transition times where they exist,
// classify/dependency_times.h, so that an exporter restart does not restart the ready grace; a
// first sight without them is dated from the cluster's times once an input read later gives
// them). An unknown spell in between keeps it: ready -> unknown -> ready is the same ready period
// as far as anyone can tell; ready -> not ready -> ready starts a new one. A first verdict of not
// ready given while the exporter's inputs are still being read (the pods listed before the
// TidbCluster: no Ready PD pod counted yet) is not a sighting: the ready that follows is still a
// first sight. It keeps its last value while not ready ("when it last became ready"; 0 if never
// seen ready).

#include <cstdint>
#include <string_view>

#include "exporter/model/dmcluster_status.h"
#include "exporter/model/pd_facts.h"
#include "exporter/model/readiness_source.h"
#include "exporter/model/tidbcluster_status.h"
#include "exporter/model/types.h"
#include "exporter/model/v2.h"

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
  ReadinessSource readiness_source = ReadinessSource::kBoth;
  const v2::ClusterFacts* v2 = nullptr;  // nullptr (or not present) for a v1 cluster
  // Whether PD's absence from what podwait sees (no Ready PD pod) tells of an outage: false for a
  // cluster whose PD lives elsewhere (PdSource::Local(): another Kubernetes, or a referenced
  // cluster podwait does not hold), whose fallback is then unknown (pd_elsewhere), never not ready.
  bool pd_local = true;
};

struct DependencyEvaluation {
  ClusterDependencies deps;  // ready_since left 0: transitions are the store's business
  DependencySource source = DependencySource::kPods;
};

// A v1 DMCluster's dm-master (model/dmcluster_status.h): ready while more than half of its
// masters are healthy in status.master.members, else not ready (dm_master_not_ready). Pure.
DependencyStatus DmMasterOf(const DmClusterStatus& dc);

// Pure: readiness and reasons from the inputs.
DependencyEvaluation EvaluateDependencies(const DependencyInputs& in);

// What is remembered of one dependency between its evaluations, to date its readiness.
struct TransitionMemory {
  // The last non-unknown readiness seen as such (kUnknown before any). A not-ready verdict given
  // before the inputs are in sync is not seen as such when nothing was seen before it: it comes
  // from the inputs read so far (the pods before the TidbCluster, say), not from the cluster.
  Readiness last_known = Readiness::kUnknown;
  // ready_since is the time podwait first saw the dependency ready, the cluster giving no date:
  // the cluster's own date replaces it when one arrives later (an input read after another).
  bool dated_at_first_sight = false;
};

// Applies one evaluation to the previous status of a dependency: keeps or sets ready_since per
// the rules above. cluster_since: the cluster's own date of the readiness
// (classify/dependency_times.h), 0 when none; a dependency seen ready for the first time (after
// an exporter restart) is dated from it when it is not in the future, else from `now` (and from
// the cluster's date as soon as one comes). A dependency seen not ready and then ready is dated
// from `now`: podwait saw it happen. inputs_synced: every input has been read once (the
// exporter's start is over); before that a first not-ready verdict is not a sighting.
DependencyStatus ApplyTransition(const DependencyStatus& previous, DependencyStatus next,
                                 TransitionMemory* memory, Timestamp now,
                                 Timestamp cluster_since = 0, bool inputs_synced = true);

}  // namespace podwait
