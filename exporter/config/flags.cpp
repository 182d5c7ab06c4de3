#include "exporter/config/flags.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <sstream>

#include "exporter/common/time_format.h"

namespace podwait {
namespace {

enum class Kind { kString, kBool, kDuration, kInt, kList };

struct Flag {
  const char* name;
  Kind kind;
  const char* help;
  // Applies the value; returns an error message, or empty on success.
  std::function<std::string(Config&, const std::string&)> set;
  // Renders the default for --help.
  std::function<std::string(const Config&)> show;
};

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

Flag StringFlag(const char* name, const char* help, std::string Config::*field) {
  return {name, Kind::kString, help,
          [field](Config& c, const std::string& v) {
            c.*field = v;
            return std::string();
          },
          [field](const Config& c) { return c.*field; }};
}

Flag BoolFlag(const char* name, const char* help, bool Config::*field) {
  return {name, Kind::kBool, help,
          [field](Config& c, const std::string& v) {
            if (v == "true" || v == "1") {
              c.*field = true;
            } else if (v == "false" || v == "0") {
              c.*field = false;
            } else {
              return std::string("expects true or false, got \"") + v + "\"";
            }
            return std::string();
          },
          [field](const Config& c) { return std::string(c.*field ? "true" : "false"); }};
}

Flag DurationFlag(const char* name, const char* help, Timestamp Config::*field) {
  return {name, Kind::kDuration, help,
          [field](Config& c, const std::string& v) {
            auto d = ParseDuration(v);
            if (!d)
              return std::string("expects a duration like 90s, 15m or 1h30m, got \"") + v + "\"";
            c.*field = *d;
            return std::string();
          },
          [field](const Config& c) { return FormatDuration(c.*field); }};
}

template <typename Int>
Flag IntFlag(const char* name, const char* help, Int Config::*field, Int min_value) {
  return {name, Kind::kInt, help,
          [field, min_value](Config& c, const std::string& v) {
            Int value{};
            auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
            if (ec != std::errc() || ptr != v.data() + v.size() || value < min_value) {
              return std::string("expects an integer >= ") + std::to_string(min_value) +
                     ", got \"" + v + "\"";
            }
            c.*field = value;
            return std::string();
          },
          [field](const Config& c) { return std::to_string(c.*field); }};
}

Flag ListFlag(const char* name, const char* help, std::vector<std::string> Config::*field) {
  return {name, Kind::kList, help,
          [field](Config& c, const std::string& v) {
            c.*field = SplitList(v);
            return std::string();
          },
          [field](const Config& c) { return JoinList(c.*field); }};
}

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

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"web.listen-address", Kind::kString,
       "Address on which to expose metrics and the web interface; repeat to listen on several. "
       "\":port\" listens on every IPv4 and IPv6 address.",
       [](Config& c, const std::string& v) {
         // The first one given replaces the default; later ones add to it.
         if (!c.listen_addresses_given) c.listen_addresses.clear();
         c.listen_addresses_given = true;
         if (std::find(c.listen_addresses.begin(), c.listen_addresses.end(), v) ==
             c.listen_addresses.end()) {
           c.listen_addresses.push_back(v);
         }
         return std::string();
       },
       [](const Config& c) { return JoinList(c.listen_addresses); }},
      BoolFlag("web.disable-exporter-metrics",
               "Leave out the exporter's metrics about itself (process_* and podwait's watch, "
               "probe, scrape and web config health) from the telemetry path.",
               &Config::disable_exporter_metrics),
      IntFlag<int>("web.max-requests",
                   "Maximum number of requests answered at once (health probes not counted); "
                   "more get 503. 0 means no limit.",
                   &Config::web_max_requests, 0),
      StringFlag("web.telemetry-path", "Path under which to expose metrics.",
                 &Config::telemetry_path),
      StringFlag("web.config.file",
                 "Path to a web configuration file that can enable TLS or authentication "
                 "(exporter-toolkit format).",
                 &Config::web_config_file),
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
      ListFlag("namespaces", "Comma-separated namespaces to watch; empty watches all.",
               &Config::namespaces),
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
      IntFlag<int64_t>("kube.page-size", "Objects per page of an initial list.",
                       &Config::kube_page_size, 1),
      DurationFlag("kube.watch-timeout", "Server-side timeout of one watch request.",
                   &Config::kube_watch_timeout),
      BoolFlag("tidbcluster.enabled", "Watch pingcap.com/v1alpha1 TidbClusters.",
               &Config::tidbcluster_enabled),
      BoolFlag("v2.enabled",
               "Watch tidb-operator v2's core.pingcap.com/v1alpha1 Clusters, groups and "
               "instances (a resource the API server does not serve is skipped).",
               &Config::v2_enabled),
      BoolFlag("autoscaler.status-configmap.enabled",
               "Read the cluster-autoscaler status ConfigMap.", &Config::ca_status_enabled),
      StringFlag("autoscaler.status-configmap.namespace",
                 "Namespace of the cluster-autoscaler status ConfigMap.",
                 &Config::ca_status_namespace),
      StringFlag("autoscaler.status-configmap.name",
                 "Name of the cluster-autoscaler status ConfigMap.", &Config::ca_status_name),
      {"pd.url-template", Kind::kString,
       "PD base URL per TiDB cluster; {cluster} and {namespace} are substituted. Given "
       "explicitly, it wins over a tidb-operator v2 Cluster's status.pd.",
       [](Config& c, const std::string& v) {
         c.pd_url_template = v;
         c.pd_url_template_explicit = true;
         return std::string();
       },
       [](const Config& c) { return c.pd_url_template; }},
      DurationFlag("pd.interval", "How often each TiDB cluster's PD is probed.",
                   &Config::pd_interval),
      DurationFlag("pd.timeout", "Timeout of each PD API request.", &Config::pd_timeout),
      IntFlag<int>("pd.concurrency", "How many clusters are probed at once.",
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
         if (v != "pd-api" && v != "tidbcluster" && v != "both") {
           return std::string("expects pd-api, tidbcluster or both, got \"") + v + "\"";
         }
         c.readiness_source = v;
         return std::string();
       },
       [](const Config& c) { return c.readiness_source; }},
      {"autoscaler", Kind::kString,
       "Autoscaler in use: auto (detected), cluster-autoscaler, karpenter or none.",
       [](Config& c, const std::string& v) {
         if (v != "auto" && v != "cluster-autoscaler" && v != "karpenter" && v != "none") {
           return std::string("expects auto, cluster-autoscaler, karpenter or none, got \"") + v +
                  "\"";
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
      DurationFlag("dependency.ready-grace",
                   "How long a pod may still wait after its dependencies became ready.",
                   &Config::dependency_ready_grace),
      ListFlag("dependency.init-containers", "Init containers that wait for dependencies.",
               &Config::dependency_init_containers),
      {"dependency.map", Kind::kString, "Which dependencies each component waits for.",
       [](Config& c, const std::string& v) {
         std::string error;
         if (!ParseDependencyMap(v, &c.dependency_map, &error)) return error;
         return std::string();
       },
       ShowDependencyMap},
      DurationFlag("failover.period", "tidb-operator's failover period (its --*-failover-period).",
                   &Config::failover_period),
      BoolFlag("metrics.pod-series", "Publish one podwait_pod_waiting_seconds series per pod.",
               &Config::metrics_pod_series),
      IntFlag<int>("shard", "This instance's shard (0-based), by TiDB cluster.", &Config::shard, 0),
      IntFlag<int>("total-shards", "Number of shards.", &Config::total_shards, 1),
  };
  return flags;
}

const Flag* FindFlag(std::string_view name) {
  for (const auto& f : Flags()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace

bool ParseDependencyMap(const std::string& text,
                        std::map<std::string, std::vector<Dependency>>* out, std::string* error) {
  std::map<std::string, std::vector<Dependency>> result;
  for (const auto& entry : SplitList(text)) {
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "expects component=dep[+dep],..., got \"" + entry + "\"";
      return false;
    }
    std::vector<Dependency> deps;
    std::string rest = entry.substr(eq + 1);
    size_t start = 0;
    while (start <= rest.size()) {
      size_t plus = rest.find('+', start);
      std::string dep =
          rest.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      auto d = ParseDependency(dep);
      if (!d) {
        *error = "unknown dependency \"" + dep + "\" (known: pd, tikv)";
        return false;
      }
      deps.push_back(*d);
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    result[entry.substr(0, eq)] = deps;
  }
  *out = std::move(result);
  return true;
}

FlagParseResult ParseFlags(const std::vector<std::string>& args) {
  FlagParseResult result;
  auto fail = [&result](std::string message) {
    result.action = FlagParseResult::Action::kError;
    result.error = std::move(message);
    return result;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      result.action = FlagParseResult::Action::kHelp;
      return result;
    }
    if (arg == "--version") {
      result.action = FlagParseResult::Action::kVersion;
      return result;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!arg.empty() && arg[0] == '-')
        return fail("unknown short flag " + arg + " (flags are --long)");
      result.positional.push_back(arg);
      continue;
    }
    std::string body = arg.substr(2);
    std::optional<std::string> value;
    auto eq = body.find('=');
    if (eq != std::string::npos) {
      value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const Flag* flag = FindFlag(body);
    if (flag == nullptr && body.rfind("no-", 0) == 0) {
      const Flag* negated = FindFlag(body.substr(3));
      if (negated != nullptr && negated->kind == Kind::kBool && !value) {
        negated->set(result.config, "false");
        continue;
      }
    }
    if (flag == nullptr) return fail("unknown flag --" + body + " (see --help)");
    if (!value) {
      if (flag->kind == Kind::kBool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return fail("flag --" + body + " needs a value");
      }
    }
    std::string err = flag->set(result.config, *value);
    if (!err.empty()) return fail("flag --" + body + ": " + err);
  }
  if (result.config.shard >= result.config.total_shards) {
    return fail("flag --shard must be below --total-shards");
  }
  if (result.config.telemetry_path.empty() || result.config.telemetry_path[0] != '/') {
    return fail("flag --web.telemetry-path must start with /");
  }
  return result;
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
  const Config defaults;
  for (const auto& f : Flags()) {
    out << "      --" << f.name;
    if (f.kind != Kind::kBool) out << "=" << (f.kind == Kind::kDuration ? "DURATION" : "VALUE");
    out << "\n          " << f.help;
    std::string d = f.show(defaults);
    if (!d.empty() || f.kind == Kind::kString) out << " (default: \"" << d << "\")";
    out << "\n";
  }
  return out.str();
}

}  // namespace podwait
