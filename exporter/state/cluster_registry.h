#pragma once

// The TiDB clusters this exporter instance is responsible for: discovered from the watched pods
// (namespace + cluster label) and from TidbCluster objects, filtered to this shard. A cluster
// that no longer has a pod nor a TidbCluster is dropped, and the listener is told, so its series
// go with it.
//
// Sharding: a cluster belongs to shard ShardOf(namespace, name, total_shards) (exporter/common/
// shard.h: 64-bit FNV-1a of "namespace/name", mod --total-shards), stable across processes and
// versions, so every replica agrees; pods must be filtered with the same function.

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/model/types.h"

namespace podwait {

struct ClusterInfo {
  bool from_pods = false;         // at least one watched pod carries the cluster label
  bool from_tidbcluster = false;  // a TidbCluster object of that name exists
  int ready_pd_pods = 0;          // Ready PD pods (the fallback when the PD API is unreachable)
  auto operator<=>(const ClusterInfo&) const = default;
};

// Thread-safe.
class ClusterRegistry {
 public:
  using Listener = std::function<void(const std::map<ClusterKey, ClusterInfo>&)>;

  explicit ClusterRegistry(const Config& config);
  ClusterRegistry(const ClusterRegistry&) = delete;
  ClusterRegistry& operator=(const ClusterRegistry&) = delete;

  // Called with the full, new set after every change (outside the registry's lock, one call at
  // a time, in order). Typically DependencyStore::SyncClusters. REQUIRES: set before updates.
  void SetListener(Listener listener);

  // Replaces the pod-derived clusters: every cluster that has a watched pod, and the number of
  // Ready PD pods of each (clusters missing from ready_pd_pods have 0).
  void SetPodClusters(const std::vector<ClusterKey>& clusters,
                      const std::map<ClusterKey, int>& ready_pd_pods);
  // The same from PodStore::Clusters(): every key a cluster with pods, the value its Ready PD pods.
  void SetPodClusters(const std::map<ClusterKey, int>& ready_pd_pods);

  // TidbCluster objects: the full set after a (re)list, or one added/deleted.
  void SetTidbClusters(const std::vector<ClusterKey>& clusters);
  void UpsertTidbCluster(const ClusterKey& cluster);
  void RemoveTidbCluster(const ClusterKey& cluster);

  // Whether this shard owns the cluster.
  bool Owns(const ClusterKey& cluster) const;
  // The clusters of this shard, sorted.
  std::vector<ClusterKey> Clusters() const;
  std::map<ClusterKey, ClusterInfo> Snapshot() const;

 private:
  // Rebuilds clusters_ from the inputs and notifies when it changed. Takes mu_ itself.
  void Publish();

  const int shard_;
  const int total_shards_;
  std::mutex notify_mu_;  // orders listener calls; taken before mu_
  mutable std::mutex mu_;
  std::map<ClusterKey, int> pod_clusters_;  // cluster -> ready PD pods
  std::set<ClusterKey> tidbclusters_;
  std::map<ClusterKey, ClusterInfo> clusters_;
  Listener listener_;
};

}  // namespace podwait
