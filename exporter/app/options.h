#pragma once

// The exporter's flags (Config) mapped onto each module's own options. Modules below app/ take
// their options, never the whole Config, so each can be used and tested on its own.

#include <map>
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

// The PD address and TLS of each cluster (docs/DESIGN.md §3): an explicitly given
// --pd.url-template wins; else a tidb-operator v2 Cluster's status.pd (v2_pd_urls, http or
// https, as written); else the template's default, with the cluster substituted. The cluster's
// TLS files (PdTlsFor) apply to every choice.
std::vector<PdTarget> PdTargetsFor(const std::vector<ClusterKey>& clusters, const Config& config,
                                   const std::map<ClusterKey, std::string>& v2_pd_urls = {});

}  // namespace podwait
