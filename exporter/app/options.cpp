#include "exporter/app/options.h"

namespace podwait {

KubeEndpointFlags KubeEndpointFlagsFromConfig(const Config& config) {
  KubeEndpointFlags f;
  f.api_url = config.kube_api_url;
  f.kubeconfig = config.kubeconfig;
  f.context = config.kube_context;
  f.token_file = config.kube_token_file;
  f.ca_file = config.kube_ca_file;
  f.insecure_skip_tls_verify = config.kube_insecure_skip_tls_verify;
  f.server = config.kube_server;
  f.cluster = config.kube_cluster;
  f.user = config.kube_user;
  f.token = config.kube_token;
  f.client_certificate = config.kube_client_certificate;
  f.client_key = config.kube_client_key;
  return f;
}

PdProberOptions PdProberOptionsFromConfig(const Config& config) {
  PdProberOptions o;
  o.interval_ms = config.pd_interval;
  o.idle_interval_ms = config.pd_idle_interval;
  o.timeout_ms = config.pd_timeout;
  o.concurrency = config.pd_concurrency;
  return o;
}

PdTlsFlags PdTlsFlagsFromConfig(const Config& config) {
  return PdTlsFlags{config.pd_tls_dir, config.pd_ca_file, config.pd_cert_file, config.pd_key_file};
}

namespace {

// One of spec.pdAddresses as a base URL: the scheme and PD's client port added where the address
// has none, as tidb-operator's start script does (startscript/v2 addressesWithSchemeAndPort).
std::string PdAddressUrl(std::string address) {
  while (!address.empty() && address.back() == '/') address.pop_back();
  if (address.empty()) return address;
  const size_t scheme = address.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t close = address.rfind(']');  // an IPv6 literal's colons are not a port
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon < host || (close != std::string::npos && colon < close)) {
    address += ":2379";
  }
  if (scheme == std::string::npos) address = "http://" + address;
  return address;
}

}  // namespace

std::vector<PdTarget> PdTargetsFor(const std::vector<ClusterKey>& clusters, const Config& config,
                                   const std::map<ClusterKey, std::string>& v2_pd_urls,
                                   const std::map<ClusterKey, PdSource>& pd_sources) {
  const PdTlsFlags tls = PdTlsFlagsFromConfig(config);
  std::vector<PdTarget> targets;
  targets.reserve(clusters.size());
  for (const ClusterKey& c : clusters) {
    auto source = pd_sources.find(c);
    if (source != pd_sources.end()) {
      // A heterogeneous cluster's PD is the referenced cluster's; PD in another Kubernetes is
      // asked at the first of spec.pdAddresses, or not at all (docs/DESIGN.md §4, "Topologies").
      const PdSource& s = source->second;
      std::string url;
      if (s.kind == PdSourceKind::kReferenced) {
        url = PdBaseUrl(config.pd_url_template, s.referenced);
      } else if (s.kind == PdSourceKind::kExternal && !s.addresses.empty()) {
        url = PdAddressUrl(s.addresses.front());
      }
      if (!url.empty()) targets.push_back(PdTarget{c, std::move(url), PdTlsFor(tls, c)});
      continue;
    }
    std::string url;
    if (!config.pd_url_template_explicit) {
      auto it = v2_pd_urls.find(c);
      if (it != v2_pd_urls.end()) url = it->second;
      while (!url.empty() && url.back() == '/') url.pop_back();
    }
    if (url.empty()) url = PdBaseUrl(config.pd_url_template, c);
    targets.push_back(PdTarget{c, std::move(url), PdTlsFor(tls, c)});
  }
  return targets;
}

}  // namespace podwait
