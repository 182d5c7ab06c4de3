#include "exporter/state/cluster_registry.h"

#include "exporter/common/shard.h"

namespace podwait {

ClusterRegistry::ClusterRegistry(const Config& config)
    : shard_(config.shard), total_shards_(config.total_shards) {}

void ClusterRegistry::SetListener(Listener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

bool ClusterRegistry::Owns(const ClusterKey& cluster) const {
  return ShardOf(cluster.namespace_, cluster.name, total_shards_) == shard_;
}

void ClusterRegistry::SetPodClusters(const std::vector<ClusterKey>& clusters,
                                     const std::map<ClusterKey, int>& ready_pd_pods) {
  std::map<ClusterKey, int> next;
  for (const auto& c : clusters) {
    if (c.name.empty() || !Owns(c)) continue;
    auto it = ready_pd_pods.find(c);
    next[c] = it == ready_pd_pods.end() ? 0 : it->second;
  }
  for (const auto& [c, n] : ready_pd_pods) {
    if (!c.name.empty() && Owns(c)) next[c] = n;
  }
  std::lock_guard<std::mutex> notify(notify_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    pod_clusters_ = std::move(next);
  }
  Publish();
}

void ClusterRegistry::SetPodClusters(const std::map<ClusterKey, int>& ready_pd_pods) {
  std::vector<ClusterKey> clusters;
  clusters.reserve(ready_pd_pods.size());
  for (const auto& [key, ready] : ready_pd_pods) clusters.push_back(key);
  SetPodClusters(clusters, ready_pd_pods);
}

void ClusterRegistry::SetTidbClusters(const std::vector<ClusterKey>& clusters) {
  std::set<ClusterKey> next;
  for (const auto& c : clusters) {
    if (!c.name.empty() && Owns(c)) next.insert(c);
  }
  std::lock_guard<std::mutex> notify(notify_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    tidbclusters_ = std::move(next);
  }
  Publish();
}

void ClusterRegistry::UpsertTidbCluster(const ClusterKey& cluster) {
  if (cluster.name.empty() || !Owns(cluster)) return;
  std::lock_guard<std::mutex> notify(notify_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!tidbclusters_.insert(cluster).second) return;
  }
  Publish();
}

void ClusterRegistry::RemoveTidbCluster(const ClusterKey& cluster) {
  std::lock_guard<std::mutex> notify(notify_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (tidbclusters_.erase(cluster) == 0) return;
  }
  Publish();
}

void ClusterRegistry::Publish() {
  std::map<ClusterKey, ClusterInfo> next;
  Listener listener;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [c, ready] : pod_clusters_) {
      ClusterInfo& info = next[c];
      info.from_pods = true;
      info.ready_pd_pods = ready;
    }
    for (const auto& c : tidbclusters_) next[c].from_tidbcluster = true;
    if (next == clusters_) return;
    clusters_ = next;
    listener = listener_;
  }
  if (listener) listener(next);
}

std::vector<ClusterKey> ClusterRegistry::Clusters() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ClusterKey> out;
  out.reserve(clusters_.size());
  for (const auto& [c, info] : clusters_) out.push_back(c);
  return out;
}

std::map<ClusterKey, ClusterInfo> ClusterRegistry::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clusters_;
}

}  // namespace podwait
