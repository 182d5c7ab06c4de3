#include "exporter/classify/dependencies.h"

namespace podwait {
namespace {

DependencyStatus Status(Readiness r, DependencyReason reason = DependencyReason::kNone) {
  DependencyStatus s;
  s.readiness = r;
  s.reason = reason;
  return s;
}

// tikv follows pd: when pd is not ready (or unknown), so is tikv, for the same cause.
DependencyStatus TikvBlockedByPd(const DependencyStatus& pd) {
  if (pd.readiness == Readiness::kUnknown) {
    return Status(Readiness::kUnknown, DependencyReason::kDependencyUnknown);
  }
  return Status(Readiness::kNotReady, DependencyReason::kPdNotReady);
}

ClusterDependencies FromPdApi(const PdFacts& f) {
  ClusterDependencies d;
  if (!f.has_leader) {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kNoPdLeader);
  } else if (f.health_known && !f.HealthyMajority()) {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kPdUnhealthyMajority);
  } else {
    d.pd = Status(Readiness::kReady);
  }
  if (d.pd.readiness != Readiness::kReady) {
    d.tikv = TikvBlockedByPd(d.pd);
  } else if (f.not_bootstrapped) {
    d.tikv = Status(Readiness::kNotReady, DependencyReason::kTikvNotBootstrapped);
  } else if (f.is_initialized.has_value() && !*f.is_initialized) {
    d.tikv = Status(Readiness::kNotReady, DependencyReason::kClusterNotInitialized);
  } else if (!f.stores_known) {
    // PD answers but /stores did not: nothing says whether a TiKV store is up.
    d.tikv = Status(Readiness::kUnknown, DependencyReason::kDependencyUnknown);
  } else if (f.TikvStoresIn("Up") == 0) {
    d.tikv = Status(Readiness::kNotReady, DependencyReason::kNoTikvStoreUp);
  } else {
    d.tikv = Status(Readiness::kReady);
  }
  return d;
}

ClusterDependencies FromTidbCluster(const TidbClusterStatus& tc) {
  ClusterDependencies d;
  const int total = static_cast<int>(tc.pd_members.size());
  const int healthy = tc.PdHealthy();
  if (total == 0) {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kPdNotReady);
  } else if (tc.pd_leader.empty()) {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kNoPdLeader);
  } else if (healthy * 2 <= total) {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kPdUnhealthyMajority);
  } else {
    d.pd = Status(Readiness::kReady);
  }
  if (d.pd.readiness != Readiness::kReady) {
    d.tikv = TikvBlockedByPd(d.pd);
  } else if (tc.TikvStoresIn("Up") == 0) {
    d.tikv = Status(Readiness::kNotReady, tc.tikv_stores.empty() && !tc.tikv_bootstrapped
                                              ? DependencyReason::kTikvNotBootstrapped
                                              : DependencyReason::kNoTikvStoreUp);
  } else {
    d.tikv = Status(Readiness::kReady);
  }
  return d;
}

ClusterDependencies FromPods(int ready_pd_pods) {
  ClusterDependencies d;
  if (ready_pd_pods > 0) {
    d.pd = Status(Readiness::kUnknown, DependencyReason::kDependencyUnknown);
  } else {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kPdNotReady);
  }
  d.tikv = TikvBlockedByPd(d.pd);
  return d;
}

// A v2 cluster whose PD API cannot be reached: its PD and TiKV instances' Ready conditions (the
// operator's own view) with the PD pods; a Ready PD but no answer is unknown, never not ready.
ClusterDependencies FromV2(const v2::ClusterFacts& f, int ready_pd_pods) {
  ClusterDependencies d;
  if (f.pd_instances_ready == 0 && ready_pd_pods == 0) {
    d.pd = Status(Readiness::kNotReady, DependencyReason::kPdNotReady);
    d.tikv = TikvBlockedByPd(d.pd);
    return d;
  }
  d.pd = Status(Readiness::kUnknown, DependencyReason::kDependencyUnknown);
  if (f.tikv_serving_ready == 0) {
    d.tikv = Status(Readiness::kNotReady, DependencyReason::kNoTikvStoreUp);
  } else {
    d.tikv = Status(Readiness::kUnknown, DependencyReason::kDependencyUnknown);
  }
  return d;
}

// The DM masters of a v2 cluster with DM or DMWorker instances: ready while a majority of its DM
// instances is Ready (the masters' etcd has a leader to take a worker's registration); left
// unknown, without a reason, for any other cluster (ClusterDependencies::Applies).
DependencyStatus DmMasterFromV2(const v2::ClusterFacts* f) {
  if (f == nullptr || f->dm_instances + f->dm_worker_instances == 0) return {};
  if (f->dm_instances_ready * 2 > f->dm_instances) return Status(Readiness::kReady);
  return Status(Readiness::kNotReady, DependencyReason::kDmMasterNotReady);
}

// The TSO instances of a v2 cluster in PD microservices mode: ready while one of them is Ready (a
// TSO primary is elected among the Ready ones and serves every timestamp); left unknown, without
// a reason, for any other cluster (ClusterDependencies::Applies), and while a mode switch is
// under way (pd_ms_mode is false then: the switch's own planned wait says what happens).
DependencyStatus TsoFromV2(const v2::ClusterFacts* f) {
  if (f == nullptr || !f->pd_ms_mode) return {};
  if (f->tso_instances_ready > 0) return Status(Readiness::kReady);
  return Status(Readiness::kNotReady, DependencyReason::kTsoNotReady);
}

}  // namespace

DependencyStatus DmMasterOf(const DmClusterStatus& dc) {
  if (dc.MasterMajority()) return Status(Readiness::kReady);
  return Status(Readiness::kNotReady, DependencyReason::kDmMasterNotReady);
}

DependencyEvaluation EvaluateDependencies(const DependencyInputs& in) {
  DependencyEvaluation out;
  const bool may_use_api = in.readiness_source != ReadinessSource::kTidbCluster;
  const bool may_use_tc = in.readiness_source != ReadinessSource::kPdApi;
  if (may_use_api && in.pd != nullptr && in.pd->reachable) {
    out.deps = FromPdApi(*in.pd);
    out.source = DependencySource::kPdApi;
  } else if (may_use_tc && in.tc != nullptr) {
    out.deps = FromTidbCluster(*in.tc);
    out.source = DependencySource::kTidbCluster;
  } else if (in.v2 != nullptr && in.v2->present) {
    out.deps = FromV2(*in.v2, in.ready_pd_pods);
    out.source = DependencySource::kV2Instances;
  } else if (!in.pd_local) {
    out.deps.pd = Status(Readiness::kUnknown, DependencyReason::kPdElsewhere);
    out.deps.tikv = Status(Readiness::kUnknown, DependencyReason::kPdElsewhere);
    out.source = DependencySource::kPods;
  } else {
    out.deps = FromPods(in.ready_pd_pods);
    out.source = DependencySource::kPods;
  }
  out.deps.dm_master = DmMasterFromV2(in.v2);
  out.deps.tso = TsoFromV2(in.v2);
  // What cannot be told because PD refused from here (the user's RBAC) says so.
  if (in.pd != nullptr && !in.pd->not_reachable_from_here.empty()) {
    for (DependencyStatus* d : {&out.deps.pd, &out.deps.tikv}) {
      if (d->readiness == Readiness::kUnknown)
        d->reason = DependencyReason::kPdNotReachableFromHere;
    }
  }
  return out;
}

DependencyStatus ApplyTransition(const DependencyStatus& previous, DependencyStatus next,
                                 TransitionMemory* memory, Timestamp now, Timestamp cluster_since,
                                 bool inputs_synced) {
  const bool dated_by_cluster = cluster_since > 0 && cluster_since <= now;
  switch (next.readiness) {
    case Readiness::kReady:
      if (memory->last_known == Readiness::kReady && previous.ready_since != 0) {
        next.ready_since = previous.ready_since;
        // First seen ready before the input that dates it was read: the cluster's date wins.
        if (memory->dated_at_first_sight && dated_by_cluster &&
            cluster_since < previous.ready_since) {
          next.ready_since = cluster_since;
          memory->dated_at_first_sight = false;
        }
      } else if (memory->last_known == Readiness::kUnknown) {
        // First sight: the cluster knows since when; else podwait's first sight, for now.
        next.ready_since = dated_by_cluster ? cluster_since : now;
        memory->dated_at_first_sight = !dated_by_cluster;
      } else {
        next.ready_since = now;  // seen not ready, now ready: podwait watched it happen
        memory->dated_at_first_sight = false;
      }
      memory->last_known = Readiness::kReady;
      break;
    case Readiness::kNotReady:
      next.ready_since = previous.ready_since;
      if (inputs_synced || memory->last_known != Readiness::kUnknown) {
        memory->last_known = Readiness::kNotReady;
      }
      break;
    case Readiness::kUnknown:
      next.ready_since = previous.ready_since;
      break;
  }
  return next;
}

}  // namespace podwait
