#pragma once

// The v1 DMClusters the exporter knows (state/cluster_object_store.h), read by the dependency
// store, whose dm-master state of a DMCluster its dm-workers wait for.

#include "exporter/model/dmcluster_status.h"
#include "exporter/state/cluster_object_store.h"

namespace podwait {

using DmClusterListener = ClusterObjectListener<DmClusterStatus>;
using DmClusterStore = ClusterObjectStore<DmClusterStatus>;

}  // namespace podwait
