#include "exporter/sources/reflector_options.h"

#include <algorithm>

namespace podwait {

ReflectorOptions ReflectorOptionsFromConfig(const Config& config, std::string resource,
                                            std::string path) {
  ReflectorOptions o;
  o.resource = std::move(resource);
  o.path = std::move(path);
  o.page_size = config.kube_page_size;
  o.watch_timeout = config.kube_watch_timeout;
  if (config.kube_request_timeout > 0) o.list_timeout = config.kube_request_timeout;
  return o;
}

std::vector<ReflectorOptions> ReflectorOptionsPerNamespace(const Config& config,
                                                           const std::string& resource,
                                                           std::string_view api_prefix) {
  size_t above = static_cast<size_t>(std::max(0, config.namespaces_cluster_wide_above));
  // One watch over all namespaces only where the account may list and watch everywhere.
  if (above > 0 && config.namespaces.size() > above && config.may_watch_cluster_wide &&
      !config.may_watch_cluster_wide(api_prefix, resource)) {
    above = 0;
  }
  return ReflectorOptionsPerNamespace(ReflectorOptionsFromConfig(config, resource, ""),
                                      config.namespaces, resource, api_prefix, above);
}

}  // namespace podwait
