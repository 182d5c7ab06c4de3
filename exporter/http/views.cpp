#include "exporter/http/views.h"

#include <openssl/evp.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "exporter/common/base64.h"
#include "exporter/common/markdown.h"
#include "exporter/common/time_format.h"
#include "exporter/common/utf8.h"

namespace podwait {
namespace {

Timestamp EvaluatedAt(const ViewModel& model) {
  if (model.evaluated_at > 0) return model.evaluated_at;
  return model.waiting ? model.waiting->evaluated_at : 0;
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Every string value of the JSON view goes through here: RapidJSON's writer copies bytes as they
// are, so invalid UTF-8 is replaced first.
void Key(JsonWriter& w, const char* key, std::string_view value) {
  w.Key(key);
  std::string repaired;
  value = ValidUtf8(value, &repaired, Utf8Output::kJson);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void WriteDependency(JsonWriter& w, const DependencyStatus& d) {
  w.StartObject();
  Key(w, "readiness", ReadinessName(d.readiness));
  if (d.ready_since > 0) Key(w, "readySince", FormatRfc3339(d.ready_since));
  if (d.reason != DependencyReason::kNone) Key(w, "reason", DependencyReasonName(d.reason));
  w.EndObject();
}

// Every cluster that has waiting pods or known dependencies, in order.
std::set<ClusterKey> AllClusters(const ViewModel& m) {
  std::set<ClusterKey> clusters;
  for (const auto& [k, _] : m.dependencies) clusters.insert(k);
  if (m.waiting) {
    for (const auto& p : m.waiting->pods) clusters.insert(ClusterKey{p.namespace_, p.cluster});
  }
  return clusters;
}

constexpr const char* kStyle = R"(
:root{--bg:#f6f6f9;--fg:#1d1d22;--muted:#686874;--card:#fff;--line:#e2e2e8;--chip:#eef0f5;
--ok:#1f8a4c;--warn:#a35f00;--bad:#c62828;--calm:#2f6db5;--badbg:#fdeceb}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#e8e8ee;--muted:#a0a0ac;--card:#1f1f25;--line:#34343d;--chip:#2a2a32;--badbg:#3a1f1f}}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--calm)}
header{padding:10px 18px 8px;background:var(--card);border-bottom:1px solid var(--line)}
header .top{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:baseline}
header h1{font-size:18px;margin:0}.meta{color:var(--muted);font-size:13px}
.summary{font-size:20px;font-weight:600;margin:6px 0 4px}.summary .bad{color:var(--bad)}.summary .calm{color:var(--calm)}
.summary .ok{color:var(--ok)}.filters{font-size:13px;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.chip{display:inline-block;border-radius:999px;padding:1px 9px;background:var(--chip);text-decoration:none;color:var(--fg);white-space:nowrap}
.chip.bad{color:var(--bad)}.chip.on{outline:2px solid var(--calm)}
main{padding:10px 18px;max-width:1280px}
h2.part{font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:14px 0 6px}
section.cluster{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:0 0 10px}
section.attention{border-left:4px solid var(--bad)}
.head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
.head h3{font-size:16px;margin:0}.head h3 a{color:inherit;text-decoration:none}.head h3 a:hover{text-decoration:underline}
.deps{display:flex;flex-wrap:wrap;gap:6px;font-size:12.5px}
.dep{border-radius:999px;padding:0 8px;border:1px solid var(--line)}
.dep.ready{color:var(--ok)}.dep.not_ready{color:var(--bad)}.dep.unknown{color:var(--warn)}
h4{font-size:14px;margin:8px 0 2px;display:flex;flex-wrap:wrap;gap:2px 10px;align-items:baseline}
h4 .tag{font-weight:normal;font-size:12.5px;color:var(--bad)}h4 a{font-weight:normal;font-size:12.5px}
details{margin:4px 0}summary{cursor:pointer;font-size:14px}summary .tag{color:var(--calm)}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th:nth-child(1){width:19%}th:nth-child(2){width:8%}th:nth-child(3){width:9%}th:nth-child(4){width:16%}th:nth-child(5){width:8%}
td.pod{overflow-wrap:anywhere}td,th{text-align:left;padding:3px 8px;border-top:1px solid var(--line);vertical-align:top;font-size:13.5px}
th{color:var(--muted);font-weight:600;font-size:11.5px;text-transform:uppercase;letter-spacing:.03em}
td.evidence{color:var(--muted);font-size:12.5px;word-break:break-word}td.pod{font-weight:500}
.none{color:var(--muted)}.empty{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--chip);padding:0 4px;border-radius:4px}
.quiet{font-size:13px;color:var(--muted)}.quiet a{color:var(--muted)}
footer{padding:8px 18px 24px;font-size:12.5px;color:var(--muted)}
@media (max-width:700px){main,header,footer{padding-left:10px;padding-right:10px}
thead{display:none}table,tbody,tr,td{display:block}tr{padding:5px 0;border-top:1px solid var(--line)}
td{border:0;padding:0}td.component,td.stage{display:none}td.pod,td.reason,td.waiting{display:inline;margin-right:8px}
td.reason{color:var(--warn)}td.evidence{margin-top:2px}.summary{font-size:18px}}
)";
}  // namespace

bool PodFilter::MatchesCluster(const ClusterKey& k) const {
  if (!namespace_.empty() && k.namespace_ != namespace_) return false;
  if (!cluster.empty() && k.name != cluster && TidbClusterLabel(k.namespace_, k.name) != cluster) {
    return false;
  }
  return wait_class.empty();  // a class filter shows the clusters that have pods of it only
}

PodFilter PodFilter::FromQuery(const std::map<std::string, std::string>& query) {
  PodFilter f;
  for (const auto& [key, value] : query) {
    if (key == "namespace") {
      f.namespace_ = value;
    } else if (key == "cluster") {
      f.cluster = value;
    } else if (key == "class") {
      f.wait_class = value;
    }
  }
  return f;
}

bool PodFilter::Matches(const WaitingPod& p) const {
  if (!namespace_.empty() && p.namespace_ != namespace_) return false;
  if (!cluster.empty() && p.cluster != cluster && p.tidb_cluster != cluster) return false;
  if (!wait_class.empty() && WaitClassName(p.classification.wait_class) != wait_class) return false;
  return true;
}

Result<PodFilter> ParsePodFilter(const std::map<std::string, std::string>& query) {
  using R = Result<PodFilter>;
  for (const auto& [key, value] : query) {
    if (key == "class" && !value.empty() && !ParseWaitClass(value)) {
      std::string error = "unknown class \"" + value + "\" (known:";
      for (const ClassInfo& c : kClasses) error += " " + std::string(c.name);
      return R::Fail(error + ")");
    }
    if (key != "namespace" && key != "cluster" && key != "class") {
      return R::Fail("unknown parameter \"" + key + "\" (known: namespace, cluster, class)");
    }
  }
  return R::Ok(PodFilter::FromQuery(query));
}

std::string RenderPodsJson(const ViewModel& model, const PodFilter& filter) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (const Timestamp at = EvaluatedAt(model); at > 0) {
    Key(w, "evaluatedAt", FormatRfc3339(at));
  }
  w.Key("synced");
  w.Bool(model.synced);
  w.Key("pods");
  w.StartArray();
  if (model.waiting) {
    for (const WaitingPod& p : model.waiting->pods) {
      if (!filter.Matches(p)) continue;
      const Classification& c = p.classification;
      w.StartObject();
      Key(w, "namespace", p.namespace_);
      Key(w, "cluster", p.cluster);
      Key(w, "tidbCluster", p.tidb_cluster);
      Key(w, "pod", p.pod);
      Key(w, "component", p.component);
      Key(w, "stage", StageName(c.stage));
      Key(w, "class", WaitClassName(c.wait_class));
      Key(w, "reason", c.reason);
      w.Key("expected");
      w.Bool(IsExpected(c.wait_class));
      Key(w, "since", FormatRfc3339(c.stage_start));
      w.Key("waitingSeconds");
      w.Int64(std::max<Timestamp>(0, model.now - c.stage_start) / 1000);
      Key(w, "classSince", FormatRfc3339(p.class_since));
      Key(w, "evidence", EvidenceText(c, model.now));
      w.EndObject();
    }
  }
  w.EndArray();
  w.Key("clusters");
  w.StartArray();
  for (const ClusterKey& k : AllClusters(model)) {
    PodFilter any_class = filter;
    any_class.wait_class.clear();
    if (!any_class.MatchesCluster(k)) continue;
    w.StartObject();
    Key(w, "namespace", k.namespace_);
    Key(w, "cluster", k.name);
    Key(w, "tidbCluster", TidbClusterLabel(k.namespace_, k.name));
    auto it = model.dependencies.find(k);
    w.Key("dependencies");
    w.StartObject();
    for (Dependency d : kAllDependencies) {
      if (d == Dependency::kDmMaster &&
          (it == model.dependencies.end() || !it->second.Applies(d))) {
        continue;
      }
      w.Key(std::string(DependencyName(d)).c_str());
      WriteDependency(w, it == model.dependencies.end() ? DependencyStatus{} : it->second.Get(d));
    }
    w.EndObject();
    // What tidb-operator v2 holds on purpose (paused, suspending, suspended, pd_mode_switch).
    const OperatorHold hold = it == model.dependencies.end() ? OperatorHold{} : it->second.hold;
    w.Key("holds");
    w.StartArray();
    for (std::string_view name : HoldNames(hold)) w.String(name.data(), name.size());
    w.EndArray();
    if (!hold.mode_switch.empty()) Key(w, "modeSwitch", hold.mode_switch);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::vector<std::pair<std::string, std::string>> StyleOnlyPageHeaders(std::string_view style) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(style.data(), style.size(), md, &len, EVP_sha256(), nullptr);
  const std::string hash = Base64Encode(std::string_view(reinterpret_cast<const char*>(md), len));
  return {{"Content-Security-Policy",
           "default-src 'none'; style-src 'sha256-" + hash +
               "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
          {"X-Frame-Options", "DENY"}};
}

std::vector<std::pair<std::string, std::string>> StatusPageHeaders() {
  static const auto headers = StyleOnlyPageHeaders(kStyle);
  return headers;
}

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t ie = i;
      size_t je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Compare the runs by value: strip leading zeros, then the longer is larger.
      size_t iz = i;
      size_t jz = j;
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (jz + 1 < je && b[jz] == '0') ++jz;
      const std::string_view x = a.substr(iz, ie - iz);
      const std::string_view y = b.substr(jz, je - jz);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;  // equal by value ("tidb-01" and "tidb-1"): a total order still
}

namespace {

std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A relative link to the page itself with this filter ("./" when it has none), HTML-escaped.
std::string FilterLink(const PodFilter& f) {
  std::string q;
  auto add = [&q](const char* key, const std::string& value) {
    if (value.empty()) return;
    q += (q.empty() ? "?" : "&") + std::string(key) + "=" + UrlEncode(value);
  };
  add("namespace", f.namespace_);
  add("cluster", f.cluster);
  add("class", f.wait_class);
  return HtmlEscape(q.empty() ? "./" : q);
}

// A relative link to a path served beside the page: "/metrics" -> "metrics".
std::string Beside(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return HtmlEscape(path.empty() ? "./" : path);
}

// <time> with the absolute time on hover and in datetime, the relative one as its text.
std::string TimeAgo(Timestamp at, Timestamp now) {
  const std::string abs = HtmlEscape(FormatRfc3339(at));
  return "<time datetime=\"" + abs + "\" title=\"since " + abs + "\">" +
         HtmlEscape(FormatDuration(now - at)) + "</time>";
}

// The pods of one class in one cluster.
struct Group {
  WaitClass wait_class;
  std::vector<const WaitingPod*> pods;
};

struct ClusterGroups {
  ClusterKey key;
  std::vector<Group> attention;  // in class order
  std::vector<Group> expected;
};

bool ClusterLess(const ClusterKey& a, const ClusterKey& b) {
  if (a.namespace_ != b.namespace_) return NaturalLess(a.namespace_, b.namespace_);
  return NaturalLess(a.name, b.name);
}

// Every shown cluster with its pods by class, natural order throughout.
std::vector<ClusterGroups> GroupPods(const ViewModel& m, const PodFilter& filter) {
  std::map<ClusterKey, std::map<WaitClass, std::vector<const WaitingPod*>>> by_cluster;
  for (const ClusterKey& k : AllClusters(m)) {
    if (filter.MatchesCluster(k)) by_cluster[k];
  }
  if (m.waiting) {
    for (const WaitingPod& p : m.waiting->pods) {
      if (filter.Matches(p))
        by_cluster[{p.namespace_, p.cluster}][p.classification.wait_class].push_back(&p);
    }
  }
  std::vector<ClusterGroups> out;
  for (auto& [key, classes] : by_cluster) {
    ClusterGroups g{key, {}, {}};
    for (auto& [c, pods] : classes) {
      std::sort(pods.begin(), pods.end(), [](const WaitingPod* a, const WaitingPod* b) {
        return NaturalLess(a->pod, b->pod);
      });
      (IsExpected(c) ? g.expected : g.attention).push_back({c, std::move(pods)});
    }
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const ClusterGroups& a, const ClusterGroups& b) {
    return ClusterLess(a.key, b.key);
  });
  return out;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void AppendDependencies(const ViewModel& m, const ClusterKey& k, std::string& h) {
  h += "<span class=\"deps\">";
  auto it = m.dependencies.find(k);
  for (Dependency d : kAllDependencies) {
    if (d == Dependency::kDmMaster && (it == m.dependencies.end() || !it->second.Applies(d))) {
      continue;
    }
    DependencyStatus s = it == m.dependencies.end() ? DependencyStatus{} : it->second.Get(d);
    const std::string readiness(ReadinessName(s.readiness));
    std::string text = std::string(DependencyName(d)) + ": " + readiness;
    std::string title;
    if (s.readiness == Readiness::kReady && s.ready_since > 0) {
      text += " for " + FormatDuration(m.now - s.ready_since);
      title = " title=\"ready since " + HtmlEscape(FormatRfc3339(s.ready_since)) + "\"";
    } else if (s.reason != DependencyReason::kNone) {
      text += " (" + std::string(DependencyReasonName(s.reason)) + ")";
    }
    h += "<span class=\"dep " + readiness + "\"" + title + ">" + HtmlEscape(text) + "</span>";
  }
  // tidb-operator v2 holds the cluster on purpose: its pods are planned waits.
  if (it != m.dependencies.end()) {
    for (std::string_view hold : HoldNames(it->second.hold)) {
      std::string text = "held: " + std::string(hold);
      if (hold == "pd_mode_switch") text += " (" + it->second.hold.mode_switch + ")";
      h += "<span class=\"dep unknown\" title=\"tidb-operator holds this cluster on purpose\">" +
           HtmlEscape(text) + "</span>";
    }
  }
  h += "</span>";
}

// The cluster's name (a link filtering the page to it) and its dependencies.
void AppendClusterHead(const ViewModel& m, const ClusterKey& k, std::string& h) {
  PodFilter only_cluster;
  only_cluster.cluster = TidbClusterLabel(k.namespace_, k.name);
  PodFilter only_namespace;
  only_namespace.namespace_ = k.namespace_;
  h += "<div class=\"head\"><h3><a href=\"" + FilterLink(only_namespace) +
       "\" title=\"only namespace " + HtmlEscape(k.namespace_) + "\">" + HtmlEscape(k.namespace_) +
       "</a> / <a href=\"" + FilterLink(only_cluster) + "\" title=\"only this cluster\">" +
       HtmlEscape(k.name.empty() ? "(no cluster label)" : k.name) + "</a></h3>";
  AppendDependencies(m, k, h);
  h += "</div>";
}

void AppendTable(const ViewModel& m, const Group& g, std::string& h) {
  const std::string name = HtmlEscape(WaitClassName(g.wait_class));
  h += "<table><thead><tr><th>pod</th><th class=\"component\">component</th><th "
       "class=\"stage\">stage</th><th>reason</th><th>waiting</th><th>evidence</th></tr></thead>"
       "<tbody>";
  for (const WaitingPod* p : g.pods) {
    const Classification& c = p->classification;
    h += "<tr data-class=\"" + name + "\"><td class=\"pod\">" + HtmlEscape(p->pod) +
         "</td><td class=\"component\">" + HtmlEscape(p->component) + "</td><td class=\"stage\">" +
         HtmlEscape(StageName(c.stage)) + "</td><td class=\"reason\">" + HtmlEscape(c.reason) +
         "</td><td class=\"waiting\">" + TimeAgo(c.stage_start, m.now) +
         "</td><td class=\"evidence\">" + HtmlEscape(EvidenceText(c, m.now)) + "</td></tr>";
  }
  h += "</tbody></table>";
}

std::string RunbookLink(WaitClass c) {
  return "<a href=\"runbook#class-" + HtmlEscape(WaitClassName(c)) + "\">runbook</a>";
}

void AppendAttention(const ViewModel& m, const ClusterGroups& cg, std::string& h) {
  h += "<section class=\"cluster attention\">";
  AppendClusterHead(m, cg.key, h);
  for (const Group& g : cg.attention) {
    const std::string name = HtmlEscape(WaitClassName(g.wait_class));
    h += "<h4 class=\"class-" + name + "\" title=\"" + HtmlEscape(Info(g.wait_class).meaning) +
         "\">" + name + " <span class=\"tag\">needs attention · " + std::to_string(g.pods.size()) +
         "</span>" + RunbookLink(g.wait_class) + "</h4>";
    AppendTable(m, g, h);
  }
  h += "</section>";
}

// Collapsed, unless the page is filtered to one class: then what was asked for is shown.
void AppendExpected(const ViewModel& m, const ClusterGroups& cg, bool open, std::string& h) {
  h += "<section class=\"cluster\">";
  AppendClusterHead(m, cg.key, h);
  for (const Group& g : cg.expected) {
    const std::string name = HtmlEscape(WaitClassName(g.wait_class));
    h += "<details class=\"class-" + name + "\"" + (open ? " open" : "") + "><summary title=\"" +
         HtmlEscape(Info(g.wait_class).meaning) + "\"><b>" + name + "</b> <span class=\"tag\">" +
         Plural(g.pods.size(), "pod", "pods") + ", expected wait</span> · " +
         RunbookLink(g.wait_class) + "</summary>";
    AppendTable(m, g, h);
    h += "</details>";
  }
  h += "</section>";
}

// Nothing to show: say what is watched and whether the watches have synced.
void AppendEmpty(const ViewModel& m, const StatusPageOptions& o, const PodFilter& f,
                 std::string& h) {
  h += "<div class=\"empty\"><p><b>No waiting pods";
  if (!f.Empty()) h += " match this filter";
  h += ".</b></p><p>Watching pods matching <code>" + HtmlEscape(o.selector) + "</code>";
  if (!o.selector_v2.empty()) h += " and <code>" + HtmlEscape(o.selector_v2) + "</code>";
  h += " in ";
  if (o.namespaces.empty()) {
    h += "all namespaces";
  } else {
    h += o.namespaces.size() == 1 ? "namespace " : "namespaces ";
    for (size_t i = 0; i < o.namespaces.size(); ++i) {
      h += (i ? ", " : "") + std::string("<code>") + HtmlEscape(o.namespaces[i]) + "</code>";
    }
  }
  h += ".</p><p>";
  if (m.synced) {
    h += "Every watch has synced: the lists are complete.";
  } else {
    h += "<b>Not synced yet</b>: waiting for the first list of";
    for (const std::string& w : m.unsynced) h += " <code>" + HtmlEscape(w) + "</code>";
    h += m.unsynced.empty() ? " the watches." : ".";
  }
  h += "</p></div>";
}

// The class chips: one per class with waiting pods (under the other filters), with its count.
void AppendFilters(const ViewModel& m, const PodFilter& f, std::string& h) {
  std::map<WaitClass, size_t> counts;
  if (m.waiting) {
    PodFilter any_class = f;
    any_class.wait_class.clear();
    for (const WaitingPod& p : m.waiting->pods) {
      if (any_class.Matches(p)) ++counts[p.classification.wait_class];
    }
  }
  h += "<nav class=\"filters\"><span class=\"meta\">class:</span>";
  PodFilter all = f;
  all.wait_class.clear();
  h += "<a class=\"chip" + std::string(f.wait_class.empty() ? " on" : "") + "\" href=\"" +
       FilterLink(all) + "\">all</a>";
  for (const auto& [c, n] : counts) {
    PodFilter one = f;
    one.wait_class = std::string(WaitClassName(c));
    h += "<a class=\"chip" + std::string(IsExpected(c) ? "" : " bad") +
         (f.wait_class == one.wait_class ? " on" : "") + "\" href=\"" + FilterLink(one) + "\">" +
         HtmlEscape(one.wait_class) + " " + std::to_string(n) + "</a>";
  }
  if (!f.namespace_.empty() || !f.cluster.empty()) {
    h += "<span class=\"meta\">showing";
    if (!f.namespace_.empty()) h += " namespace <code>" + HtmlEscape(f.namespace_) + "</code>";
    if (!f.cluster.empty()) h += " cluster <code>" + HtmlEscape(f.cluster) + "</code>";
    h += "</span>";
  }
  if (!f.Empty()) h += "<a href=\"./\">clear filters</a>";
  h += "</nav>";
}

}  // namespace

namespace {

struct Counts {
  size_t attention = 0;  // pods
  size_t expected = 0;   // pods
  size_t attention_clusters = 0;
  size_t clusters = 0;
};

Counts Count(const std::vector<ClusterGroups>& clusters) {
  Counts n;
  n.clusters = clusters.size();
  for (const ClusterGroups& cg : clusters) {
    for (const Group& g : cg.attention) n.attention += g.pods.size();
    for (const Group& g : cg.expected) n.expected += g.pods.size();
    if (!cg.attention.empty()) ++n.attention_clusters;
  }
  return n;
}

std::string NeedAttention(size_t n) {
  return std::to_string(n) + (n == 1 ? " needs" : " need") + " attention";
}

// <head>, then the header: version, evaluation time, sync, links, the summary line, the filters.
void AppendHeader(const ViewModel& m, const StatusPageOptions& o, const PodFilter& f,
                  const Counts& n, std::string& h) {
  h += "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
       "<meta http-equiv=\"refresh\" content=\"30\"><title>";
  if (n.attention > 0) h += NeedAttention(n.attention) + " · ";
  h += "podwait</title><style>";
  h += kStyle;
  h += "</style></head><body><header><div class=\"top\"><h1>podwait</h1><span class=\"meta\">";
  h += "version " + HtmlEscape(o.version);
  if (const Timestamp at = EvaluatedAt(m); at > 0) {
    const std::string abs = HtmlEscape(FormatRfc3339(at));
    h += " · evaluated <time datetime=\"" + abs + "\" title=\"" + abs + "\">" +
         HtmlEscape(FormatDuration(m.now - at)) + " ago</time>";
  }
  h += m.synced ? " · synced" : " · <b>not synced yet</b>";
  h += " · refreshes every 30s</span><span class=\"meta\"><a href=\"" + Beside(o.telemetry_path) +
       "\">metrics</a> · <a href=\"api/v1/pods\">JSON</a> · <a href=\"runbook\">runbook</a>"
       "</span></div><p class=\"summary\"><span class=\"" +
       std::string(n.attention > 0 ? "bad" : "ok") + "\">" + NeedAttention(n.attention) +
       "</span>, <span class=\"calm\">" + std::to_string(n.expected) +
       " expected</span> <span class=\"meta\">in " + Plural(n.clusters, "cluster", "clusters");
  if (n.attention_clusters > 0) h += ", " + std::to_string(n.attention_clusters) + " with problems";
  h += "</span></p>";
  AppendFilters(m, f, h);
  h += "</header>";
}

// Clusters without waiting pods: one line of links.
void AppendQuiet(const std::vector<ClusterGroups>& clusters, std::string& h) {
  std::vector<const ClusterGroups*> quiet;
  for (const ClusterGroups& cg : clusters) {
    if (cg.attention.empty() && cg.expected.empty()) quiet.push_back(&cg);
  }
  if (quiet.empty()) return;
  h += "<h2 class=\"part\" id=\"quiet\">No pod waits · " +
       Plural(quiet.size(), "cluster", "clusters") + "</h2><p class=\"quiet\">";
  for (size_t i = 0; i < quiet.size(); ++i) {
    PodFilter only;
    only.cluster = TidbClusterLabel(quiet[i]->key.namespace_, quiet[i]->key.name);
    h += (i ? " · " : "") + std::string("<a href=\"") + FilterLink(only) + "\">" +
         HtmlEscape(quiet[i]->key.namespace_ + "/" + quiet[i]->key.name) + "</a>";
  }
  h += "</p>";
}

}  // namespace

std::string RenderStatusPage(const ViewModel& model, const StatusPageOptions& options,
                             const PodFilter& filter) {
  const std::vector<ClusterGroups> clusters = GroupPods(model, filter);
  const Counts n = Count(clusters);
  std::string h;
  h.reserve(64 * 1024);
  AppendHeader(model, options, filter, n, h);
  h += "<main>";
  if (n.attention + n.expected == 0) AppendEmpty(model, options, filter, h);
  if (n.attention > 0) {
    h += "<h2 class=\"part\" id=\"attention\">Needs attention · " +
         Plural(n.attention, "pod", "pods") + "</h2>";
    for (const ClusterGroups& cg : clusters) {
      if (!cg.attention.empty()) AppendAttention(model, cg, h);
    }
  }
  if (n.expected > 0) {
    h += "<h2 class=\"part\" id=\"expected\">Expected waits · " +
         Plural(n.expected, "pod", "pods") + "</h2>";
    for (const ClusterGroups& cg : clusters) {
      if (!cg.expected.empty()) AppendExpected(model, cg, !filter.wait_class.empty(), h);
    }
  }
  AppendQuiet(clusters, h);
  h += "</main><footer>Classes and what to do: <a href=\"runbook#classes\">runbook</a>.";
  if (!options.external_url.empty()) {
    h += " Alert links to this exporter's runbook: <code>runbookURLPattern: '" +
         HtmlEscape(options.external_url) + "/runbook#%s'</code>.";
  }
  h += "</footer></body></html>\n";
  return h;
}

}  // namespace podwait
