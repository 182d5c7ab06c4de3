#pragma once

// The TidbClusters the exporter knows, by namespace/name. Written by the TidbCluster sources (one
// reflector over all namespaces, or one per watched namespace), read by the cluster registry and
// the dependency store through a listener, which always sees complete sets: a (re)list of one
// namespace replaces that namespace's TidbClusters only, and the listener gets every
// namespace's.

#include <functional>
#include <map>
#include <mutex>
#include <string_view>
#include <vector>

#include "exporter/model/tidbcluster_status.h"

namespace podwait {

struct TidbClusterListener {
  // The complete set after a (re)list.
  std::function<void(const std::vector<TidbClusterStatus>&)> replaced;
  // One object added or modified.
  std::function<void(const TidbClusterStatus&)> upserted;
  // One object deleted.
  std::function<void(const ClusterKey&)> removed;
};

// Thread-safe. Listener calls are made in order, one at a time, under the store's lock (keep
// them short; they must not call back into the store).
class TidbClusterStore {
 public:
  TidbClusterStore() = default;
  TidbClusterStore(const TidbClusterStore&) = delete;
  TidbClusterStore& operator=(const TidbClusterStore&) = delete;

  // REQUIRES: set before the first update.
  void SetListener(TidbClusterListener listener);

  // Makes the TidbClusters of one namespace (namespace_scope; "" means every namespace) exactly
  // `listed`; those of other namespaces are kept.
  void Replace(std::string_view namespace_scope, const std::vector<TidbClusterStatus>& listed);
  void Upsert(const TidbClusterStatus& status);
  void Remove(const ClusterKey& key);

  std::vector<TidbClusterStatus> Snapshot() const;
  size_t Size() const;

 private:
  mutable std::mutex mu_;
  std::map<ClusterKey, TidbClusterStatus> clusters_;
  TidbClusterListener listener_;
};

}  // namespace podwait
