#include "exporter/explain/explain.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

#include "exporter/common/flag_table.h"
#include "exporter/common/selector.h"
#include "exporter/common/time_format.h"
#include "exporter/config/flags.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/explain/inputs.h"
#include "exporter/explain/yaml_json.h"
#include "exporter/http/views.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

struct ExplainArgs {
  std::vector<std::string> files;
  std::string pd_dir;
  std::string namespace_;
  bool all_namespaces = false;
  std::string label_selector;
  std::string output = "table";
  bool no_headers = false;
  bool all = false;
  std::string now;
  bool live = false;
  Timestamp timeout = 30 * kSecond;
  bool help = false;  // -h, --help: print the usage and nothing else
  Config config;
};

// A file flag: -f and the older per-kind flags all add to the same list of inputs, whatever each
// holds (objects are routed by kind).
FlagSpec<ExplainArgs> FileFlag(std::string_view name, std::string_view short_name,
                               std::string_view help) {
  FlagSpec<ExplainArgs> f{name, FlagKind::kRepeated, help,
                          [](ExplainArgs& a, const std::string& v) {
                            a.files.push_back(v);
                            return std::string();
                          },
                          [](const ExplainArgs&) { return std::string(); }};
  f.short_name = short_name;
  return f;
}

FlagSpec<ExplainArgs> Short(FlagSpec<ExplainArgs> f, std::string_view short_name) {
  f.short_name = short_name;
  return f;
}

// explain's own flags (ExplainUsage lists them).
std::span<const FlagSpec<ExplainArgs>> OwnFlags() {
  using A = ExplainArgs;
  static const std::vector<FlagSpec<A>> flags = {
      FileFlag("filename", "-f",
               "a kubectl dump to read: kubectl get pods,events -o json or -o yaml (any kinds "
               "mixed; \"-\" reads standard input)"),
      Short(StringFlag("namespace",
                       "only pods of this namespace (with --live: read only it; "
                       "default there: the kubeconfig context's)",
                       &A::namespace_),
            "-n"),
      Short(BoolFlag("all-namespaces", "pods of every namespace", &A::all_namespaces), "-A"),
      Short(StringFlag("label-selector",
                       "only pods with these labels (kubectl's -l: a=b,c!=d,e in (x,y),!f)",
                       &A::label_selector),
            "-l"),
      Short(StringFlag("output", "table, wide (adds evidence), name, json or yaml", &A::output),
            "-o"),
      BoolFlag("no-headers", "no header line and no summary line (table and wide)", &A::no_headers),
      BoolFlag("all", "also list pods that do not wait", &A::all),
      BoolFlag("live",
               "read the cluster (--kubeconfig, --kube.context, --kube.api-url or in-cluster) "
               "instead of files",
               &A::live),
      DurationFlag("timeout", "with --live: how long listing and the PD probe may take",
                   &A::timeout),
      {"context", FlagKind::kString, "with --live: the kubeconfig context (as --kube.context)",
       [](A& a, const std::string& v) {
         a.config.kube_context = v;
         return std::string();
       },
       [](const A& a) { return a.config.kube_context; }},
      FileFlag("events", "", "the same as -f (older name)"),
      FileFlag("tidbclusters", "", "the same as -f (older name)"),
      FileFlag("v2-objects", "", "the same as -f (older name)"),
      FileFlag("ca-status", "", "the same as -f (older name)"),
      StringFlag("pd-dir",
                 "PD answers as files: DIR/<namespace>/<cluster>/{health,leader,members,"
                 "cluster_status,stores}.json (curl -s .../pd/api/v1/health > health.json)",
                 &A::pd_dir),
      StringFlag("now", "classify as of this RFC 3339 time (default: now)", &A::now),
  };
  return flags;
}

// explain's flags: its own, then the exporter's (the classification and Kubernetes API flags
// apply).
std::span<const FlagSpec<ExplainArgs>> ExplainFlags() {
  static const std::vector<FlagSpec<ExplainArgs>> flags = [] {
    std::vector<FlagSpec<ExplainArgs>> f(OwnFlags().begin(), OwnFlags().end());
    for (auto& c : LiftFlags(ConfigFlags(), &ExplainArgs::config)) f.push_back(std::move(c));
    return f;
  }();
  return flags;
}

constexpr std::string_view kOutputs[] = {"table", "wide", "name", "json", "yaml"};

// The command line of explain, checked.
Result<ExplainArgs> ParseExplainArgs(const std::vector<std::string>& args,
                                     const ExplainEnvironment& env) {
  using R = Result<ExplainArgs>;
  ExplainArgs a;
  a.live = env.live_by_default;
  Result<ParsedFlags> parsed = ParseFlagTable(ExplainFlags(), args, &a);
  if (!parsed.ok()) return R::Fail(parsed.error);
  if (parsed.value->action != FlagAction::kRun) {
    a.help = true;
    return R::Ok(std::move(a));
  }
  if (Result<bool> checked = CheckConfig(a.config); !checked.ok()) return R::Fail(checked.error);
  if (!parsed.value->positional.empty()) {
    return R::Fail("unexpected argument \"" + parsed.value->positional[0] + "\"");
  }
  if (!a.live && a.files.empty()) {
    return R::Fail("-f FILE is required (\"-\" for standard input), or --live");
  }
  if (a.live && !a.files.empty()) return R::Fail("--live reads the cluster: no -f");
  if (a.live && !a.pd_dir.empty()) return R::Fail("--live probes PD: no --pd-dir");
  if (std::count(a.files.begin(), a.files.end(), "-") > 1) {
    return R::Fail("standard input (-f -) can be read once");
  }
  if (a.all_namespaces && !a.namespace_.empty()) {
    return R::Fail("-n and -A exclude each other");
  }
  if (std::find(std::begin(kOutputs), std::end(kOutputs), a.output) == std::end(kOutputs)) {
    return R::Fail("--output must be table, wide, name, json or yaml");
  }
  return R::Ok(std::move(a));
}

int Usage(std::ostream& err, const ExplainEnvironment& env, const std::string& message) {
  err << env.program << ": error: " << message << "\n(see " << env.program << " --help)\n";
  return 2;
}

// What is shown: the selected pods (namespace, labels), in kubectl's order.
struct Selection {
  std::vector<PodPtr> pods;  // selected, sorted by namespace, name
  std::map<std::pair<std::string_view, std::string_view>, const WaitingPod*> waiting;
  bool one_namespace = false;  // the NAMESPACE column is left out
  std::string namespace_;      // that namespace
};

Selection Select(Pipeline& pipeline, const WaitingSnapshot& snapshot, const std::string& namespace_,
                 const std::optional<PodKeys>& selected) {
  Selection s;
  s.one_namespace = !namespace_.empty();
  s.namespace_ = namespace_;
  for (PodPtr& p : pipeline.pods().Snapshot()) {
    if (!namespace_.empty() && p->namespace_ != namespace_) continue;
    if (selected && selected->count({p->namespace_, p->name}) == 0) continue;
    s.pods.push_back(std::move(p));
  }
  std::sort(s.pods.begin(), s.pods.end(), [](const PodPtr& x, const PodPtr& y) {
    return std::tie(x->namespace_, x->name) < std::tie(y->namespace_, y->name);
  });
  for (const WaitingPod& w : snapshot.pods) s.waiting[{w.namespace_, w.pod}] = &w;
  return s;
}

const Classification* WaitingOf(const Selection& s, const PodRecord& p) {
  auto it = s.waiting.find({p.namespace_, p.name});
  return it == s.waiting.end() ? nullptr : &it->second->classification;
}

// ANSI colours for the EXPECTED and CLASS cells.
std::string Paint(const std::string& text, bool expected) {
  return std::string(expected ? "\033[32m" : "\033[31m") + text + "\033[0m";
}

// The kubectl-like table. Columns are padded by their plain width (colour codes take none).
void PrintTable(const Selection& s, bool wide, bool all, bool headers, bool color, Timestamp now,
                std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  std::vector<int> expected;  // per row: 1 expected, 0 not, -1 not waiting (no colour)
  if (headers) {
    rows.push_back({"NAMESPACE", "POD", "EXPECTED", "CLASS", "REASON", "WAITING", "STAGE",
                    "COMPONENT", "CLUSTER"});
    if (wide) rows.back().push_back("EVIDENCE");
    expected.push_back(-1);
  }
  for (const PodPtr& p : s.pods) {
    const Classification* c = WaitingOf(s, *p);
    if (c == nullptr && !all) continue;
    const bool e = c != nullptr && IsExpected(c->wait_class);
    std::vector<std::string> row = {p->namespace_,
                                    p->name,
                                    c ? (e ? "yes" : "no") : "-",
                                    c ? std::string(WaitClassName(c->wait_class)) : "-",
                                    c ? c->reason : "not waiting",
                                    c ? FormatDuration(now - c->stage_start) : "-",
                                    c ? std::string(StageName(c->stage)) : "-",
                                    p->component.empty() ? "<none>" : p->component.str(),
                                    p->cluster.empty() ? "<none>" : p->cluster.str()};
    if (wide) row.push_back(c ? EvidenceText(*c, now) : "");
    rows.push_back(std::move(row));
    expected.push_back(c ? (e ? 1 : 0) : -1);
  }
  const size_t first = s.one_namespace ? 1 : 0;  // without the NAMESPACE column
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t i = first; i < rows[r].size(); ++i) {
      const std::string& cell = rows[r][i];
      const bool paint = color && expected[r] >= 0 && (i == 2 || i == 3);
      line += paint ? Paint(cell, expected[r] == 1) : cell;
      if (i + 1 < rows[r].size()) line += std::string(widths[i] - cell.size() + 3, ' ');
    }
    out << line << "\n";
  }
}

// "7 pods, 3 waiting: 1 needs attention (capacity 1), 2 expected (dependency 2)".
std::string Summary(const Selection& s) {
  std::map<std::string_view, size_t> attention, expected;
  size_t waiting = 0;
  for (const PodPtr& p : s.pods) {
    const Classification* c = WaitingOf(s, *p);
    if (c == nullptr) continue;
    ++waiting;
    ++(IsExpected(c->wait_class) ? expected : attention)[WaitClassName(c->wait_class)];
  }
  const size_t n = s.pods.size();
  const std::string where = s.one_namespace ? " in namespace " + s.namespace_ : "";
  if (waiting == 0) {
    return "No waiting pods among " + std::to_string(n) + " pod" + (n == 1 ? "" : "s") + where +
           ".";
  }
  const auto part = [](const std::map<std::string_view, size_t>& by, const char* one,
                       const char* many) {
    size_t total = 0;
    std::string list;
    for (const auto& [cls, k] : by) {
      total += k;
      list += (list.empty() ? "" : ", ") + std::string(cls) + " " + std::to_string(k);
    }
    return std::to_string(total) + " " + (total == 1 ? one : many) +
           (list.empty() ? "" : " (" + list + ")");
  };
  return std::to_string(n) + " pod" + (n == 1 ? "" : "s") + where + ", " + std::to_string(waiting) +
         " waiting: " + part(attention, "needs attention", "need attention") + ", " +
         part(expected, "expected", "expected") + ".";
}

// The JSON of GET /api/v1/pods for the selected pods.
std::string SelectedJson(const Selection& s, const WaitingSnapshot& snapshot,
                         const Pipeline& pipeline, Timestamp now) {
  auto filtered = std::make_shared<WaitingSnapshot>(snapshot);
  filtered->pods = WaitingPods();
  for (const WaitingPod& w : snapshot.pods) {
    for (const PodPtr& p : s.pods) {
      if (p->namespace_ == w.namespace_ && p->name == w.pod) {
        filtered->pods.push_back(w);
        break;
      }
    }
  }
  ViewModel model;
  model.waiting = filtered;
  model.dependencies = pipeline.dependencies().Snapshot();
  model.synced = true;
  model.now = now;
  model.evaluated_at = now;
  PodFilter filter;
  filter.namespace_ = s.namespace_;
  return RenderPodsJson(model, filter);
}

// Exit code 1 when a selected pod waits on a real problem.
int ExitCode(const Selection& s) {
  for (const PodPtr& p : s.pods) {
    const Classification* c = WaitingOf(s, *p);
    if (c != nullptr && !IsExpected(c->wait_class)) return 1;
  }
  return 0;
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

int Print(const ExplainArgs& a, const Selection& s, const Pipeline& pipeline, bool color,
          Timestamp now, std::ostream& out) {
  const std::shared_ptr<const WaitingSnapshot> snapshot = pipeline.Snapshot();
  if (a.output == "json" || a.output == "yaml") {
    const std::string json = SelectedJson(s, *snapshot, pipeline, now);
    if (a.output == "json") {
      out << json << "\n";
    } else {
      rapidjson::Document d;
      d.Parse(json.c_str(), json.size());
      out << JsonToYaml(d);
    }
  } else if (a.output == "name") {
    for (const PodPtr& p : s.pods) {
      if (a.all || WaitingOf(s, *p) != nullptr) out << "pod/" << p->name << "\n";
    }
  } else {
    const bool any = std::any_of(s.pods.begin(), s.pods.end(), [&](const PodPtr& p) {
      return a.all || WaitingOf(s, *p) != nullptr;
    });
    if (!a.no_headers) PrintHolds(pipeline.dependencies().Snapshot(), out);
    if (any) PrintTable(s, a.output == "wide", a.all, !a.no_headers, color, now, out);
    if (!a.no_headers) out << Summary(s) << "\n";
  }
  return ExitCode(s);
}

}  // namespace

bool UseColor(bool stdout_is_terminal, const char* no_color) {
  return stdout_is_terminal && (no_color == nullptr || no_color[0] == '\0');
}

std::string ExplainUsage(const ExplainEnvironment& env) {
  std::string usage;
  if (env.live_by_default) {
    usage =
        "usage: " + env.program +
        " [-n NAMESPACE | -A] [-l SELECTOR] [-o wide|name|json|yaml] [flags]\n\n"
        "Why the pods of the cluster wait, as podwait's exporter would say: lists what the "
        "exporter\nlists (with its client and RBAC) and probes PD once, then prints one row per "
        "waiting pod.\nDefault namespace: the kubeconfig context's.\n\n";
  } else {
    usage = "usage: " + env.program +
            " -f DUMP [-f DUMP...] | --live  [-n NAMESPACE | -A] [-l SELECTOR] [flags]\n\n"
            "Why pods wait, with the exporter's classifier: from kubectl dumps (kubectl get "
            "pods,events -A\n-o json or -o yaml; TidbClusters, tidb-operator v2 objects and the "
            "cluster-autoscaler status\nConfigMap may be in them too) or, with --live, from the "
            "cluster once.\n\n";
  }
  usage += FlagTableUsage(OwnFlags(), ExplainArgs{});
  usage +=
      "\nThe exporter's flags apply too (podwait-exporter --help): --kubeconfig, "
      "--kube.context,\n--kube.api-url, --pd.url-template, --autoscaler, --dependency.*, "
      "--label.*, --selector, ...\n\n"
      "Exit codes: 0 no selected pod waits on a real problem (every wait is expected), 1 at least "
      "one\ndoes, 2 bad usage or input that cannot be read.\n";
  return usage;
}

int RunExplain(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err, const ExplainEnvironment& env) {
  Result<ExplainArgs> parsed = ParseExplainArgs(args, env);
  if (!parsed.ok()) return Usage(err, env, parsed.error);
  ExplainArgs& a = *parsed.value;
  if (a.help) {
    out << ExplainUsage(env);
    return 0;
  }
  Result<Selector> selector = Selector::ParseLabels(a.label_selector);
  if (!selector.ok()) return Usage(err, env, selector.error);
  Timestamp now = SystemClock::Instance().Now();
  if (!a.now.empty()) {
    auto t = ParseRfc3339(a.now);
    if (!t) return Usage(err, env, "--now wants an RFC 3339 time like 2024-05-02T10:00:00Z");
    now = *t;
  }
  if (a.live && !env.live) return Usage(err, env, "--live is not available here");

  // Files or the cluster -> the exporter's pipeline, evaluated once -> the answer.
  FakeClock fixed(now);
  const Clock& clock = a.live ? static_cast<const Clock&>(SystemClock::Instance()) : fixed;
  Pipeline pipeline(a.config, clock);
  std::optional<PodKeys> selected;
  if (a.live) {
    if (!a.namespace_.empty()) a.config.namespaces = {a.namespace_};
    if (a.all_namespaces) a.config.namespaces.clear();
    const bool context_namespace =
        a.namespace_.empty() && !a.all_namespaces && a.config.namespaces.empty();
    Result<std::optional<PodKeys>> read =
        env.live(&a.config, context_namespace, a.label_selector, a.timeout, pipeline);
    if (!read.ok()) {
      err << env.program << ": " << read.error << "\n";
      return 2;
    }
    selected = std::move(*read.value);
    if (context_namespace && a.config.namespaces.size() == 1) a.namespace_ = a.config.namespaces[0];
    if (a.now.empty()) now = SystemClock::Instance().Now();
  } else {
    Result<FileInputs> loaded = LoadFiles(a.files, in, a.config, *selector.value, pipeline);
    if (!loaded.ok()) {
      err << env.program << ": " << loaded.error << "\n";
      return 2;
    }
    if (!a.label_selector.empty()) selected = loaded.value->selected;
    if (!loaded.value->skipped.empty()) {
      std::string kinds;
      for (const auto& [kind, n] : loaded.value->skipped) {
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
      }
      err << env.program << ": skipped objects of kinds it does not read: " << kinds << "\n";
    }
    if (!a.pd_dir.empty()) {
      if (Result<bool> probed = ProbePdFromFiles(a.pd_dir, now, pipeline); !probed.ok()) {
        err << env.program << ": " << probed.error << "\n";
        return 2;
      }
    }
  }
  pipeline.Evaluate(now);
  const Selection s = Select(pipeline, *pipeline.Snapshot(), a.namespace_, selected);
  return Print(a, s, pipeline, env.color, now, out);
}

}  // namespace podwait
