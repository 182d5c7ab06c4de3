#pragma once

// The exporter's flags (Config) mapped onto the reflectors' options: the Kubernetes client in
// exporter/kube/ takes its own options and never the whole Config.

#include <string>
#include <string_view>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"

namespace podwait {

// Options for a resource from the exporter's Config (page size, watch timeout).
ReflectorOptions ReflectorOptionsFromConfig(const Config& config, std::string resource,
                                            std::string path);
// One ReflectorOptions per watched namespace (--namespaces), or one over all namespaces (see
// the kube/reflector.h overload), also when there are more watched namespaces than
// --namespaces.cluster-wide-above (then filtered to them) and Config::may_watch_cluster_wide
// allows it for this resource.
std::vector<ReflectorOptions> ReflectorOptionsPerNamespace(const Config& config,
                                                           const std::string& resource,
                                                           std::string_view api_prefix);

}  // namespace podwait
