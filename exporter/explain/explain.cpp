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
#include "exporter/pd/via.h"

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
  bool watch = false;
  Timestamp timeout = 30 * kSecond;
  bool help = false;                    // -h, --help: print the usage and nothing else
  std::vector<std::string> deprecated;  // old flag spellings used, one sentence each
  Config config;
};

using Row = FlagSpec<ExplainArgs>;

// A file flag: -f and the older per-kind flags all add to the same list of inputs, whatever each
// holds (objects are routed by kind).
Row FileFlag(std::string_view name, std::string_view short_name, std::string_view help) {
  Row f{name, FlagKind::kRepeated, help,
        [](ExplainArgs& a, const std::string& v) {
          a.files.push_back(v);
          return std::string();
        },
        [](const ExplainArgs&) { return std::string(); }};
  f.short_name = short_name;
  return f;
}

Row Short(Row f, std::string_view short_name) {
  f.short_name = short_name;
  return f;
}

// One of kubectl's global options, into the exporter's Config (the kube_* fields the endpoint is
// resolved from).
Row KubectlFlag(std::string_view name, std::string_view help, std::string Config::*field) {
  return {name, FlagKind::kString, help,
          [field](ExplainArgs& a, const std::string& v) {
            a.config.*field = v;
            return std::string();
          },
          [field](const ExplainArgs& a) { return a.config.*field; }};
}

// kubectl's --request-timeout: "0" (none), a number of seconds, or a duration ("5s", "1m").
Row RequestTimeoutFlag() {
  return {
      "request-timeout", FlagKind::kString,
      "The length of time to wait before giving up on a single server request (the first "
      "one and each list page). Non-zero values should contain a corresponding time unit "
      "(e.g. 1s, 2m, 3h); a plain number is seconds. 0: --timeout alone.",
      [](ExplainArgs& a, const std::string& v) {
        const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
        std::optional<Timestamp> d = digits ? ParseDuration(v + "s") : ParseDuration(v);
        if (!d || *d < 0) {
          return "expects a duration like 5s or 1m, or a number of seconds, got \"" + v + "\"";
        }
        a.config.kube_request_timeout = *d;
        return std::string();
      },
      [](const ExplainArgs& a) {
        return a.config.kube_request_timeout == 0 ? std::string("0")
                                                  : FormatDuration(a.config.kube_request_timeout);
      }};
}

// explain's own flags and the kubectl options it takes (ExplainUsage lists both).
std::span<const Row> OwnFlags() {
  using A = ExplainArgs;
  static const std::vector<Row> flags = Grouped<A>({
      Heading<A>("Options"),
      Short(BoolFlag("all-namespaces",
                     "If present, list the waiting pods across all namespaces. Namespace in "
                     "current context is ignored even if specified with --namespace.",
                     &A::all_namespaces),
            "-A"),
      FileFlag("filename", "-f",
               "A kubectl dump to read: kubectl get pods,events -o json or -o yaml (any kinds "
               "mixed; \"-\" reads standard input)."),
      Short(StringFlag("label-selector",
                       "Only pods with these labels (a=b,c!=d,e in (x,y),!f), asked of the API "
                       "server with --live.",
                       &A::label_selector),
            "-l"),
      Short(StringFlag("namespace",
                       "Only pods of this namespace (with --live: read only it; default there: "
                       "the kubeconfig context's).",
                       &A::namespace_),
            "-n"),
      Short(StringFlag("output", "Output format: table, wide (adds evidence), name, json or yaml.",
                       &A::output),
            "-o"),
      BoolFlag("no-headers", "No header line and no summary line (table and wide).",
               &A::no_headers),
      BoolFlag("all", "Also list pods that do not wait.", &A::all),
      Short(BoolFlag("watch",
                     "After listing, watch: print each pod's row again when its class, reason "
                     "or stage changes (and when it stops waiting), until interrupted (exit 0).",
                     &A::watch),
            "-w"),
      BoolFlag("live",
               "Read the cluster (the kubectl options below, or in-cluster) instead of files.",
               &A::live),
      DurationFlag("timeout",
                   "With --live: how long the first read may take as a whole (the credential "
                   "plugin, listing, the PD probe).",
                   &A::timeout),
      StringFlag("pd-dir",
                 "PD answers as files: DIR/<namespace>/<cluster>/{health,leader,members,"
                 "cluster_status,stores}.json (curl -s .../pd/api/v1/health > health.json).",
                 &A::pd_dir),
      StringFlag("now", "Classify as of this RFC 3339 time (default: now).", &A::now),
      FileFlag("events", "", "The same as -f (older name)."),
      FileFlag("tidbclusters", "", "The same as -f (older name)."),
      FileFlag("v2-objects", "", "The same as -f (older name)."),
      FileFlag("ca-status", "", "The same as -f (older name)."),
      Heading<A>("Kubectl options"),
      KubectlFlag("kubeconfig", "Path to the kubeconfig file to use for CLI requests.",
                  &Config::kubeconfig),
      KubectlFlag("context", "The name of the kubeconfig context to use.", &Config::kube_context),
      KubectlFlag("cluster", "The name of the kubeconfig cluster to use.", &Config::kube_cluster),
      KubectlFlag("user", "The name of the kubeconfig user to use.", &Config::kube_user),
      Short(KubectlFlag("server", "The address and port of the Kubernetes API server.",
                        &Config::kube_server),
            "-s"),
      KubectlFlag("token", "Bearer token for authentication to the API server.",
                  &Config::kube_token),
      KubectlFlag("certificate-authority", "Path to a cert file for the certificate authority.",
                  &Config::kube_ca_file),
      KubectlFlag("client-certificate", "Path to a client certificate file for TLS.",
                  &Config::kube_client_certificate),
      KubectlFlag("client-key", "Path to a client key file for TLS.", &Config::kube_client_key),
      {"insecure-skip-tls-verify", FlagKind::kBool,
       "If true, the server's certificate will not be checked for validity. This will make your "
       "HTTPS connections insecure.",
       [](A& a, const std::string& v) {
         a.config.kube_insecure_skip_tls_verify = v == "true" || v == "1";
         return v == "true" || v == "1" || v == "false" || v == "0"
                    ? std::string()
                    : "expects true or false, got \"" + v + "\"";
       },
       [](const A& a) {
         return std::string(a.config.kube_insecure_skip_tls_verify ? "true" : "false");
       }},
      RequestTimeoutFlag(),
  });
  return flags;
}

// explain's flags: its own, then the exporter's (the classification and Kubernetes API flags
// apply).
std::span<const Row> ExplainFlags() {
  static const std::vector<Row> flags = [] {
    std::vector<Row> f(OwnFlags().begin(), OwnFlags().end());
    for (auto& c : LiftFlags(ConfigFlags(), &ExplainArgs::config)) f.push_back(std::move(c));
    return f;
  }();
  return flags;
}

constexpr std::string_view kOutputs[] = {"table", "wide", "name", "json", "yaml"};

// What flags cannot check one by one.
std::string CheckArgs(const ExplainArgs& a, const ExplainEnvironment& env) {
  if (!a.live && a.files.empty())
    return "-f FILE is required (\"-\" for standard input), or --live";
  if (a.live && !a.files.empty()) return "--live reads the cluster: no -f";
  if (a.live && !a.pd_dir.empty()) return "--live probes PD: no --pd-dir";
  if (std::count(a.files.begin(), a.files.end(), "-") > 1) {
    return "standard input (-f -) can be read once";
  }
  if (a.all_namespaces && !a.namespace_.empty()) return "-n and -A exclude each other";
  if (std::find(std::begin(kOutputs), std::end(kOutputs), a.output) == std::end(kOutputs)) {
    return "--output must be table, wide, name, json or yaml";
  }
  if (a.watch) {
    if (!a.live) return "-w watches the cluster: with --live, not -f";
    if (a.output == "json" || a.output == "yaml") return "-w prints rows: -o table, wide or name";
    if (!a.now.empty()) return "-w follows the cluster now: no --now";
    if (!env.catch_stop || !env.wait_for_stop) return "-w is not available here";
  }
  return "";
}

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
  a.deprecated = parsed.value->deprecated;
  if (Result<bool> checked = CheckConfig(a.config); !checked.ok()) return R::Fail(checked.error);
  if (!parsed.value->positional.empty()) {
    return R::Fail("unexpected argument \"" + parsed.value->positional[0] + "\"");
  }
  if (std::string e = CheckArgs(a, env); !e.empty()) return R::Fail(e);
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

// One line of the kubectl-like table: its cells and whether it is an expected wait (1), not (0),
// or no wait at all (-1: the header, a pod that does not wait; no colour).
struct TableRow {
  std::vector<std::string> cells;
  int expected = -1;
};

TableRow HeaderRow(bool wide) {
  TableRow r{{"NAMESPACE", "POD", "EXPECTED", "CLASS", "REASON", "WAITING", "STAGE", "COMPONENT",
              "CLUSTER"}};
  if (wide) r.cells.push_back("EVIDENCE");
  return r;
}

// A pod's row; `c` is its verdict, nullptr when it does not wait (REASON is then `not_waiting`).
TableRow PodRow(const PodRecord& p, const Classification* c, bool wide, Timestamp now,
                const std::string& not_waiting = "not waiting") {
  const bool e = c != nullptr && IsExpected(c->wait_class);
  TableRow row{
      {p.namespace_, p.name, c ? (e ? "yes" : "no") : "-",
       c ? std::string(WaitClassName(c->wait_class)) : "-", c ? c->reason : not_waiting,
       c ? FormatDuration(now - c->stage_start) : "-", c ? std::string(StageName(c->stage)) : "-",
       p.component.empty() ? "<none>" : p.component.str(),
       p.cluster.empty() ? "<none>" : p.cluster.str()},
      c ? (e ? 1 : 0) : -1};
  if (wide) row.cells.push_back(c ? EvidenceText(*c, now) : "");
  return row;
}

// Writes rows padded to column widths (by their plain width: colour codes take none). The widths
// are those of the rows fitted so far: -w keeps the first table's, as kubectl get -w does.
class TableWriter {
 public:
  TableWriter(bool one_namespace, bool color) : first_(one_namespace ? 1 : 0), color_(color) {}

  void Fit(const TableRow& row) {
    widths_.resize(std::max(widths_.size(), row.cells.size()));
    for (size_t i = 0; i < row.cells.size(); ++i) {
      widths_[i] = std::max(widths_[i], row.cells[i].size());
    }
  }

  void Write(const TableRow& row, std::ostream& out) const {
    std::string line;
    for (size_t i = first_; i < row.cells.size(); ++i) {
      const std::string& cell = row.cells[i];
      const bool paint = color_ && row.expected >= 0 && (i == 2 || i == 3);
      line += paint ? Paint(cell, row.expected == 1) : cell;
      const size_t width = i < widths_.size() ? widths_[i] : cell.size();
      if (i + 1 < row.cells.size())
        line += std::string(width - std::min(width, cell.size()) + 3, ' ');
    }
    out << line << "\n";
  }

 private:
  const size_t first_;  // 1: without the NAMESPACE column
  const bool color_;
  std::vector<size_t> widths_;
};

// The table of the selected pods (those that wait, or all), fitted and written with `table`.
void PrintTable(const Selection& s, bool wide, bool all, bool headers, Timestamp now,
                TableWriter& table, std::ostream& out) {
  std::vector<TableRow> rows;
  if (headers) rows.push_back(HeaderRow(wide));
  for (const PodPtr& p : s.pods) {
    const Classification* c = WaitingOf(s, *p);
    if (c != nullptr || all) rows.push_back(PodRow(*p, c, wide, now));
  }
  for (const TableRow& r : rows) table.Fit(r);
  for (const TableRow& r : rows) table.Write(r, out);
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

// One line per cluster whose PD is not its own (a heterogeneous cluster, PD in another
// Kubernetes): its verdicts read that PD, or say unknown where it cannot be asked.
void PrintPdSources(const std::map<ClusterKey, ClusterDependencies>& clusters, std::ostream& out) {
  for (const auto& [key, deps] : clusters) {
    if (deps.pd_source.empty()) continue;
    out << "Cluster " << key.Key() << ": " << deps.pd_source << "; pd "
        << ReadinessName(deps.pd.readiness);
    if (deps.pd.reason != DependencyReason::kNone) {
      out << " (" << DependencyReasonName(deps.pd.reason) << ")";
    }
    out << "\n";
  }
}

// One line under the summary when the API server refused PD's service proxy (--pd.via): the
// verdicts of those clusters come from the objects alone, and what to grant to see PD.
void PrintPdNotReachable(const std::map<ClusterKey, ClusterDependencyView>& views,
                         std::ostream& out) {
  std::vector<std::string> refused;
  std::vector<std::string> namespaces;  // in order, once each (the views are sorted by key)
  for (const auto& [key, view] : views) {
    if (!view.pd || view.pd->not_reachable_from_here.empty()) continue;
    refused.push_back(key.Key());
    if (namespaces.empty() || namespaces.back() != key.namespace_) {
      namespaces.push_back(key.namespace_);
    }
  }
  if (refused.empty()) return;
  // The first three, then "...".
  const auto first_three = [](const std::vector<std::string>& all) {
    std::string list;
    for (size_t i = 0; i < all.size() && i < 3; ++i) list += (i ? ", " : "") + all[i];
    return all.size() > 3 ? list + ", ..." : list;
  };
  out << "PD not reachable from here for " << refused.size() << " cluster"
      << (refused.size() == 1 ? "" : "s") << " (" << first_three(refused)
      << "): the API server refuses get on services/proxy; their verdicts come from the objects "
         "alone. Grant it"
      << (namespaces.size() == 1 ? "" : " in each namespace (" + first_three(namespaces) + ")")
      << ": " << ServiceProxyGrant(namespaces.size() == 1 ? namespaces[0] : "<namespace>") << "\n";
}

int Print(const ExplainArgs& a, const Selection& s, const Pipeline& pipeline, Timestamp now,
          TableWriter& table, std::ostream& out) {
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
    if (!a.no_headers) {
      const std::map<ClusterKey, ClusterDependencies> clusters = pipeline.dependencies().Snapshot();
      PrintHolds(clusters, out);
      PrintPdSources(clusters, out);
    }
    // -w prints its header even before the first waiting pod, as kubectl get -w does.
    if (any || a.watch) {
      PrintTable(s, a.output == "wide", a.all, !a.no_headers, now, table, out);
    }
    if (!a.no_headers && !a.watch) out << Summary(s) << "\n";
    // Also under -w (which has no summary): why PD's answers are missing stays in sight.
    if (!a.no_headers) PrintPdNotReachable(pipeline.dependencies().Views(), out);
  }
  return ExitCode(s);
}

// -w: what was last printed of each selected pod: its verdict ("" when it does not wait) and row.
struct Shown {
  std::string verdict;
  TableRow row;
};
using ShownPods = std::map<std::pair<std::string, std::string>, Shown>;

std::string VerdictOf(const Classification* c) {
  if (c == nullptr) return "";
  return std::string(WaitClassName(c->wait_class)) + "/" + c->reason + "/" +
         std::string(StageName(c->stage));
}

// Prints the rows of the pods whose verdict changed since `shown` (a pod that stopped waiting as
// "not waiting", one that is gone as "deleted"), and records them. Table rows, or names.
void PrintChanges(const ExplainArgs& a, const Selection& s, Timestamp now, const TableWriter& table,
                  ShownPods* shown, std::ostream& out) {
  const bool wide = a.output == "wide";
  const auto emit = [&](const TableRow& row) {
    if (a.output == "name") {
      out << "pod/" << row.cells[1] << "\n";
    } else {
      table.Write(row, out);
    }
  };
  std::set<std::pair<std::string, std::string>> present;
  for (const PodPtr& p : s.pods) {
    const Classification* c = WaitingOf(s, *p);
    const auto key = std::make_pair(p->namespace_, p->name);
    present.insert(key);
    const std::string verdict = VerdictOf(c);
    auto it = shown->find(key);
    const bool was_shown = it != shown->end() && (!it->second.verdict.empty() || a.all);
    if (it != shown->end() && it->second.verdict == verdict) continue;
    TableRow row = PodRow(*p, c, wide, now);
    if (!verdict.empty() || a.all || was_shown) emit(row);
    (*shown)[key] = {verdict, std::move(row)};
  }
  for (auto it = shown->begin(); it != shown->end();) {
    if (present.count(it->first) != 0) {
      ++it;
      continue;
    }
    if (!it->second.verdict.empty() || a.all) {
      TableRow row = it->second.row;
      for (size_t i : {2, 3, 5, 6}) row.cells[i] = "-";
      row.cells[4] = "deleted";
      if (wide) row.cells.back().clear();
      row.expected = -1;
      emit(row);
    }
    it = shown->erase(it);
  }
  out.flush();
}

// -w after the first table: evaluates again every watch_interval and prints what changed, until
// the user stops it (exit 0).
int Watch(const ExplainArgs& a, const ExplainEnvironment& env, LiveRead& live, Pipeline& pipeline,
          const Selection& first, const TableWriter& table, std::ostream& out) {
  ShownPods shown;
  for (const PodPtr& p : first.pods) {
    const Classification* c = WaitingOf(first, *p);
    shown[{p->namespace_, p->name}] = {VerdictOf(c), PodRow(*p, c, a.output == "wide", 0)};
  }
  out.flush();
  while (!env.wait_for_stop(env.watch_interval)) {
    live.Refresh(pipeline);
    const Timestamp now = SystemClock::Instance().Now();
    pipeline.Evaluate(now);
    const Selection s = Select(pipeline, *pipeline.Snapshot(), a.namespace_, live.Selected());
    PrintChanges(a, s, now, table, &shown, out);
  }
  return 0;
}

// --live: the cluster into `pipeline` (and kept there with -w). Sets a.namespace_ to the
// context's when that is what was read.
Result<std::unique_ptr<LiveRead>> ReadLive(ExplainArgs& a, const ExplainEnvironment& env,
                                           Pipeline& pipeline) {
  if (!a.namespace_.empty()) a.config.namespaces = {a.namespace_};
  if (a.all_namespaces) a.config.namespaces.clear();
  LiveRequest request;
  request.context_namespace =
      a.namespace_.empty() && !a.all_namespaces && a.config.namespaces.empty();
  request.label_selector = a.label_selector;
  request.timeout = a.timeout;
  request.watch = a.watch;
  if (a.watch) env.catch_stop();
  Result<std::unique_ptr<LiveRead>> read = env.live(&a.config, request, pipeline);
  if (read.ok() && request.context_namespace && a.config.namespaces.size() == 1) {
    a.namespace_ = a.config.namespaces[0];
  }
  return read;
}

// -f: the dumps into `pipeline`; the pods -l selects (nullopt without -l). Skipped kinds are
// named on `err`.
Result<std::optional<PodKeys>> ReadFiles(const ExplainArgs& a, const Selector& selector,
                                         Timestamp now, std::istream& in, Pipeline& pipeline,
                                         const ExplainEnvironment& env, std::ostream& err) {
  using R = Result<std::optional<PodKeys>>;
  Result<FileInputs> loaded = LoadFiles(a.files, in, a.config, selector, pipeline);
  if (!loaded.ok()) return R::Fail(loaded.error);
  if (!loaded.value->skipped.empty()) {
    std::string kinds;
    for (const auto& [kind, n] : loaded.value->skipped) {
      kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
    }
    err << env.program << ": skipped objects of kinds it does not read: " << kinds << "\n";
  }
  if (!a.pd_dir.empty()) {
    if (Result<bool> probed = ProbePdFromFiles(a.pd_dir, now, pipeline); !probed.ok()) {
      return R::Fail(probed.error);
    }
  }
  if (a.label_selector.empty()) return R::Ok(std::nullopt);
  return R::Ok(std::move(loaded.value->selected));
}

}  // namespace

bool UseColor(bool stdout_is_terminal, const char* no_color) {
  return stdout_is_terminal && (no_color == nullptr || no_color[0] == '\0');
}

std::string ExplainUsage(const ExplainEnvironment& env) {
  const std::string& p = env.program;
  std::string usage;
  if (env.live_by_default) {
    usage =
        "Why the pods of the cluster wait, as podwait's exporter says it: lists what the "
        "exporter lists\n(with its client and RBAC), probes PD once, and prints one row per "
        "waiting pod.\n\nExamples:\n  # The waiting pods of the kubeconfig context's "
        "namespace\n  " +
        p + "\n\n  # Every namespace, with the evidence\n  " + p +
        " -A -o wide\n\n  # Another API server, as kubectl's flags say\n  " + p +
        " --context prod -n tidb\n  " + p +
        " -s https://10.0.0.1:6443 --token \"$TOKEN\" -A\n\n"
        "  # Print each row again as its class changes, until Ctrl-C\n  " +
        p + " -n tidb -w\n\n";
  } else {
    usage =
        "Why pods wait, with the exporter's classifier: from kubectl dumps (kubectl get "
        "pods,events -A\n-o json or -o yaml; TidbClusters, tidb-operator v2 objects and the "
        "cluster-autoscaler status\nConfigMap may be in them too) or, with --live, from the "
        "cluster once (-w: and then as it changes).\n\nExamples:\n  kubectl get "
        "pods,events -A -o json | " +
        p + " -f -\n  " + p + " --live -A -o wide\n\n";
  }
  // The plugin reads the cluster: the rows about files are left out of its help.
  std::vector<Row> rows;
  for (const Row& r : OwnFlags()) {
    constexpr std::string_view kOffline[] = {"filename", "live",         "pd-dir",     "now",
                                             "events",   "tidbclusters", "v2-objects", "ca-status"};
    const bool offline =
        std::find(std::begin(kOffline), std::end(kOffline), r.name) != std::end(kOffline);
    if (!env.live_by_default || !offline) rows.push_back(r);
  }
  usage += FlagTableUsage(std::span<const Row>(rows), ExplainArgs{}, FlagHelpStyle::kKubectl);
  usage += "Usage:\n  " + p +
           (env.live_by_default ? " [-n NAMESPACE | -A] [-l SELECTOR] [-o wide|name|json|yaml] [-w]"
                                : " (-f DUMP [-f DUMP...] | --live [-w]) [-n NAMESPACE | -A] "
                                  "[-l SELECTOR] [-o wide|name|json|yaml]") +
           " [flags] [options]\n\n"
           "Exit codes: 0 no selected pod waits on a real problem (every wait is expected; -w "
           "stopped with Ctrl-C),\n1 at least one does, 2 bad usage or input that cannot be read "
           "(the API server not reached, no pods in a dump).\n\n"
           "The exporter's flags apply too (podwait-exporter --help): --pd.url-template, "
           "--autoscaler, --selector,\n--dependency.*, --label.*, --kube.api-url, ...\n";
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
  for (const std::string& note : a.deprecated) err << env.program << ": " << note << "\n";
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
  std::unique_ptr<LiveRead> live;
  if (a.live) {
    Result<std::unique_ptr<LiveRead>> read = ReadLive(a, env, pipeline);
    if (!read.ok()) {
      err << env.program << ": " << read.error << "\n";
      return 2;
    }
    live = std::move(*read.value);
    selected = live->Selected();
    if (a.now.empty()) now = SystemClock::Instance().Now();
  } else {
    Result<std::optional<PodKeys>> read =
        ReadFiles(a, *selector.value, now, in, pipeline, env, err);
    if (!read.ok()) {
      err << env.program << ": " << read.error << "\n";
      return 2;
    }
    selected = std::move(*read.value);
  }
  pipeline.Evaluate(now);
  const Selection s = Select(pipeline, *pipeline.Snapshot(), a.namespace_, selected);
  TableWriter table(s.one_namespace, env.color);
  const int code = Print(a, s, pipeline, now, table, out);
  out.flush();  // before the live read stops, which takes up to a second
  if (!a.watch) return code;
  return Watch(a, env, *live, pipeline, s, table, out);
}

}  // namespace podwait
