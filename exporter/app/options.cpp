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

std::vector<PdTarget> PdTargetsFor(const std::vector<ClusterKey>& clusters, const Config& config,
                                   const std::map<ClusterKey, std::string>& v2_pd_urls) {
  const PdTlsFlags tls = PdTlsFlagsFromConfig(config);
  std::vector<PdTarget> targets;
  targets.reserve(clusters.size());
  for (const ClusterKey& c : clusters) {
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
