#pragma once

// A pure parser for TidbCluster (pingcap.com/v1alpha1) documents into the TidbClusterStatus of
// exporter/model/tidbcluster_status.h.

#include <rapidjson/fwd.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/model/tidbcluster_status.h"

namespace podwait {

using TidbClusterParse = Result<TidbClusterStatus>;

// Parses one TidbCluster document (JSON text).
TidbClusterParse ParseTidbCluster(std::string_view json);
// Parses one TidbCluster object already parsed by RapidJSON (e.g. a watch event's "object").
TidbClusterParse ParseTidbCluster(const rapidjson::Value& object);

}  // namespace podwait
