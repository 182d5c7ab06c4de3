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
#include "exporter/common/result.h"
#include "exporter/common/time_format.h"
#include "exporter/config/flags.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/http/views.h"
#include "exporter/pd/prober.h"
#include "exporter/sources/ca_status_source.h"
#include "exporter/sources/configmap.h"
#include "exporter/sources/events.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/tidbcluster.h"
#include "exporter/sources/v2_objects.h"

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
  bool help = false;  // -h, --help: print the usage and nothing else
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

Result<std::string> ReadInput(const std::string& path, std::istream& in) {
  std::string text, why;
  if (path == "-") {
    if (!ReadStreamLimited(in, kMaxInputBytes, &text, &why)) {
      return Result<std::string>::Fail("standard input: " + why +
                                       "; dump fewer objects (one namespace, a selector)");
    }
    return Result<std::string>::Ok(std::move(text));
  }
  if (!ReadFileLimited(path, kMaxInputBytes, &text, &why)) {
    return Result<std::string>::Fail(why.rfind("larger than", 0) == 0
                                         ? path + ": " + why +
                                               "; dump fewer objects (one namespace, a selector)"
                                         : path + ": cannot open the file (" + why + ")");
  }
  return Result<std::string>::Ok(std::move(text));
}

// A kubectl JSON dump: the document and its objects (pointers into it).
struct Dump {
  std::unique_ptr<rapidjson::Document> doc = std::make_unique<rapidjson::Document>();
  std::vector<const rapidjson::Value*> items;
};

// Parses a kubectl JSON dump: a List ({"items": [...]}) or a single object of `kind`.
Result<Dump> ParseDump(const std::string& name, const std::string& text, const char* kind) {
  Dump d;
  rapidjson::Document* doc = d.doc.get();
  if (std::string e = json::ParseInto(text, doc); !e.empty()) {
    return Result<Dump>::Fail(name + ": " + e +
                              " (expected the output of kubectl get ... -o json)");
  }
  if (!doc->IsObject()) {
    return Result<Dump>::Fail(name + ": expected a JSON object (a List or a " + kind + ")");
  }
  if (const rapidjson::Value* list = json::Member(*doc, "items")) {
    if (!list->IsArray()) return Result<Dump>::Fail(name + ": \"items\" is not an array");
    for (size_t i = 0; i < list->Size(); ++i) {
      const rapidjson::Value& item = (*list)[static_cast<rapidjson::SizeType>(i)];
      if (!item.IsObject()) {
        return Result<Dump>::Fail(name + ": item " + std::to_string(i) + " is not a JSON object");
      }
      d.items.push_back(&item);
    }
    return Result<Dump>::Ok(std::move(d));
  }
  if (json::Str(doc, "kind") == kind) {
    d.items.push_back(doc);
    return Result<Dump>::Ok(std::move(d));
  }
  return Result<Dump>::Fail(name + ": neither a List with \"items\" nor a " + kind);
}

// Reads and parses the dump in `path` (display name `name`).
Result<Dump> ReadDump(const std::string& path, const std::string& name, std::istream& in,
                      const char* kind) {
  Result<std::string> text = ReadInput(path, in);
  if (!text.ok()) return Result<Dump>::Fail(text.error);
  return ParseDump(name, *text.value, kind);
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

// One line per cluster that tidb-operator v2 holds on purpose, above the table: its pods are
// planned waits, and a paused cluster is healed by nobody.
void PrintHolds(const std::map<ClusterKey, ClusterDependencies>& clusters, std::ostream& out) {
  for (const auto& [key, deps] : clusters) {
    const std::vector<std::string_view> holds = HoldNames(deps.hold);
    if (holds.empty()) continue;
    out << "Cluster " << key.Key() << " held by tidb-operator:";
    for (std::string_view h : holds) out << " " << h;
    if (!deps.hold.mode_switch.empty()) out << " (" << deps.hold.mode_switch << ")";
    out << "\n";
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

namespace {

FlagSpec<ExplainArgs> FileFlag(std::string_view name, std::string_view short_name,
                               std::string ExplainArgs::*field) {
  FlagSpec<ExplainArgs> f = StringFlag(name, "", field);
  f.short_name = short_name;
  return f;
}

// explain's flags: its own, then the exporter's (the classification flags apply; see
// ExplainUsage()).
std::span<const FlagSpec<ExplainArgs>> ExplainFlags() {
  static const std::vector<FlagSpec<ExplainArgs>> flags = [] {
    std::vector<FlagSpec<ExplainArgs>> f = {
        FileFlag("filename", "-f", &ExplainArgs::pods_file),
        FileFlag("events", "", &ExplainArgs::events_file),
        FileFlag("tidbclusters", "", &ExplainArgs::tidbclusters_file),
        FileFlag("v2-objects", "", &ExplainArgs::v2_objects_file),
        FileFlag("ca-status", "", &ExplainArgs::ca_status_file),
        FileFlag("pd-dir", "", &ExplainArgs::pd_dir),
        FileFlag("output", "-o", &ExplainArgs::output),
        FileFlag("now", "", &ExplainArgs::now),
        BoolFlag("all", "", &ExplainArgs::all),
    };
    for (auto& c : LiftFlags(ConfigFlags(), &ExplainArgs::config)) f.push_back(std::move(c));
    return f;
  }();
  return flags;
}

// The command line of explain, checked.
Result<ExplainArgs> ParseExplainArgs(const std::vector<std::string>& args) {
  using R = Result<ExplainArgs>;
  ExplainArgs a;
  Result<ParsedFlags> parsed = ParseFlagTable(ExplainFlags(), args, &a);
  if (!parsed.ok()) return R::Fail(parsed.error);
  if (parsed.value->action == FlagAction::kHelp) {
    a.help = true;
    return R::Ok(std::move(a));
  }
  if (Result<bool> checked = CheckConfig(a.config); !checked.ok()) return R::Fail(checked.error);
  if (!parsed.value->positional.empty()) {
    return R::Fail("unexpected argument \"" + parsed.value->positional[0] + "\"");
  }
  if (a.pods_file.empty()) return R::Fail("-f FILE is required (\"-\" for standard input)");
  if (a.output != "table" && a.output != "wide" && a.output != "json") {
    return R::Fail("--output must be table, wide or json");
  }
  return R::Ok(std::move(a));
}

std::string Display(const std::string& file) { return file == "-" ? "standard input" : file; }

// The pods of -f, and the tidb-operator v2 objects among them (a mixed dump).
Result<std::vector<PodPtr>> LoadPods(const ExplainArgs& a, std::istream& in, V2Objects* v2) {
  using R = Result<std::vector<PodPtr>>;
  Result<Dump> dump = ReadDump(a.pods_file, Display(a.pods_file), in, "Pod");
  if (!dump.ok()) return R::Fail(dump.error);
  const PodParseOptions pod_options = PodParseOptions::FromConfig(a.config);
  const std::vector<const rapidjson::Value*>& items = dump.value->items;
  std::vector<PodPtr> pods;
  for (size_t i = 0; i < items.size(); ++i) {
    if (IsV2Object(*items[i])) {
      AddV2Object(*items[i], v2);
      continue;
    }
    const std::string where = Display(a.pods_file) + ": item " + std::to_string(i);
    if (ItemKind(*items[i]) != "Pod" && !ItemKind(*items[i]).empty()) {
      return R::Fail(where + " is a " + ItemKind(*items[i]) + ", not a Pod");
    }
    PodParseResult p = ParsePod(*items[i], pod_options);
    if (!p.ok) return R::Fail(where + ": " + p.error);
    pods.push_back(std::make_shared<const PodRecord>(std::move(p.pod)));
  }
  return R::Ok(std::move(pods));
}

Result<std::vector<EventRecord>> LoadEvents(const std::string& file, std::istream& in) {
  using R = Result<std::vector<EventRecord>>;
  Result<Dump> dump = ReadDump(file, file, in, "Event");
  if (!dump.ok()) return R::Fail(dump.error);
  std::vector<EventRecord> records;
  for (size_t i = 0; i < dump.value->items.size(); ++i) {
    EventParseResult e = ParseEvent(*dump.value->items[i]);
    if (!e.ok) return R::Fail(file + ": item " + std::to_string(i) + ": " + e.error);
    if (e.relevant) records.push_back(std::move(e.event));
  }
  return R::Ok(std::move(records));
}

Result<CaStatus> LoadCaStatus(const std::string& file, std::istream& in) {
  using R = Result<CaStatus>;
  Result<Dump> dump = ReadDump(file, file, in, "ConfigMap");
  if (!dump.ok()) return R::Fail(dump.error);
  if (dump.value->items.size() != 1) return R::Fail(file + ": expected one ConfigMap");
  auto data = ParseConfigMapData(*dump.value->items[0]);
  if (!data || data->count("status") == 0) {
    return R::Fail(file + ": a ConfigMap with a \"status\" key is expected");
  }
  R status = ParseCaStatusData(*data);
  if (!status.ok()) return R::Fail(file + ": " + status.error);
  return status;
}

Result<std::vector<TidbClusterStatus>> LoadTidbClusters(const std::string& file, std::istream& in) {
  using R = Result<std::vector<TidbClusterStatus>>;
  Result<Dump> dump = ReadDump(file, file, in, "TidbCluster");
  if (!dump.ok()) return R::Fail(dump.error);
  std::vector<TidbClusterStatus> all;
  for (size_t i = 0; i < dump.value->items.size(); ++i) {
    TidbClusterParse tc = ParseTidbCluster(*dump.value->items[i]);
    if (!tc.value) return R::Fail(file + ": item " + std::to_string(i) + ": " + tc.error);
    all.push_back(std::move(*tc.value));
  }
  return R::Ok(std::move(all));
}

// The objects of --v2-objects, added to `v2`; an error names the first bad one.
Result<bool> LoadV2Objects(const std::string& file, std::istream& in, V2Objects* v2) {
  if (!file.empty()) {
    Result<std::string> text = ReadInput(file, in);
    if (!text.ok()) return Result<bool>::Fail(text.error);
    rapidjson::Document doc;
    doc.Parse(text.value->c_str(), text.value->size());
    if (doc.HasParseError() || !doc.IsObject()) {
      return Result<bool>::Fail(
          file +
          ": not a JSON object (expected the output of kubectl get clusters,pds,... -o json)");
    }
    V2Objects more = ParseV2Objects(doc);
    for (auto& c : more.clusters) v2->clusters.push_back(std::move(c));
    for (auto& g : more.groups) v2->groups.push_back(std::move(g));
    for (auto& i : more.instances) v2->instances.push_back(std::move(i));
    for (auto& e : more.errors) v2->errors.push_back(file + ": " + e);
  }
  if (!v2->errors.empty()) return Result<bool>::Fail(v2->errors.front());
  return Result<bool>::Ok(true);
}

// Fills the pipeline's stores from the files of `a`, as the reflectors and the prober fill the
// exporter's; returns the pods (for the table).
Result<std::vector<PodPtr>> LoadInputs(const ExplainArgs& a, std::istream& in, Timestamp now,
                                       Pipeline& pipeline) {
  using R = Result<std::vector<PodPtr>>;
  V2Objects v2_objects;  // v2 objects of the -f List (a mixed dump) and of --v2-objects
  R pods = LoadPods(a, in, &v2_objects);
  if (!pods.ok()) return pods;
  pipeline.pods().Replace(*pods.value);
  if (!a.events_file.empty()) {
    Result<std::vector<EventRecord>> events = LoadEvents(a.events_file, in);
    if (!events.ok()) return R::Fail(events.error);
    pipeline.events().Replace(std::move(*events.value));
  }
  if (!a.ca_status_file.empty()) {
    Result<CaStatus> status = LoadCaStatus(a.ca_status_file, in);
    if (!status.ok()) return R::Fail(status.error);
    pipeline.SetCaStatus({true, std::make_shared<const CaStatus>(std::move(*status.value))});
  }
  if (!a.tidbclusters_file.empty()) {
    Result<std::vector<TidbClusterStatus>> tcs = LoadTidbClusters(a.tidbclusters_file, in);
    if (!tcs.ok()) return R::Fail(tcs.error);
    pipeline.tidbclusters().Replace("", *tcs.value);
  }
  if (Result<bool> v2 = LoadV2Objects(a.v2_objects_file, in, &v2_objects); !v2.ok()) {
    return R::Fail(v2.error);
  }
  for (auto& c : v2_objects.clusters) pipeline.v2().UpsertCluster(std::move(c));
  for (auto& g : v2_objects.groups) pipeline.v2().UpsertGroup(std::move(g));
  for (auto& i : v2_objects.instances) pipeline.v2().UpsertInstance(std::move(i));
  pipeline.DiscoverClusters();
  if (!a.pd_dir.empty()) {
    if (!std::filesystem::is_directory(a.pd_dir)) return R::Fail(a.pd_dir + ": not a directory");
    FileHttpClient files;
    for (const ClusterKey& key : pipeline.registry().Clusters()) {
      PdClientOptions options;
      options.base_url = "file://" + a.pd_dir + "/" + key.namespace_ + "/" + key.name;
      PdClient client(files, options);
      pipeline.dependencies().OnPdProbe(key, ProbePd(client, now));
    }
  }
  return pods;
}

// The kubectl-like table: every waiting pod (every pod with --all), sorted.
std::vector<std::vector<std::string>> TableRows(std::vector<PodPtr> pods,
                                                const WaitingSnapshot& snapshot, bool wide,
                                                bool all, Timestamp now) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back(
      {"NAMESPACE", "CLUSTER", "POD", "COMPONENT", "STAGE", "CLASS", "REASON", "WAITING"});
  if (wide) rows.back().push_back("EVIDENCE");
  std::map<std::pair<std::string_view, std::string_view>, const WaitingPod*> waiting;
  for (const WaitingPod& w : snapshot.pods) waiting[{w.namespace_, w.pod}] = &w;
  std::sort(pods.begin(), pods.end(), [](const PodPtr& x, const PodPtr& y) {
    return std::tie(x->namespace_, x->cluster, x->name) <
           std::tie(y->namespace_, y->cluster, y->name);
  });
  for (const PodPtr& p : pods) {
    auto it = waiting.find({p->namespace_, p->name});
    const Classification* c = it == waiting.end() ? nullptr : &it->second->classification;
    if (c == nullptr && !all) continue;
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
  return rows;
}

}  // namespace

int RunExplain(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err) {
  Result<ExplainArgs> parsed = ParseExplainArgs(args);
  if (!parsed.ok()) return Usage(err, parsed.error);
  const ExplainArgs& a = *parsed.value;
  if (a.help) {
    out << ExplainUsage();
    return 0;
  }
  Timestamp now = SystemClock::Instance().Now();
  if (!a.now.empty()) {
    auto t = ParseRfc3339(a.now);
    if (!t) return Usage(err, "--now wants an RFC 3339 time like 2024-05-02T10:00:00Z");
    now = *t;
  }

  // Files -> the exporter's pipeline, evaluated once -> a table.
  FakeClock clock(now);
  Pipeline pipeline(a.config, clock);
  Result<std::vector<PodPtr>> pods = LoadInputs(a, in, now, pipeline);
  if (!pods.ok()) {
    err << "podwait-exporter explain: " << pods.error << "\n";
    return 1;
  }
  pipeline.Evaluate(now);
  const std::shared_ptr<const WaitingSnapshot> snapshot = pipeline.Snapshot();

  if (a.output == "json") {
    ViewModel model;
    model.waiting = snapshot;
    model.dependencies = pipeline.dependencies().Snapshot();
    model.synced = true;
    model.now = now;
    out << RenderPodsJson(model, {}) << "\n";
    return 0;
  }
  const auto rows = TableRows(*pods.value, *snapshot, a.output == "wide", a.all, now);
  PrintHolds(pipeline.dependencies().Snapshot(), out);
  if (rows.size() == 1) {
    const size_t n = pods.value->size();
    out << "No waiting pods among " << n << " pod" << (n == 1 ? "" : "s") << ".\n";
    return 0;
  }
  PrintTable(rows, out);
  return 0;
}

}  // namespace podwait
