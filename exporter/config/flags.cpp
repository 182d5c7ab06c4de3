#include "exporter/config/flags.h"

#include <charconv>
#include <functional>
#include <optional>
#include <sstream>

#include "exporter/common/flag_table.h"
#include "exporter/common/label_values.h"
#include "exporter/common/time_format.h"
#include "exporter/model/autoscalers.h"

namespace podwait {
namespace {

using Flag = FlagSpec<Config>;
using Kind = FlagKind;

std::string ShowDependencyMap(const Config& c) {
  std::string out;
  for (const auto& [component, deps] : c.dependency_map) {
    out += (out.empty() ? "" : ",") + component + "=";
    for (size_t i = 0; i < deps.size(); ++i) {
      out += (i ? "+" : "") + std::string(DependencyName(deps[i]));
    }
  }
  return out;
}

// --autoscaler's help: its values come from the autoscaler table.
const std::string& AutoscalerHelp() {
  static const std::string help =
      "Autoscaler in use: auto (detected), " + AutoscalerNames() + " or none.";
  return help;
}

const std::vector<Flag>& Flags() {
  // --help lists the rows under the heading above them.
  static const std::vector<Flag> flags = Grouped<Config>({
      Heading<Config>("Web"),
      RepeatedFlag("web.listen-address",
                   "Address on which to expose metrics and the web interface; repeat to listen on "
                   "several. \":port\" listens on every IPv4 and IPv6 address.",
                   &Config::listen_addresses),
      BoolFlag("web.disable-exporter-metrics",
               "Leave out the exporter's metrics about itself (process_* and podwait's watch, "
               "probe, scrape and web config health) from the telemetry path.",
               &Config::disable_exporter_metrics),
      IntFlag<Config, int>(
          "web.max-requests",
          "Maximum number of requests answered at once (health probes not counted); "
          "more get 503. 0 means no limit.",
          &Config::web_max_requests, 0),
      StringFlag("web.telemetry-path", "Path under which to expose metrics.",
                 &Config::telemetry_path),
      StringFlag("web.external-url",
                 "The URL under which the exporter is reached from outside (for example through "
                 "an ingress or proxy); used for the links it hands out, such as the runbook's. "
                 "Its path is the default of --web.route-prefix.",
                 &Config::external_url),
      StringFlag("web.route-prefix",
                 "Prefix for the internal routes of web endpoints. Defaults to the path of "
                 "--web.external-url.",
                 &Config::route_prefix),
      StringFlag("web.config.file",
                 "Path to a web configuration file that can enable TLS or authentication "
                 "(exporter-toolkit format).",
                 &Config::web_config_file),
      Heading<Config>("Logging"),
      {"log.level", Kind::kString,
       "Only log messages with the given severity or above: debug, info, warn, error.",
       [](Config& c, const std::string& v) {
         auto l = ParseLogLevel(v);
         if (!l) return std::string("expects one of debug, info, warn, error, got \"") + v + "\"";
         c.log_level = *l;
         return std::string();
       },
       [](const Config&) { return std::string("info"); }},
      {"log.format", Kind::kString, "Output format of log messages: logfmt or json.",
       [](Config& c, const std::string& v) {
         auto f = ParseLogFormat(v);
         if (!f) return std::string("expects logfmt or json, got \"") + v + "\"";
         c.log_format = *f;
         return std::string();
       },
       [](const Config&) { return std::string("logfmt"); }},
      Heading<Config>("Kubernetes API"),
      StringFlag("kube.api-url",
                 "Kubernetes API server URL (http or https); wins over every kubeconfig. Empty: "
                 "--kubeconfig, else the in-cluster configuration, else $KUBECONFIG, else "
                 "~/.kube/config.",
                 &Config::kube_api_url),
      StringFlag("kubeconfig",
                 "Path to a kubeconfig file, to run outside the cluster the way kubectl does. "
                 "Empty: in-cluster configuration, or the first existing file of $KUBECONFIG "
                 "(lists are not merged), or ~/.kube/config.",
                 &Config::kubeconfig),
      StringFlag("kube.context", "The kubeconfig context to use. Empty: its current-context.",
                 &Config::kube_context),
      StringFlag("kube.token-file",
                 "Bearer token file (re-read every minute and after a 401); replaces a "
                 "kubeconfig user's credentials.",
                 &Config::kube_token_file),
      StringFlag("kube.ca-file", "CA bundle to verify the API server; replaces a kubeconfig's CA.",
                 &Config::kube_ca_file),
      BoolFlag("kube.insecure-skip-tls-verify", "Do not verify the API server's certificate.",
               &Config::kube_insecure_skip_tls_verify),
      IntFlag<Config, int64_t>("kube.page-size", "Objects per page of an initial list.",
                               &Config::kube_page_size, 1),
      IntFlag<Config, int>("kube.api-qps",
                           "Requests a second to the API server, on average (every list page, "
                           "watch and event write counts), after the burst.",
                           &Config::kube_api_qps, 1),
      IntFlag<Config, int>("kube.api-burst",
                           "Requests to the API server at once before --kube.api-qps applies.",
                           &Config::kube_api_burst, 1),
      DurationFlag("kube.watch-timeout", "Server-side timeout of one watch request.",
                   &Config::kube_watch_timeout),
      Heading<Config>("What to watch"),
      ListFlag("namespaces", "Comma-separated namespaces to watch; empty watches all.",
               &Config::namespaces),
      IntFlag<Config, int>(
          "namespaces.cluster-wide-above",
          "With more --namespaces than this, watch each resource once over all namespaces and "
          "keep the watched ones when the account may list and watch it in every namespace "
          "(asked with a SelfSubjectAccessReview at start; a ClusterRole allows it); otherwise, "
          "and with 0, one watch per namespace and resource, which Roles in those namespaces "
          "allow (all of them on one event loop and one HTTP/2 connection).",
          &Config::namespaces_cluster_wide_above, 8),
      StringFlag("selector", "Label selector for the pods to watch.", &Config::selector),
      StringFlag("selector.v2",
                 "Second label selector for pods, disjoint from --selector: tidb-operator v2 "
                 "pods without the legacy app.kubernetes.io labels. Empty: not watched.",
                 &Config::selector_v2),
      StringFlag("label.cluster", "Pod label that names the TiDB cluster.", &Config::cluster_label),
      StringFlag("label.component", "Pod label that names the component (pd, tikv, tidb, ...).",
                 &Config::component_label),
      StringFlag("label.v2-cluster",
                 "Pod label that names the TiDB cluster when --label.cluster is absent "
                 "(tidb-operator v2); empty: none.",
                 &Config::v2_cluster_label),
      StringFlag("label.v2-component",
                 "Pod label that names the component when --label.component is absent "
                 "(tidb-operator v2); empty: none.",
                 &Config::v2_component_label),
      StringFlag("label.v2-instance",
                 "Pod label that names the pod's tidb-operator v2 instance (PD, TiKV, ... CR).",
                 &Config::v2_instance_label),
      BoolFlag("tidbcluster.enabled",
               "Watch pingcap.com/v1alpha1 TidbClusters and DMClusters (tidb-operator v1).",
               &Config::tidbcluster_enabled),
      BoolFlag("v2.enabled",
               "Watch tidb-operator v2's core.pingcap.com/v1alpha1 Clusters, groups and "
               "instances (a resource the API server does not serve is skipped).",
               &Config::v2_enabled),
      BoolFlag("volumes.enabled",
               "Watch PersistentVolumeClaims (watched namespaces) and PersistentVolumes (cluster "
               "scope), to tell a volume pinned to one node (a local PersistentVolume) from one a "
               "new node could reach. Without them, or without RBAC for them, that is unknown.",
               &Config::volumes_enabled),
      BoolFlag("autoscaler.status-configmap.enabled",
               "Read the cluster-autoscaler status ConfigMap.", &Config::ca_status_enabled),
      StringFlag("autoscaler.status-configmap.namespace",
                 "Namespace of the cluster-autoscaler status ConfigMap.",
                 &Config::ca_status_namespace),
      StringFlag("autoscaler.status-configmap.name",
                 "Name of the cluster-autoscaler status ConfigMap.", &Config::ca_status_name),
      Heading<Config>("PD"),
      {"pd.url-template", Kind::kString,
       "PD base URL per TiDB cluster; {cluster} and {namespace} are substituted. Given "
       "explicitly, it wins over a tidb-operator v2 Cluster's status.pd.",
       [](Config& c, const std::string& v) {
         c.pd_url_template = v;
         c.pd_url_template_explicit = true;
         return std::string();
       },
       [](const Config& c) { return c.pd_url_template; }},
      DurationFlag("pd.interval",
                   "How often a TiDB cluster's PD is probed in full while a pod of the cluster "
                   "waits or PD's last answer was not healthy.",
                   &Config::pd_interval),
      DurationFlag(
          "pd.idle-interval",
          "How often a healthy cluster none of whose pods waits gets its one cheap PD "
          "request (/health); a pod that starts waiting, a TidbCluster or v2 status "
          "change or an unhealthy answer brings a full probe at once. At most --pd.interval "
          "turns the slow cadence off: every cluster is probed in full every "
          "--pd.interval.",
          &Config::pd_idle_interval),
      {"pd.via", Kind::kString,
       "How PD is reached: direct, apiserver (the Kubernetes API server's service proxy, with "
       "your credentials: needs get on services/proxy) or auto (through the API server when it "
       "comes from a kubeconfig or --kube.api-url and PD's address is a cluster Service; "
       "directly in the cluster).",
       [](Config& c, const std::string& v) {
         for (size_t i = 0; i < std::size(kPdViaNames); ++i) {
           if (v == kPdViaNames[i]) {
             c.pd_via = static_cast<PdVia>(i);
             return std::string();
           }
         }
         return std::string("expects auto, direct or apiserver, got \"") + v + "\"";
       },
       [](const Config& c) { return std::string(PdViaName(c.pd_via)); }},
      DurationFlag("pd.timeout", "Timeout of each PD API request.", &Config::pd_timeout),
      IntFlag<Config, int>("pd.concurrency", "How many clusters are probed at once.",
                           &Config::pd_concurrency, 1),
      StringFlag("pd.tls.ca-file", "CA to verify PD (all clusters).", &Config::pd_ca_file),
      StringFlag("pd.tls.cert-file", "Client certificate for PD mTLS (all clusters).",
                 &Config::pd_cert_file),
      StringFlag("pd.tls.key-file", "Client key for PD mTLS (all clusters).", &Config::pd_key_file),
      StringFlag("pd.tls.dir",
                 "Per-cluster PD TLS: <dir>/<namespace>/<cluster>/{ca.crt,tls.crt,tls.key}; "
                 "overrides the global files where present.",
                 &Config::pd_tls_dir),
      {"readiness.source", Kind::kString,
       "Where dependency readiness comes from: pd-api, tidbcluster or both (the PD API when it "
       "answers, TidbCluster status otherwise).",
       [](Config& c, const std::string& v) {
         auto source = ParseReadinessSource(v);
         if (!source) return std::string("expects pd-api, tidbcluster or both, got \"") + v + "\"";
         c.readiness_source = *source;
         return std::string();
       },
       [](const Config& c) { return std::string(ReadinessSourceName(c.readiness_source)); }},
      Heading<Config>("Classification"),
      {"autoscaler", Kind::kString, AutoscalerHelp(),
       [](Config& c, const std::string& v) {
         if (v != "auto" && v != "none" && FindAutoscaler(v) == nullptr) {
           return "expects auto, " + AutoscalerNames() + " or none, got \"" + v + "\"";
         }
         c.autoscaler = v;
         return std::string();
       },
       [](const Config& c) { return c.autoscaler; }},
      DurationFlag("autoscaler.decision-grace",
                   "How long an unschedulable pod may wait for an autoscaler decision.",
                   &Config::autoscaler_decision_grace),
      DurationFlag("autoscaler.provision-timeout",
                   "How long a scale-up may take before the pod counts as capacity-short "
                   "(cluster-autoscaler's max-node-provision-time).",
                   &Config::autoscaler_provision_timeout),
      DurationFlag("autoscaler.silence-grace",
                   "How long a present autoscaler may say nothing about an unschedulable pod "
                   "short of resources, and how old its status ConfigMap may get, before it "
                   "counts as silent (reason autoscaler_silent, podwait_autoscaler_healthy 0).",
                   &Config::autoscaler_silence_grace),
      DurationFlag("dependency.ready-grace",
                   "How long a pod may still wait after its dependencies became ready.",
                   &Config::dependency_ready_grace),
      DurationFlag("pd.bootstrap-grace",
                   "How long a running PD member may wait for its peers (no leader, not "
                   "initialized) before it is not_ready; at least 3m.",
                   &Config::pd_bootstrap_grace),
      DurationFlag("v2.mode-switch-grace",
                   "How long PD and its microservices may wait in a PD mode switch (a PDGroup's "
                   "ModeSwitching=True) before it is planned_stuck.",
                   &Config::mode_switch_grace),
      DurationFlag("v2.leader-eviction-grace",
                   "How long a TiKV may wait with its leaders evicted for a restart "
                   "(LeadersEvicted) before it is planned_stuck.",
                   &Config::leader_eviction_grace),
      DurationFlag("v2.store-offline-grace",
                   "How long a store taken offline (scale-in, Offlined) may wait before it is "
                   "planned_stuck.",
                   &Config::store_offline_grace),
      ListFlag("dependency.init-containers", "Init containers that wait for dependencies.",
               &Config::dependency_init_containers),
      {"dependency.map", Kind::kString, "Which dependencies each component waits for.",
       [](Config& c, const std::string& v) {
         Result<DependencyMap> map = ParseDependencyMap(v);
         if (!map.ok()) return map.error;
         c.dependency_map = std::move(*map.value);
         return std::string();
       },
       ShowDependencyMap},
      DurationFlag("failover.period", "tidb-operator's failover period (its --*-failover-period).",
                   &Config::failover_period),
      Heading<Config>("Metrics and Events"),
      BoolFlag("metrics.pod-series", "Publish one podwait_pod_waiting_seconds series per pod.",
               &Config::metrics_pod_series),
      BoolFlag("events.write",
               "Write an Event on a pod when its class changes (Normal: an expected wait, "
               "Warning: a problem); needs create and patch on events.k8s.io events.",
               &Config::events_write),
      Heading<Config>("Sharding"),
      IntFlag<Config, int>("shard", "This instance's shard (0-based), by TiDB cluster.",
                           &Config::shard, 0),
      IntFlag<Config, int>("total-shards", "Number of shards.", &Config::total_shards, 1),
  });
  return flags;
}

// --web.external-url and --web.route-prefix as Prometheus reads them: the external URL is absolute
// (http or https, a host, no query or fragment), the route prefix defaults to its path and gets a
// leading '/'; both lose a trailing '/' ("/" becomes "").
Result<bool> ResolveWebUrls(Config* c) {
  std::string& url = c->external_url;
  std::string path;
  if (!url.empty()) {
    const size_t scheme_end = url.find("://");
    const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https") {
      return Result<bool>::Fail(
          "flag --web.external-url: want an absolute http or https URL, got \"" + url + "\"");
    }
    if (url.find_first_of("?#") != std::string::npos) {
      return Result<bool>::Fail("flag --web.external-url: no query or fragment allowed, got \"" +
                                url + "\"");
    }
    const size_t path_start = url.find('/', scheme_end + 3);
    if (path_start == scheme_end + 3 || scheme_end + 3 == url.size()) {
      return Result<bool>::Fail("flag --web.external-url: no host in \"" + url + "\"");
    }
    if (path_start != std::string::npos) path = url.substr(path_start);
    while (!url.empty() && url.back() == '/') url.pop_back();
  }
  std::string& prefix = c->route_prefix;
  if (prefix.empty()) prefix = path;
  if (!prefix.empty() && prefix[0] != '/') prefix = "/" + prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return Result<bool>::Ok(true);
}

}  // namespace

Result<DependencyMap> ParseDependencyMap(const std::string& text) {
  using R = Result<DependencyMap>;
  DependencyMap result;
  for (const auto& entry : SplitFlagList(text)) {
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return R::Fail("expects component=dep[+dep],..., got \"" + entry + "\"");
    }
    std::vector<Dependency> deps;
    std::string rest = entry.substr(eq + 1);
    size_t start = 0;
    while (start <= rest.size()) {
      size_t plus = rest.find('+', start);
      std::string dep =
          rest.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      auto d = ParseDependency(dep);
      if (!d) return R::Fail("unknown dependency \"" + dep + "\" (known: pd, tikv)");
      deps.push_back(*d);
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    result[entry.substr(0, eq)] = deps;
  }
  return R::Ok(std::move(result));
}

std::span<const FlagSpec<Config>> ConfigFlags() { return Flags(); }

Result<ParsedConfig> ParseFlags(const std::vector<std::string>& args) {
  using R = Result<ParsedConfig>;
  ParsedConfig result;
  Result<ParsedFlags> parsed = ParseFlagTable(ConfigFlags(), args, &result.config);
  if (!parsed.ok()) return R::Fail(std::move(parsed.error));
  result.action = parsed->action;
  if (result.action != FlagAction::kRun) return R::Ok(std::move(result));
  result.positional = std::move(parsed->positional);
  if (Result<bool> checked = CheckConfig(result.config); !checked.ok()) {
    return R::Fail(std::move(checked.error));
  }
  if (Result<bool> urls = ResolveWebUrls(&result.config); !urls.ok()) {
    return R::Fail(std::move(urls.error));
  }
  return R::Ok(std::move(result));
}

Result<bool> CheckConfig(const Config& config) {
  for (const std::string& ns : config.namespaces) {
    if (!IsDns1123Label(ns)) {
      return Result<bool>::Fail(
          "flag --namespaces: \"" + ns.substr(0, 80) +
          "\" is not a namespace name (lower-case letters, digits and '-', at most 63)");
    }
  }
  if (config.shard >= config.total_shards) {
    return Result<bool>::Fail("flag --shard must be below --total-shards");
  }
  if (config.telemetry_path.empty() || config.telemetry_path[0] != '/') {
    return Result<bool>::Fail("flag --web.telemetry-path must start with /");
  }
  if (config.pd_bootstrap_grace < kMinPdBootstrapGrace) {
    return Result<bool>::Fail("flag --pd.bootstrap-grace expects a duration of at least 3m, got " +
                              FormatDuration(config.pd_bootstrap_grace));
  }
  // A planned wait with no grace would be stuck at once: only a paused or suspended cluster has
  // none, and that is not a flag.
  for (auto [grace, flag] : {std::pair{config.mode_switch_grace, "v2.mode-switch-grace"},
                             std::pair{config.leader_eviction_grace, "v2.leader-eviction-grace"},
                             std::pair{config.store_offline_grace, "v2.store-offline-grace"}}) {
    if (grace <= 0) {
      return Result<bool>::Fail(std::string("flag --") + flag +
                                " expects a duration above 0, got " + FormatDuration(grace));
    }
  }
  return Result<bool>::Ok(true);
}

std::string FlagUsage() {
  std::ostringstream out;
  out << "usage: podwait-exporter [<flags>]\n"
         "       podwait-exporter explain [<flags>] (see podwait-exporter explain --help)\n"
         "       podwait-exporter contract (the stages, classes, reasons and metrics as JSON)\n\n"
         "Classifies every waiting pod of TiDB clusters on Kubernetes and serves Prometheus "
         "metrics.\n\nFlags:\n"
         "  -h, --help  Show this help.\n"
         "      --version  Show the version.\n";
  out << FlagTableUsage(ConfigFlags(), Config{});
  return out.str();
}

}  // namespace podwait
