#pragma once

// Feeds TidbCluster objects from a Reflector (list + watch of pingcap.com/v1alpha1 tidbclusters)
// to the cluster registry and the dependency store, through callbacks
// (sources/cluster_object_source.h).

#include <utility>

#include "exporter/sources/cluster_object_source.h"
#include "exporter/sources/tidbcluster.h"

namespace podwait {

using TidbClusterCallbacks = ClusterObjectCallbacks<TidbClusterStatus>;

class TidbClusterSource final : public ClusterObjectSource<TidbClusterStatus, &ParseTidbCluster> {
 public:
  explicit TidbClusterSource(TidbClusterCallbacks callbacks)
      : ClusterObjectSource("TidbCluster", std::move(callbacks)) {}
};

}  // namespace podwait
