#pragma once

// A pure parser for v1 DMCluster (pingcap.com/v1alpha1) documents into the DmClusterStatus of
// exporter/model/dmcluster_status.h, and the reflector handler of the dmclusters input.

#include <rapidjson/fwd.h>

#include <string_view>
#include <utility>

#include "exporter/common/result.h"
#include "exporter/model/dmcluster_status.h"
#include "exporter/sources/cluster_object_source.h"

namespace podwait {

using DmClusterParse = Result<DmClusterStatus>;

DmClusterParse ParseDmCluster(std::string_view json);
DmClusterParse ParseDmCluster(const rapidjson::Value& object);

using DmClusterCallbacks = ClusterObjectCallbacks<DmClusterStatus>;

// The dmclusters input's handler (a 404, no DMCluster CRD, disables it).
class DmClusterSource final : public ClusterObjectSource<DmClusterStatus, &ParseDmCluster> {
 public:
  explicit DmClusterSource(DmClusterCallbacks callbacks)
      : ClusterObjectSource("DMCluster", std::move(callbacks)) {}
};

}  // namespace podwait
