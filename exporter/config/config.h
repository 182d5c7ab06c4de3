#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/log.h"
#include "exporter/model/readiness_source.h"
#include "exporter/model/types.h"

namespace podwait {

// How the PD API is reached (--pd.via): `direct` at PD's address; `apiserver` through the
// Kubernetes API server's service proxy, with the user's credentials, wherever PD's address is a
// cluster Service; `auto` through the API server when it comes from a kubeconfig or
// --kube.api-url (a laptop: Service names do not resolve there), directly in the cluster.
enum class PdVia : uint8_t { kAuto, kDirect, kApiServer };
inline constexpr std::string_view kPdViaNames[] = {"auto", "direct", "apiserver"};
constexpr std::string_view PdViaName(PdVia v) { return kPdViaNames[static_cast<size_t>(v)]; }

// Every setting of podwait-exporter, filled from flags (see ParseFlags). Plain data; copied freely.
struct Config {
  // Web
  // --web.listen-address, repeatable: every address is served.
  std::vector<std::string> listen_addresses = {":9877"};
  bool disable_exporter_metrics = false;  // no process_* and podwait's own health metrics
  int web_max_requests = 40;              // requests in flight at once; 0: no limit
  std::string telemetry_path = "/metrics";
  std::string web_config_file;  // exporter-toolkit web config: TLS, basic auth, headers
  // As Prometheus: the URL users reach the exporter at (for links it hands out, such as the
  // runbook's), and the path prefix every endpoint is served under ("" = "/"; defaults to the
  // external URL's path). Both without a trailing slash after parsing.
  std::string external_url;
  std::string route_prefix;
  // Logging
  LogLevel log_level = LogLevel::kInfo;
  LogFormat log_format = LogFormat::kLogfmt;

  // Kubernetes API. Empty api_url: the kubeconfig or the in-cluster configuration, in the order
  // of ResolveKubeEndpoint (exporter/kube/endpoint.h).
  std::string kube_api_url;
  std::string kubeconfig;    // a kubeconfig file, as kubectl's --kubeconfig
  std::string kube_context;  // its context; empty: current-context
  std::string
      kube_token_file;  // default in-cluster: /var/run/secrets/kubernetes.io/serviceaccount/token
  std::string kube_ca_file;
  bool kube_insecure_skip_tls_verify = false;
  // kubectl's --server, --cluster, --user, --token, --client-certificate and --client-key, which
  // `explain` and `kubectl podwait` take (the exporter has no flags for them): laid over the
  // kubeconfig as kubectl lays them (exporter/kube/endpoint.h).
  std::string kube_server;
  std::string kube_cluster;
  std::string kube_user;
  std::string kube_token;
  std::string kube_client_certificate;
  std::string kube_client_key;
  std::vector<std::string> namespaces;  // empty: all namespaces
  // With more namespaces than this in `namespaces`, each resource the account may list and
  // watch in every namespace (may_watch_cluster_wide) is watched once over all namespaces and
  // filtered; 0: one watch per namespace always.
  int namespaces_cluster_wide_above = 8;
  // Not a flag: set by the exporter before it builds its reflectors (a SelfSubjectAccessReview
  // per resource, kube/discovery.h): whether the account may list and watch `resource` under
  // `api_prefix` ("/api/v1", "pods") in every namespace. Empty: taken as allowed.
  std::function<bool(std::string_view api_prefix, const std::string& resource)>
      may_watch_cluster_wide;
  std::string selector = "app.kubernetes.io/managed-by=tidb-operator";
  // A second pod selector, disjoint from `selector`: tidb-operator v2 pods without the legacy
  // app.kubernetes.io/* labels. Empty: not watched.
  std::string selector_v2 = "pingcap.com/managed-by=tidb-operator,!app.kubernetes.io/managed-by";
  std::string cluster_label = "app.kubernetes.io/instance";
  std::string component_label = "app.kubernetes.io/component";
  // tidb-operator v2's own pod labels, read when the labels above are absent (v2 writes the
  // app.kubernetes.io/* ones only as deprecated copies). Empty: no fallback.
  std::string v2_cluster_label = "pingcap.com/cluster";
  std::string v2_component_label = "pingcap.com/component";
  std::string v2_instance_label = "pingcap.com/instance";
  int64_t kube_page_size = 500;
  // The client-side request budget shared by every request to the API server: a token bucket of
  // kube_api_burst requests, refilled at kube_api_qps a second (client-go's rest.Config QPS and
  // Burst; its defaults, 5 and 10, are for controllers that list little).
  int kube_api_qps = 20;
  int kube_api_burst = 100;
  Timestamp kube_watch_timeout = 5 * kMinute;  // server-side timeoutSeconds of a watch
  // kubectl's --request-timeout (explain and `kubectl podwait`): the client-side deadline of each
  // list page and of the first request; 0: a minute per list page.
  Timestamp kube_request_timeout = 0;
  // Watch pingcap.com/v1alpha1 TidbClusters and DMClusters (a 404 disables either).
  bool tidbcluster_enabled = true;
  bool v2_enabled = true;  // watch tidb-operator v2's core.pingcap.com/v1alpha1 (404 disables each)
  bool ca_status_enabled = true;  // read kube-system/cluster-autoscaler-status
  // Watch PersistentVolumeClaims and PersistentVolumes (a volume pinned to one node).
  bool volumes_enabled = true;
  std::string ca_status_namespace = "kube-system";
  std::string ca_status_name = "cluster-autoscaler-status";

  // PD
  std::string pd_url_template = "http://{cluster}-pd.{namespace}:2379";
  // --pd.url-template was given: it wins over a v2 Cluster's status.pd.
  bool pd_url_template_explicit = false;
  Timestamp pd_interval = 15 * kSecond;
  // The slow cadence: a healthy cluster none of whose pods waits gets one /health this often.
  Timestamp pd_idle_interval = kMinute;
  PdVia pd_via = PdVia::kAuto;
  Timestamp pd_timeout = 3 * kSecond;
  int pd_concurrency = 32;
  std::string pd_ca_file;
  std::string pd_cert_file;
  std::string pd_key_file;
  // Per-cluster TLS: <dir>/<namespace>/<cluster>/{ca.crt,tls.crt,tls.key}
  std::string pd_tls_dir;
  ReadinessSource readiness_source = ReadinessSource::kBoth;

  // Classification
  std::string autoscaler = "auto";  // auto | cluster-autoscaler | karpenter | none
  Timestamp autoscaler_decision_grace = kDefaultDecisionGrace;
  Timestamp autoscaler_provision_timeout = kDefaultProvisionTimeout;
  Timestamp autoscaler_silence_grace = kDefaultSilenceGrace;
  Timestamp dependency_ready_grace = kDefaultDependencyReadyGrace;
  Timestamp pd_bootstrap_grace = kDefaultPdBootstrapGrace;
  // Planned waits of tidb-operator v2 (exporter/classify/README.md, "Planned waits").
  Timestamp mode_switch_grace = kDefaultModeSwitchGrace;
  Timestamp leader_eviction_grace = kDefaultLeaderEvictionGrace;
  Timestamp store_offline_grace = kDefaultStoreOfflineGrace;
  std::vector<std::string> dependency_init_containers = {
      std::string(kDefaultDependencyInitContainer)};
  // component -> dependencies it waits for
  DependencyMap dependency_map = DefaultDependencyMap();
  Timestamp failover_period = 5 * kMinute;

  // Metrics
  bool metrics_pod_series = true;

  // Events: one Event on a pod when its class changes (docs/DESIGN.md §8, "Events"). Off: podwait
  // writes nothing to the cluster.
  bool events_write = false;

  // Sharding by TiDB cluster
  int shard = 0;
  int total_shards = 1;
};

}  // namespace podwait
