#pragma once

// The exporter's flags (Config) mapped onto each module's own options. Modules below app/ take
// their options, never the whole Config, so each can be used and tested on its own.

#include <vector>

#include "exporter/config/config.h"
#include "exporter/kube/endpoint.h"
#include "exporter/model/types.h"
#include "exporter/pd/client.h"
#include "exporter/pd/prober.h"

namespace podwait {

KubeEndpointFlags KubeEndpointFlagsFromConfig(const Config& config);
PdProberOptions PdProberOptionsFromConfig(const Config& config);
PdTlsFlags PdTlsFlagsFromConfig(const Config& config);

// The PD address and TLS of each cluster: --pd.url-template with the cluster substituted, and
// the cluster's TLS files (PdTlsFor).
std::vector<PdTarget> PdTargetsFor(const std::vector<ClusterKey>& clusters, const Config& config);

}  // namespace podwait
