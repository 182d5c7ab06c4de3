#pragma once

// The exporter's flags (Config) mapped onto each module's own options. Modules below app/ take
// their options, never the whole Config, so each can be used and tested on its own.

#include <map>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/kube/endpoint.h"
#include "exporter/model/tidbcluster_status.h"
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
// TLS files (PdTlsFor) apply to every choice. A v1 cluster whose PD is not its own (pd_sources,
// its TidbCluster's spec): the referenced cluster's address by the template, the first of
// spec.pdAddresses, or no target at all (PD elsewhere and nothing to ask, or unknown).
std::vector<PdTarget> PdTargetsFor(const std::vector<ClusterKey>& clusters, const Config& config,
                                   const std::map<ClusterKey, std::string>& v2_pd_urls = {},
                                   const std::map<ClusterKey, PdSource>& pd_sources = {});

}  // namespace podwait
