#include "exporter/explain/explain.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/common/file.h"
#include "exporter/common/json.h"
#include "exporter/common/time_format.h"
#include "exporter/config/flags.h"
#include "exporter/evaluate/evaluator.h"
#include "exporter/http/views.h"
#include "exporter/pd/prober.h"
#include "exporter/sources/configmap.h"
#include "exporter/sources/events.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/tidbcluster.h"
#include "exporter/sources/v2_objects.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/dependency_store.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/tidbcluster_store.h"
#include "exporter/state/v2_store.h"

namespace podwait {
namespace {

struct ExplainArgs {
  std::string pods_file;
  std::string events_file;
  std::string tidbclusters_file;
  std::string v2_objects_file;
  std::string ca_status_file;
  std::string pd_dir;
  std::string output = "table";
  std::string now;
  bool all = false;
  Config config;
};

// Serves PD answers from files: <dir>/<namespace>/<cluster>/<endpoint>.json, the endpoint named
// like the fixtures (health, leader, members, cluster_status, stores, config_replicate). A
// missing file answers like a PD that cannot be reached. A file may start with a status line
// "HTTP 500\n" to replay an error answer (e.g. "TiKV cluster not bootstrapped").
class FileHttpClient final : public HttpClient {
 public:
  HttpResponse Get(const HttpRequest& request, size_t) override {
    HttpResponse r;
    // url = file://<dir>/<namespace>/<cluster>/pd/api/v1/<endpoint path>
    std::string url = request.url;
    const std::string scheme = "file://";
    if (url.rfind(scheme, 0) == 0) url = url.substr(scheme.size());
    const std::string marker = "/pd/api/v1/";
    auto pos = url.find(marker);
    if (pos == std::string::npos) {
      r.error = "Couldn't connect to server";
      return r;
    }
    std::string endpoint = url.substr(pos + marker.size());
    std::replace(endpoint.begin(), endpoint.end(), '/', '_');
    std::string why;
    if (!ReadWholeFile(url.substr(0, pos) + "/" + endpoint + ".json", &r.body, &why)) {
      r.error = "Couldn't connect to server";
      return r;
    }
    r.status = 200;
    if (r.body.rfind("HTTP ", 0) == 0) {
      auto nl = r.body.find('\n');
      r.status = std::atoi(r.body.substr(5, nl).c_str());
      r.body = nl == std::string::npos ? std::string() : r.body.substr(nl + 1);
    }
    r.content_type = "application/json";
    return r;
  }
  HttpResponse Stream(const HttpRequest& request,
                      const std::function<bool(std::string_view)>& on_data) override {
    HttpResponse r = Get(request, 0);
    if (r.ok()) on_data(r.body);
    return r;
  }
};

// The largest dump explain reads (kubectl get pods -o json of ~15,000 pods); parsing takes a few
// times its size in memory, so a larger one would end in bad_alloc.
constexpr size_t kMaxInputBytes = size_t{256} << 20;

bool ReadInput(const std::string& path, std::istream& in, std::string* out, std::string* error) {
  std::string why;
  if (path == "-") {
    if (!ReadStreamLimited(in, kMaxInputBytes, out, &why)) {
      *error = "standard input: " + why + "; dump fewer objects (one namespace, a selector)";
      return false;
    }
    return true;
  }
  if (!ReadFileLimited(path, kMaxInputBytes, out, &why)) {
    *error = why.rfind("larger than", 0) == 0
                 ? path + ": " + why + "; dump fewer objects (one namespace, a selector)"
                 : path + ": cannot open the file (" + why + ")";
    return false;
  }
  return true;
}

// Parses a kubectl JSON dump: a List ({"items": [...]}) or a single object of `kind`.
bool ParseDump(const std::string& name, const std::string& text, const char* kind,
               rapidjson::Document* doc, std::vector<const rapidjson::Value*>* items,
               std::string* error) {
  if (std::string e = json::ParseInto(text, doc); !e.empty()) {
    *error = name + ": " + e + " (expected the output of kubectl get ... -o json)";
    return false;
  }
  if (!doc->IsObject()) {
    *error = name + ": expected a JSON object (a List or a " + kind + ")";
    return false;
  }
  if (const rapidjson::Value* list = json::Member(*doc, "items")) {
    if (!list->IsArray()) {
      *error = name + ": \"items\" is not an array";
      return false;
    }
    for (size_t i = 0; i < list->Size(); ++i) {
      const rapidjson::Value& item = (*list)[static_cast<rapidjson::SizeType>(i)];
      if (!item.IsObject()) {
        *error = name + ": item " + std::to_string(i) + " is not a JSON object";
        return false;
      }
      items->push_back(&item);
    }
    return true;
  }
  if (json::Str(doc, "kind") == kind) {
    items->push_back(doc);
    return true;
  }
  *error = name + ": neither a List with \"items\" nor a " + kind;
  return false;
}

std::string ItemKind(const rapidjson::Value& v) { return std::string(json::Str(&v, "kind")); }

// An object of tidb-operator v2's API group (core.pingcap.com/v1alpha1).
bool IsV2Object(const rapidjson::Value& v) {
  if (!v.IsObject()) return false;
  auto it = v.FindMember("apiVersion");
  return it != v.MemberEnd() && it->value.IsString() &&
         std::string_view(it->value.GetString()) == v2::kApiVersion;
}

void PrintTable(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 3, ' ');
    }
    out << line << "\n";
  }
}

int Usage(std::ostream& err, const std::string& message) {
  err << "podwait-exporter explain: error: " << message
      << "\n(see podwait-exporter explain --help)\n";
  return 2;
}

}  // namespace

std::string ExplainUsage() {
  return "usage: podwait-exporter explain -f PODS.json [flags]\n\n"
         "Classifies the pods of a dump, offline, with the exporter's classifier.\n\n"
         "  -f, --filename=FILE      kubectl get pods -A -o json (\"-\" reads standard input)\n"
         "      --events=FILE        kubectl get events -A -o json\n"
         "      --tidbclusters=FILE  kubectl get tidbclusters -A -o json\n"
         "      --v2-objects=FILE    kubectl get clusters,pdgroups,pds,tikvs,tidbs -A -o json\n"
         "                           (tidb-operator v2; v2 objects in the -f List count too)\n"
         "      --ca-status=FILE     kubectl -n kube-system get configmap "
         "cluster-autoscaler-status -o json\n"
         "      --pd-dir=DIR         PD answers: "
         "DIR/<namespace>/<cluster>/{health,leader,members,\n"
         "                           cluster_status,stores}.json (curl -s .../pd/api/v1/health > "
         "health.json)\n"
         "  -o, --output=FORMAT      table (default), wide (adds evidence) or json\n"
         "      --all                also list pods that do not wait\n"
         "      --now=RFC3339        classify as of this time (default: now)\n"
         "  Classification flags of the exporter apply too: --autoscaler, "
         "--autoscaler.decision-grace,\n"
         "  --autoscaler.provision-timeout, --dependency.ready-grace, "
         "--dependency.init-containers,\n"
         "  --dependency.map, --label.cluster, --label.component, --readiness.source.\n";
}

int RunExplain(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err) {
  ExplainArgs a;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out << ExplainUsage();
      return 0;
    }
    auto take = [&](const char* long_name, const char* short_name, std::string* into) {
      const std::string l = std::string("--") + long_name;
      if (arg == l || (short_name != nullptr && arg == short_name)) {
        if (i + 1 >= args.size()) return -1;
        *into = args[++i];
        return 1;
      }
      if (arg.rfind(l + "=", 0) == 0) {
        *into = arg.substr(l.size() + 1);
        return 1;
      }
      return 0;
    };
    int r = 0;
    for (auto [l, s, into] :
         {std::tuple{"filename", "-f", &a.pods_file},
          std::tuple{"events", (const char*)nullptr, &a.events_file},
          std::tuple{"tidbclusters", (const char*)nullptr, &a.tidbclusters_file},
          std::tuple{"v2-objects", (const char*)nullptr, &a.v2_objects_file},
          std::tuple{"ca-status", (const char*)nullptr, &a.ca_status_file},
          std::tuple{"pd-dir", (const char*)nullptr, &a.pd_dir},
          std::tuple{"output", "-o", &a.output}, std::tuple{"now", (const char*)nullptr, &a.now}}) {
      r = take(l, s, into);
      if (r != 0) break;
    }
    if (r < 0) return Usage(err, "flag " + arg + " needs a value");
    if (r > 0) continue;
    if (arg == "--all") {
      a.all = true;
      continue;
    }
    rest.push_back(arg);
  }
  FlagParseResult flags = ParseFlags(rest);
  if (flags.action == FlagParseResult::Action::kError) return Usage(err, flags.error);
  if (!flags.positional.empty())
    return Usage(err, "unexpected argument \"" + flags.positional[0] + "\"");
  a.config = flags.config;
  if (a.pods_file.empty()) return Usage(err, "-f FILE is required (\"-\" for standard input)");
  if (a.output != "table" && a.output != "wide" && a.output != "json") {
    return Usage(err, "--output must be table, wide or json");
  }
  Timestamp now = SystemClock::Instance().Now();
  if (!a.now.empty()) {
    auto t = ParseRfc3339(a.now);
    if (!t) return Usage(err, "--now wants an RFC 3339 time like 2024-05-02T10:00:00Z");
    now = *t;
  }
  std::string error;
  auto display = [](const std::string& f) { return f == "-" ? std::string("standard input") : f; };

  // Pods.
  std::string text;
  rapidjson::Document pods_doc;
  std::vector<const rapidjson::Value*> items;
  if (!ReadInput(a.pods_file, in, &text, &error) ||
      !ParseDump(display(a.pods_file), text, "Pod", &pods_doc, &items, &error)) {
    err << "podwait-exporter explain: " << error << "\n";
    return 1;
  }
  const PodParseOptions pod_options = PodParseOptions::FromConfig(a.config);
  std::vector<PodPtr> pods;
  V2Objects v2_objects;  // v2 objects of the -f List (a mixed dump) and of --v2-objects
  for (size_t i = 0; i < items.size(); ++i) {
    if (IsV2Object(*items[i])) {
      AddV2Object(*items[i], &v2_objects);
      continue;
    }
    if (ItemKind(*items[i]) != "Pod" && !ItemKind(*items[i]).empty()) {
      err << "podwait-exporter explain: " << display(a.pods_file) << ": item " << i << " is a "
          << ItemKind(*items[i]) << ", not a Pod\n";
      return 1;
    }
    PodParseResult p = ParsePod(*items[i], pod_options);
    if (!p.ok) {
      err << "podwait-exporter explain: " << display(a.pods_file) << ": item " << i << ": "
          << p.error << "\n";
      return 1;
    }
    pods.push_back(std::make_shared<const PodRecord>(std::move(p.pod)));
  }
  EventStore events;
  PodStore pod_store(&events);
  pod_store.Replace(pods);

  // Events.
  AutoscalerSignals signals;
  if (!a.events_file.empty()) {
    rapidjson::Document doc;
    std::vector<const rapidjson::Value*> ev_items;
    if (!ReadInput(a.events_file, in, &text, &error) ||
        !ParseDump(a.events_file, text, "Event", &doc, &ev_items, &error)) {
      err << "podwait-exporter explain: " << error << "\n";
      return 1;
    }
    std::vector<EventRecord> records;
    for (size_t i = 0; i < ev_items.size(); ++i) {
      EventParseResult e = ParseEvent(*ev_items[i]);
      if (!e.ok) {
        err << "podwait-exporter explain: " << a.events_file << ": item " << i << ": " << e.error
            << "\n";
        return 1;
      }
      if (!e.relevant) continue;
      records.push_back(std::move(e.event));
    }
    events.Replace(std::move(records));
    signals.last_ca_event = events.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler);
    signals.last_karpenter_event = events.LastAutoscalerEvent(AutoscalerKind::kKarpenter);
  }

  // Autoscaler.
  std::optional<CaStatus> ca_status;
  if (!a.ca_status_file.empty()) {
    rapidjson::Document doc;
    std::vector<const rapidjson::Value*> cm_items;
    if (!ReadInput(a.ca_status_file, in, &text, &error) ||
        !ParseDump(a.ca_status_file, text, "ConfigMap", &doc, &cm_items, &error) ||
        cm_items.size() != 1) {
      err << "podwait-exporter explain: "
          << (error.empty() ? a.ca_status_file + ": expected one ConfigMap" : error) << "\n";
      return 1;
    }
    auto data = ParseConfigMapData(*cm_items[0]);
    if (!data || data->count("status") == 0) {
      err << "podwait-exporter explain: " << a.ca_status_file
          << ": a ConfigMap with a \"status\" key is expected\n";
      return 1;
    }
    CaStatusParse status = ParseCaStatus(data->at("status"));
    if (!status.ok()) {
      err << "podwait-exporter explain: " << a.ca_status_file << ": " << status.error << "\n";
      return 1;
    }
    signals.ca_status_configmap = true;
    ca_status = std::move(status.value);
  }

  // Dependencies: TidbClusters, PD answers, Ready PD pods; the clusters come from the pods and
  // the TidbClusters, as in the exporter.
  FakeClock clock(now);
  ClusterRegistry registry(a.config);
  DependencyStore deps(a.config, clock);
  registry.SetListener([&deps](const auto& clusters) { deps.SyncClusters(clusters); });
  if (!a.tidbclusters_file.empty()) {
    rapidjson::Document doc;
    std::vector<const rapidjson::Value*> tc_items;
    if (!ReadInput(a.tidbclusters_file, in, &text, &error) ||
        !ParseDump(a.tidbclusters_file, text, "TidbCluster", &doc, &tc_items, &error)) {
      err << "podwait-exporter explain: " << error << "\n";
      return 1;
    }
    std::vector<TidbClusterStatus> all;
    std::vector<ClusterKey> keys;
    for (size_t i = 0; i < tc_items.size(); ++i) {
      TidbClusterParse tc = ParseTidbCluster(*tc_items[i]);
      if (!tc.value) {
        err << "podwait-exporter explain: " << a.tidbclusters_file << ": item " << i << ": "
            << tc.error << "\n";
        return 1;
      }
      keys.push_back(tc.value->key);
      all.push_back(std::move(*tc.value));
    }
    registry.SetTidbClusters(keys);
    deps.ReplaceTidbClusters(all);
  }
  // tidb-operator v2 objects: their facts, as the exporter's V2Store keeps them.
  V2Store v2_store;
  v2_store.SetListener([&deps](const ClusterKey& key, const v2::ClusterFacts& facts) {
    deps.OnV2Cluster(key, facts);
  });
  if (!a.v2_objects_file.empty()) {
    rapidjson::Document doc;
    if (!ReadInput(a.v2_objects_file, in, &text, &error)) {
      err << "podwait-exporter explain: " << error << "\n";
      return 1;
    }
    doc.Parse(text.c_str(), text.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      err << "podwait-exporter explain: " << a.v2_objects_file
          << ": not a JSON object (expected the output of kubectl get clusters,pds,... -o json)\n";
      return 1;
    }
    V2Objects more = ParseV2Objects(doc);
    for (auto& c : more.clusters) v2_objects.clusters.push_back(std::move(c));
    for (auto& g : more.groups) v2_objects.groups.push_back(std::move(g));
    for (auto& i : more.instances) v2_objects.instances.push_back(std::move(i));
    for (auto& e : more.errors) v2_objects.errors.push_back(a.v2_objects_file + ": " + e);
  }
  if (!v2_objects.errors.empty()) {
    err << "podwait-exporter explain: " << v2_objects.errors.front() << "\n";
    return 1;
  }
  for (auto& c : v2_objects.clusters) v2_store.UpsertCluster(std::move(c));
  for (auto& g : v2_objects.groups) v2_store.UpsertGroup(std::move(g));
  for (auto& i : v2_objects.instances) v2_store.UpsertInstance(std::move(i));
  registry.SetPodClusters(pod_store.Clusters());
  if (!a.pd_dir.empty()) {
    if (!std::filesystem::is_directory(a.pd_dir)) {
      err << "podwait-exporter explain: " << a.pd_dir << ": not a directory\n";
      return 1;
    }
    FileHttpClient files;
    for (const ClusterKey& key : registry.Clusters()) {
      PdClientOptions options;
      options.base_url = "file://" + a.pd_dir + "/" + key.namespace_ + "/" + key.name;
      PdClient client(files, options);
      deps.OnPdProbe(key, ProbePd(client, now));
    }
  }
  const std::map<ClusterKey, ClusterDependencies> dep_snapshot = deps.Snapshot();

  // Classify: the exporter's evaluation, once.
  Evaluator evaluator(EvaluatorOptionsFromConfig(a.config));
  const std::vector<FailureMember> failures = deps.FailureMembers();
  EvaluatorInputs inputs;
  inputs.pods = pods;
  inputs.events = [&events](const PodRecord& pod) {
    return events.EventsFor(pod.namespace_, pod.name, pod.uid);
  };
  inputs.instance = InstanceLookup(v2_store);
  inputs.autoscaler_signals = signals;
  inputs.ca_status = ca_status ? &*ca_status : nullptr;
  inputs.dependencies = &dep_snapshot;
  inputs.failure_members = failures;
  inputs.now = now;
  evaluator.Evaluate(inputs);
  const std::shared_ptr<const WaitingSnapshot> snapshot = evaluator.Snapshot();

  std::vector<std::vector<std::string>> rows;
  const bool wide = a.output == "wide";
  rows.push_back(
      {"NAMESPACE", "CLUSTER", "POD", "COMPONENT", "STAGE", "CLASS", "REASON", "WAITING"});
  if (wide) rows.back().push_back("EVIDENCE");
  std::map<std::pair<std::string_view, std::string_view>, const WaitingPod*> waiting;
  for (const WaitingPod& w : snapshot->pods) waiting[{w.namespace_, w.pod}] = &w;
  std::sort(pods.begin(), pods.end(), [](const PodPtr& x, const PodPtr& y) {
    return std::tie(x->namespace_, x->cluster, x->name) <
           std::tie(y->namespace_, y->cluster, y->name);
  });
  for (const PodPtr& p : pods) {
    auto it = waiting.find({p->namespace_, p->name});
    const Classification* c = it == waiting.end() ? nullptr : &it->second->classification;
    if (c == nullptr && !a.all) continue;
    std::vector<std::string> row = {p->namespace_,
                                    p->cluster.empty() ? "<none>" : p->cluster,
                                    p->name,
                                    p->component.empty() ? "<none>" : p->component,
                                    c ? std::string(StageName(c->stage)) : "-",
                                    c ? std::string(WaitClassName(c->wait_class)) : "-",
                                    c ? c->reason : "not waiting",
                                    c ? FormatDuration(now - c->stage_start) : "-"};
    if (wide) row.push_back(c ? EvidenceText(*c, now) : "");
    rows.push_back(std::move(row));
  }

  if (a.output == "json") {
    ViewModel model;
    model.waiting = snapshot;
    model.dependencies = dep_snapshot;
    model.synced = true;
    model.now = now;
    out << RenderPodsJson(model, {}) << "\n";
    return 0;
  }
  if (rows.size() == 1) {
    out << "No waiting pods among " << pods.size() << " pod" << (pods.size() == 1 ? "" : "s")
        << ".\n";
    return 0;
  }
  PrintTable(rows, out);
  return 0;
}

}  // namespace podwait
