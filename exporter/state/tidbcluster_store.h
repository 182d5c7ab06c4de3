#pragma once

// The TidbClusters the exporter knows (state/cluster_object_store.h), read by the cluster
// registry and the dependency store through its listener.

#include "exporter/model/tidbcluster_status.h"
#include "exporter/state/cluster_object_store.h"

namespace podwait {

using TidbClusterListener = ClusterObjectListener<TidbClusterStatus>;
using TidbClusterStore = ClusterObjectStore<TidbClusterStatus>;

}  // namespace podwait
