#include "exporter/state/dependency_store.h"

#include <set>

#include "exporter/classify/dependency_times.h"
#include "exporter/common/label_values.h"
#include "exporter/common/log.h"
#include "exporter/common/shard.h"

namespace podwait {
DependencyStore::DependencyStore(const Config& config, const Clock& clock)
    : config_(config), clock_(clock) {}

PdSource DependencyStore::SourceOfLocked(const ClusterKey& key) const {
  auto tc = tidbclusters_.find(key);
  return tc == tidbclusters_.end() ? PdSource{} : tc->second.pd_source;
}

const TidbClusterStatus* DependencyStore::DependencyTcLocked(const ClusterKey& key,
                                                             TidbClusterStatus* scratch) const {
  auto tc = tidbclusters_.find(key);
  if (tc == tidbclusters_.end()) return nullptr;
  const PdSource& source = tc->second.pd_source;
  if (source.kind == PdSourceKind::kOwn) return &tc->second;
  if (source.kind != PdSourceKind::kReferenced) return nullptr;  // its status has no PD members
  auto ref = tidbclusters_.find(source.referenced);
  if (ref == tidbclusters_.end()) return nullptr;
  *scratch = ref->second;
  // The heterogeneous cluster's own stores are stores of the same PD.
  for (const TidbStoreStatus& store : tc->second.tikv_stores) scratch->tikv_stores.push_back(store);
  return scratch;
}

void DependencyStore::Reevaluate(const ClusterKey& key, Entry* e) {
  DependencyInputs in;
  in.pd = e->pd ? &*e->pd : nullptr;
  TidbClusterStatus referenced;
  in.tc = DependencyTcLocked(key, &referenced);
  in.ready_pd_pods = e->ready_pd_pods;
  const PdSource source = SourceOfLocked(key);
  if (source.kind == PdSourceKind::kReferenced) {
    // The referenced cluster's Ready PD pods, when its pods are watched here; otherwise what is
    // not seen is no outage.
    auto ref_entry = clusters_.find(source.referenced);
    in.pd_local = ref_entry != clusters_.end();
    in.ready_pd_pods = in.pd_local ? ref_entry->second.ready_pd_pods : 0;
  } else if (!source.Local()) {
    in.pd_local = false;
    in.ready_pd_pods = 0;
  }
  auto v2 = v2_.find(key);
  in.v2 = v2 == v2_.end() ? nullptr : &v2->second;
  in.readiness_source = config_.readiness_source;
  DependencyEvaluation eval = EvaluateDependencies(in);
  const Timestamp now = clock_.Now();
  for (Dependency d : kAllDependencies) {
    const int i = static_cast<int>(d);
    DependencyStatus next = ApplyTransition(e->deps.Get(d), eval.deps.Get(d), &e->memory[i], now,
                                            ClusterReadySince(in, d), inputs_synced_);
    const DependencyStatus& prev = e->deps.Get(d);
    if (next.readiness != prev.readiness || next.reason != prev.reason) {
      LogDebug("dependency changed", {{"namespace", key.namespace_},
                                      {"cluster", key.name},
                                      {"dependency", std::string(DependencyName(d))},
                                      {"readiness", std::string(ReadinessName(next.readiness))},
                                      {"reason", std::string(DependencyReasonName(next.reason))},
                                      {"source", std::string(DependencySourceName(eval.source))}});
    }
    e->deps.Get(d) = std::move(next);
  }
  e->source = eval.source;
  e->deps.pd_source = source.Local() ? std::string() : PdSourceText(source);
  e->deps.hold = in.v2 != nullptr ? in.v2->hold : OperatorHold{};
}

void DependencyStore::SyncClusters(const std::map<ClusterKey, ClusterInfo>& clusters) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = clusters_.begin(); it != clusters_.end();) {
    if (clusters.count(it->first) == 0) {
      it = clusters_.erase(it);
    } else {
      ++it;
    }
  }
  std::set<ClusterKey> changed;
  for (const auto& [key, info] : clusters) {
    auto [it, inserted] = clusters_.try_emplace(key);
    if (inserted || it->second.ready_pd_pods != info.ready_pd_pods) {
      it->second.ready_pd_pods = info.ready_pd_pods;
      Reevaluate(key, &it->second);
      changed.insert(changed.end(), key);
    }
  }
  // A referenced cluster's Ready PD pods are its referrers' fallback too (one scan of the
  // TidbClusters, however many clusters changed).
  if (changed.empty()) return;
  for (const auto& [key, tc] : tidbclusters_) {
    if (tc.pd_source.kind != PdSourceKind::kReferenced ||
        changed.count(tc.pd_source.referenced) == 0) {
      continue;
    }
    auto it = clusters_.find(key);
    if (it != clusters_.end()) Reevaluate(key, &it->second);
  }
}

void DependencyStore::OnPdProbe(const ClusterKey& cluster, PdFacts facts) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clusters_.find(cluster);
  if (it == clusters_.end()) return;
  it->second.pd = std::move(facts);
  Reevaluate(cluster, &it->second);
}

void DependencyStore::ReplaceTidbClusters(const std::vector<TidbClusterStatus>& all) {
  std::lock_guard<std::mutex> lock(mu_);
  tidbclusters_.clear();
  for (const auto& tc : all) {
    if (Kept(tc)) tidbclusters_[tc.key] = tc;
  }
  for (auto& [key, entry] : clusters_) Reevaluate(key, &entry);
}

bool DependencyStore::Kept(const TidbClusterStatus& tc) const {
  // This shard's, and every cluster another may reference (a heterogeneous cluster of this shard
  // reads its referenced cluster's status, wherever that cluster is sharded).
  return ShardOf(tc.key.namespace_, tc.key.name, config_.total_shards) == config_.shard ||
         tc.pd_source.kind == PdSourceKind::kOwn;
}

void DependencyStore::ReevaluateReferrersLocked(const ClusterKey& cluster) {
  // A scan of the TidbClusters' PD sources (a byte each for most): cheap beside what changed.
  for (const auto& [key, tc] : tidbclusters_) {
    if (tc.pd_source.kind != PdSourceKind::kReferenced || tc.pd_source.referenced != cluster ||
        key == cluster) {
      continue;
    }
    auto it = clusters_.find(key);
    if (it != clusters_.end()) Reevaluate(key, &it->second);
  }
}

void DependencyStore::OnTidbCluster(const TidbClusterStatus& status) {
  if (!Kept(status)) return;
  std::lock_guard<std::mutex> lock(mu_);
  tidbclusters_[status.key] = status;
  auto it = clusters_.find(status.key);
  if (it != clusters_.end()) Reevaluate(status.key, &it->second);
  ReevaluateReferrersLocked(status.key);
}

void DependencyStore::OnTidbClusterDeleted(const ClusterKey& cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  if (tidbclusters_.erase(cluster) == 0) return;
  auto it = clusters_.find(cluster);
  if (it != clusters_.end()) Reevaluate(cluster, &it->second);
  ReevaluateReferrersLocked(cluster);
}

void DependencyStore::OnV2Cluster(const ClusterKey& cluster, const v2::ClusterFacts& facts) {
  if (ShardOf(cluster.namespace_, cluster.name, config_.total_shards) != config_.shard) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (facts.present) {
    v2_[cluster] = facts;
  } else if (v2_.erase(cluster) == 0) {
    return;
  }
  auto it = clusters_.find(cluster);
  if (it != clusters_.end()) Reevaluate(cluster, &it->second);
}

void DependencyStore::ApplyDmLocked(const DmClusterStatus& status) {
  DmEntry& e = dm_[status.key];
  e.dm_master = ApplyTransition(e.dm_master, DmMasterOf(status), &e.memory, clock_.Now(), 0,
                               inputs_synced_);
}

void DependencyStore::ReplaceDmClusters(const std::vector<DmClusterStatus>& all) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<ClusterKey, DmEntry> kept;
  for (const auto& dc : all) {
    if (ShardOf(dc.key.namespace_, dc.key.name, config_.total_shards) != config_.shard) continue;
    auto it = dm_.find(dc.key);
    if (it != dm_.end()) kept.insert(*it);
  }
  dm_ = std::move(kept);
  for (const auto& dc : all) {
    if (ShardOf(dc.key.namespace_, dc.key.name, config_.total_shards) == config_.shard) {
      ApplyDmLocked(dc);
    }
  }
}

void DependencyStore::OnDmCluster(const DmClusterStatus& status) {
  if (ShardOf(status.key.namespace_, status.key.name, config_.total_shards) != config_.shard) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ApplyDmLocked(status);
}

void DependencyStore::OnDmClusterDeleted(const ClusterKey& cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  dm_.erase(cluster);
}

void DependencyStore::OnInputsSynced() {
  std::lock_guard<std::mutex> lock(mu_);
  inputs_synced_ = true;
}

bool DependencyStore::EveryClusterProbed() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, entry] : clusters_) {
    // A cluster the prober has no address for (its PD elsewhere, unknown) is never probed.
    if (!entry.pd && SourceOfLocked(key).Probed()) return false;
  }
  return true;
}

std::map<ClusterKey, ClusterDependencies> DependencyStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<ClusterKey, ClusterDependencies> out;
  for (const auto& [key, entry] : clusters_) out.emplace_hint(out.end(), key, entry.deps);
  // A v2 cluster the operator holds (suspended, paused) may have no pods and so no entry: it is
  // known all the same, its dependencies unknown.
  for (const auto& [key, facts] : v2_) {
    if (facts.hold.Any() && clusters_.count(key) == 0) out[key].hold = facts.hold;
  }
  // A v1 DMCluster's dm-master, under its own key (its pods' instance label).
  for (const auto& [key, dm] : dm_) {
    auto [it, added] = out.try_emplace(key);
    it->second.dm_master = dm.dm_master;
    if (added) it->second.tidb_cluster = false;
  }
  return out;
}

std::optional<ClusterDependencies> DependencyStore::Get(const ClusterKey& cluster) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clusters_.find(cluster);
  auto dm = dm_.find(cluster);
  if (it == clusters_.end() && dm == dm_.end()) return std::nullopt;
  ClusterDependencies deps = it == clusters_.end() ? ClusterDependencies{} : it->second.deps;
  deps.tidb_cluster = it != clusters_.end();
  if (dm != dm_.end()) deps.dm_master = dm->second.dm_master;
  return deps;
}

std::map<ClusterKey, ClusterDependencyView> DependencyStore::Views() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<ClusterKey, ClusterDependencyView> out;
  for (const auto& [key, entry] : clusters_) {
    ClusterDependencyView& v = out[key];
    v.deps = entry.deps;
    v.source = entry.source;
    v.pd = entry.pd;
    v.ready_pd_pods = entry.ready_pd_pods;
    v.pd_source = SourceOfLocked(key);
    auto v2 = v2_.find(key);
    if (v2 != v2_.end()) v.v2 = v2->second;
    auto tc = tidbclusters_.find(key);
    if (tc == tidbclusters_.end()) continue;
    v.has_tidbcluster = true;
    // PD's members and the stores as the dependency evaluation reads them: a heterogeneous
    // cluster's are the referenced cluster's (its own status has no PD member).
    TidbClusterStatus referenced;
    if (const TidbClusterStatus* shown = DependencyTcLocked(key, &referenced)) {
      v.tc_pd_members_healthy = shown->PdHealthy();
      v.tc_pd_members_unhealthy =
          static_cast<int>(shown->pd_members.size()) - v.tc_pd_members_healthy;
      v.tc_pd_has_leader = !shown->pd_leader.empty();
      for (const auto& s : shown->tikv_stores)
        ++v.tc_tikv_stores[std::string(StoreStateLabel(s.state))];
    }
    for (const char* c : {"pd", "tidb", "tikv", "tiflash"}) v.failover_members[c] = 0;
    for (const auto& f : tc->second.failure_members) ++v.failover_members[f.component];
  }
  for (const auto& [key, facts] : v2_) {  // held clusters without pods, as Snapshot
    if (!facts.hold.Any() || clusters_.count(key) != 0) continue;
    ClusterDependencyView& v = out[key];
    v.deps.hold = facts.hold;
    v.v2 = facts;
  }
  for (const auto& [key, dm] : dm_) {  // v1 DMClusters: their dm-master
    auto [it, added] = out.try_emplace(key);
    it->second.deps.dm_master = dm.dm_master;
    if (added) it->second.deps.tidb_cluster = false;
  }
  return out;
}

std::map<ClusterKey, PdSource> DependencyStore::PdSources() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<ClusterKey, PdSource> out;
  for (const auto& [key, entry] : clusters_) {
    PdSource source = SourceOfLocked(key);
    if (source.kind != PdSourceKind::kOwn) out.emplace_hint(out.end(), key, std::move(source));
  }
  return out;
}

std::vector<FailureMember> DependencyStore::FailureMembers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<FailureMember> out;
  for (const auto& [key, tc] : tidbclusters_) {
    if (clusters_.count(key) == 0) continue;
    for (const auto& f : tc.failure_members) {
      out.push_back(FailureMember{key.namespace_, key.name, f.component, f.pod_name, f.created_at});
    }
  }
  return out;
}

}  // namespace podwait
