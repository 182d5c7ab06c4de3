#pragma once

// The v1 DMClusters the exporter knows, by namespace/name: as TidbClusterStore for TidbClusters
// (a (re)list of one namespace replaces that namespace's only; the listener sees every change).
// Read by the dependency store, whose dm-master state of a DMCluster its dm-workers wait for.

#include <functional>
#include <map>
#include <mutex>
#include <string_view>
#include <vector>

#include "exporter/model/dmcluster_status.h"

namespace podwait {

struct DmClusterListener {
  std::function<void(const std::vector<DmClusterStatus>&)> replaced;  // the complete set
  std::function<void(const DmClusterStatus&)> upserted;
  std::function<void(const ClusterKey&)> removed;
};

// Thread-safe. Listener calls are made in order, under the store's lock.
class DmClusterStore {
 public:
  DmClusterStore() = default;
  DmClusterStore(const DmClusterStore&) = delete;
  DmClusterStore& operator=(const DmClusterStore&) = delete;

  // REQUIRES: set before the first update.
  void SetListener(DmClusterListener listener);
  void Replace(std::string_view namespace_scope, const std::vector<DmClusterStatus>& listed);
  void Upsert(const DmClusterStatus& status);
  void Remove(const ClusterKey& key);
  size_t Size() const;

 private:
  mutable std::mutex mu_;
  std::map<ClusterKey, DmClusterStatus> clusters_;
  DmClusterListener listener_;
};

}  // namespace podwait
