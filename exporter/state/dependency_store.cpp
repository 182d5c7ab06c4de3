#include "exporter/state/dependency_store.h"

#include "exporter/classify/dependency_times.h"
#include "exporter/common/label_values.h"
#include "exporter/common/log.h"
#include "exporter/common/shard.h"

namespace podwait {
DependencyStore::DependencyStore(const Config& config, const Clock& clock)
    : config_(config), clock_(clock) {}

void DependencyStore::Reevaluate(const ClusterKey& key, Entry* e) {
  DependencyInputs in;
  in.pd = e->pd ? &*e->pd : nullptr;
  auto tc = tidbclusters_.find(key);
  in.tc = tc == tidbclusters_.end() ? nullptr : &tc->second;
  in.ready_pd_pods = e->ready_pd_pods;
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
  for (const auto& [key, info] : clusters) {
    auto [it, inserted] = clusters_.try_emplace(key);
    if (inserted || it->second.ready_pd_pods != info.ready_pd_pods) {
      it->second.ready_pd_pods = info.ready_pd_pods;
      Reevaluate(key, &it->second);
    }
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
    if (ShardOf(tc.key.namespace_, tc.key.name, config_.total_shards) != config_.shard) continue;
    tidbclusters_[tc.key] = tc;
  }
  for (auto& [key, entry] : clusters_) Reevaluate(key, &entry);
}

void DependencyStore::OnTidbCluster(const TidbClusterStatus& status) {
  if (ShardOf(status.key.namespace_, status.key.name, config_.total_shards) != config_.shard) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  tidbclusters_[status.key] = status;
  auto it = clusters_.find(status.key);
  if (it != clusters_.end()) Reevaluate(status.key, &it->second);
}

void DependencyStore::OnTidbClusterDeleted(const ClusterKey& cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  if (tidbclusters_.erase(cluster) == 0) return;
  auto it = clusters_.find(cluster);
  if (it != clusters_.end()) Reevaluate(cluster, &it->second);
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

void DependencyStore::OnInputsSynced() {
  std::lock_guard<std::mutex> lock(mu_);
  inputs_synced_ = true;
}

bool DependencyStore::EveryClusterProbed() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, entry] : clusters_) {
    if (!entry.pd) return false;
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
  return out;
}

std::optional<ClusterDependencies> DependencyStore::Get(const ClusterKey& cluster) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clusters_.find(cluster);
  if (it == clusters_.end()) return std::nullopt;
  return it->second.deps;
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
    auto v2 = v2_.find(key);
    if (v2 != v2_.end()) v.v2 = v2->second;
    auto tc = tidbclusters_.find(key);
    if (tc == tidbclusters_.end()) continue;
    v.has_tidbcluster = true;
    v.tc_pd_members_healthy = tc->second.PdHealthy();
    v.tc_pd_members_unhealthy =
        static_cast<int>(tc->second.pd_members.size()) - v.tc_pd_members_healthy;
    v.tc_pd_has_leader = !tc->second.pd_leader.empty();
    for (const auto& s : tc->second.tikv_stores)
      ++v.tc_tikv_stores[std::string(StoreStateLabel(s.state))];
    for (const char* c : {"pd", "tidb", "tikv", "tiflash"}) v.failover_members[c] = 0;
    for (const auto& f : tc->second.failure_members) ++v.failover_members[f.component];
  }
  for (const auto& [key, facts] : v2_) {  // held clusters without pods, as Snapshot
    if (!facts.hold.Any() || clusters_.count(key) != 0) continue;
    ClusterDependencyView& v = out[key];
    v.deps.hold = facts.hold;
    v.v2 = facts;
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
