// The status page (GET /): rendered here for the first load and for browsers without script;
// status_page.js renders the same markup from /api/v1/pods to refresh it in place. A change to
// the markup here is a change there too: tests/checks/tools/status_page_live.py compares the two
// renderings of the same data in chromium.
#include <algorithm>
#include <map>
#include <set>

#include "exporter/common/markdown.h"
#include "exporter/common/time_format.h"
#include "exporter/http/status_page_script.h"
#include "exporter/http/views.h"
#include "exporter/http/views_internal.h"

namespace podwait {
namespace {

using views::UrlEncode;

constexpr const char* kStyle = R"(
:root{--bg:#f6f6f9;--fg:#1d1d22;--muted:#686874;--card:#fff;--line:#e2e2e8;--chip:#eef0f5;
--ok:#1f8a4c;--warn:#a35f00;--bad:#c62828;--calm:#2f6db5;--badbg:#fdeceb;--warnbg:#fff4e0}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#e8e8ee;--muted:#a0a0ac;--card:#1f1f25;--line:#34343d;--chip:#2a2a32;--badbg:#3a1f1f;--warnbg:#3a2e14}}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--calm)}
header{padding:10px 18px 8px;background:var(--card);border-bottom:1px solid var(--line)}
header .top{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:baseline}
header h1{font-size:18px;margin:0}.meta{color:var(--muted);font-size:13px}
.nodata{background:var(--warnbg);border:1px solid var(--warn);border-radius:8px;padding:6px 12px;margin:8px 0 4px}
.nodata p{margin:3px 0}.nodata b{color:var(--warn)}
.summary{font-size:20px;font-weight:600;margin:6px 0 4px}.summary .bad{color:var(--bad)}.summary .calm{color:var(--calm)}
.summary .ok{color:var(--ok)}.summary .warn{color:var(--warn)}.summary .filtered{font-size:13px;font-weight:600;color:var(--warn)}
.filters{font-size:13px;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.chip{display:inline-block;border-radius:999px;padding:1px 9px;background:var(--chip);text-decoration:none;color:var(--fg);white-space:nowrap}
.chip.bad{color:var(--bad)}.chip.on{outline:2px solid var(--calm)}
main{padding:10px 18px;max-width:1280px}
h2.part{font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:14px 0 6px}
section.cluster,section.pod{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:0 0 10px}
section.attention{border-left:4px solid var(--bad)}section.pod h2{font-size:16px;margin:0 0 4px}
section.pod dl{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:0;font-size:14px}
section.pod dt{color:var(--muted)}section.pod dd{margin:0;overflow-wrap:anywhere}
.head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
.head h3{font-size:16px;margin:0}.head h3 a{color:inherit;text-decoration:none}.head h3 a:hover{text-decoration:underline}
.deps{display:flex;flex-wrap:wrap;gap:6px;font-size:12.5px}
.dep{border-radius:999px;padding:0 8px;border:1px solid var(--line)}
.dep.ready{color:var(--ok)}.dep.not_ready{color:var(--bad)}.dep.unknown{color:var(--warn)}
.expected .dep.not_ready{color:var(--calm)}
h4{font-size:14px;margin:8px 0 2px;display:flex;flex-wrap:wrap;gap:2px 10px;align-items:baseline}
h4 .tag{font-weight:normal;font-size:12.5px;color:var(--bad)}h4 a{font-weight:normal;font-size:12.5px}
details{margin:4px 0}summary{cursor:pointer;font-size:14px}summary .tag{color:var(--calm)}p.rows{margin:4px 0;font-size:13px}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th:nth-child(1){width:18%}th:nth-child(2){width:10%}th:nth-child(3){width:10%}th:nth-child(4){width:17%}th:nth-child(5){width:8%}
td.pod,td.reason{overflow-wrap:anywhere}td,th{text-align:left;padding:3px 8px;border-top:1px solid var(--line);vertical-align:top;font-size:13.5px}
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
  add("pod", f.pod);
  if (f.expected) add("expected", *f.expected ? "true" : "false");
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

// "<time ...>3m0s ago</time>", titled with the absolute time.
std::string Ago(Timestamp at, Timestamp now) {
  const std::string abs = HtmlEscape(FormatRfc3339(at));
  return "<time datetime=\"" + abs + "\" title=\"" + abs + "\">" +
         HtmlEscape(FormatDuration(now - at)) + " ago</time>";
}

std::string Code(std::string_view s) { return "<code>" + HtmlEscape(s) + "</code>"; }

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string NeedAttention(size_t n) {
  return std::to_string(n) + (n == 1 ? " needs" : " need") + " attention";
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
  for (const ClusterKey& k : views::AllClusters(m)) {
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

void AppendDependencies(const ViewModel& m, const ClusterKey& k, std::string& h) {
  h += "<span class=\"deps\">";
  auto it = m.dependencies.find(k);
  for (Dependency d : kAllDependencies) {
    if (it != m.dependencies.end() ? !it->second.Applies(d)
                                        : !ClusterDependencies::AlwaysApplies(d)) {
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
  // PD that is not the cluster's own (a heterogeneous cluster's, another Kubernetes').
  if (it != m.dependencies.end() && !it->second.pd_source.empty()) {
    h += "<span class=\"dep unknown\" title=\"where this cluster's PD lives (its TidbCluster's "
         "spec)\">" +
         HtmlEscape(it->second.pd_source) + "</span>";
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

// Collapsed with their count, their rows loaded by the script when opened (without script, the
// link inside opens the page filtered to them); open with their rows when the page is filtered
// to one class or pod: then what was asked for is shown.
void AppendExpected(const ViewModel& m, const ClusterGroups& cg, bool open, std::string& h) {
  h += "<section class=\"cluster expected\">";
  AppendClusterHead(m, cg.key, h);
  for (const Group& g : cg.expected) {
    const std::string name = HtmlEscape(WaitClassName(g.wait_class));
    PodFilter rows;
    rows.namespace_ = cg.key.namespace_;
    rows.cluster = cg.key.name;
    rows.wait_class = std::string(WaitClassName(g.wait_class));
    h += "<details class=\"class-" + name + "\" data-rows=\"" + FilterLink(rows) + "\"" +
         (open ? " open" : "") + "><summary title=\"" + HtmlEscape(Info(g.wait_class).meaning) +
         "\"><b>" + name + "</b> <span class=\"tag\">" + Plural(g.pods.size(), "pod", "pods") +
         ", expected wait</span> · " + RunbookLink(g.wait_class) + "</summary>";
    if (open) {
      AppendTable(m, g, h);
    } else {
      h += "<p class=\"rows\"><a href=\"" + FilterLink(rows) + "\">show the " +
           Plural(g.pods.size(), "pod", "pods") + "</a></p>";
    }
    h += "</details>";
  }
  h += "</section>";
}

// "Watching pods matching <selectors> in <namespaces>." (the script's empty state reuses it).
std::string WatchingSentence(const StatusPageOptions& o) {
  std::string h = "Watching pods matching " + Code(o.selector);
  if (!o.selector_v2.empty()) h += " and " + Code(o.selector_v2);
  h += " in ";
  if (o.namespaces.empty()) {
    h += "all namespaces";
  } else {
    h += o.namespaces.size() == 1 ? "namespace " : "namespaces ";
    for (size_t i = 0; i < o.namespaces.size(); ++i) h += (i ? ", " : "") + Code(o.namespaces[i]);
  }
  return h + ".";
}

// Nothing to show. "No waiting pods" only when the data is current: otherwise nothing known is
// not good news.
void AppendEmpty(const ViewModel& m, const StatusPageOptions& o, const PodFilter& f,
                 std::string& h) {
  h += "<div class=\"empty\"><p><b>";
  if (!m.health.Current()) {
    h += "Nothing to show, and that is not an all-clear: the data is not current (above).";
  } else if (!f.pod.empty()) {
    h += "Pod " + HtmlEscape(f.namespace_.empty() ? f.pod : f.namespace_ + "/" + f.pod) +
         " is not waiting: it is Ready, gone, or not watched here.";
  } else {
    h += f.Empty() ? "No waiting pods." : "No waiting pods match this filter.";
  }
  h += "</b></p><p>" + WatchingSentence(o) + "</p><p>";
  h += m.health.Current() ? "Every watch has synced: the lists are complete."
                          : "See above why the lists are not complete.";
  h += "</p></div>";
}

// The class chips: one per class with waiting pods (under the other filters), with its count.
void AppendFilters(const views::WaitingCounts& counts, const PodFilter& f, std::string& h) {
  std::map<WaitClass, size_t> by_class;
  for (const auto& [_, classes] : counts) {
    for (const auto& [c, n] : classes) by_class[c] += n;
  }
  h += "<nav class=\"filters\"><span class=\"meta\">class:</span>";
  PodFilter all = f.AnyClass();
  h += "<a class=\"chip" + std::string(f.wait_class.empty() ? " on" : "") + "\" href=\"" +
       FilterLink(all) + "\">all</a>";
  for (const auto& [c, n] : by_class) {
    PodFilter one = all;
    one.wait_class = std::string(WaitClassName(c));
    h += "<a class=\"chip" + std::string(IsExpected(c) ? "" : " bad") +
         (f.wait_class == one.wait_class ? " on" : "") + "\" href=\"" + FilterLink(one) + "\">" +
         HtmlEscape(one.wait_class) + " " + std::to_string(n) + "</a>";
  }
  if (!f.namespace_.empty() || !f.cluster.empty() || !f.pod.empty()) {
    h += "<span class=\"meta\">showing";
    if (!f.namespace_.empty()) h += " namespace " + Code(f.namespace_);
    if (!f.cluster.empty()) h += " cluster " + Code(f.cluster);
    if (!f.pod.empty()) h += " pod " + Code(f.pod);
    h += "</span>";
  }
  if (!f.Empty()) h += "<a href=\"./\">clear filters</a>";
  h += "</nav>";
}

// " <code>a</code> <code>b</code> and 3 more": the first few names of a list.
std::string Names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 6;
  std::string h;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) h += " " + Code(names[i]);
  if (names.size() > kShown) h += " and " + std::to_string(names.size() - kShown) + " more";
  return h;
}

// What keeps the data from being current, first: the first lists not done, the API server
// unreachable (for how long, why), watches that keep failing, and when the last data came.
void AppendHealth(const ViewModel& m, std::string& h) {
  const DataHealth& d = m.health;
  if (d.Current()) return;
  h += "<div class=\"nodata\" role=\"alert\">";
  if (!d.not_synced_yet.empty()) {
    h += "<p><b>No data yet</b>: waiting for the first list of" + Names(d.not_synced_yet);
    if (d.started_at > 0) h += " (the exporter started " + Ago(d.started_at, m.now) + ")";
    h += ".</p>";
  }
  if (!d.api_reachable) {
    h += "<p><b>The API server is unreachable</b>";
    if (d.api_unreachable_since > 0) h += " for " + TimeAgo(d.api_unreachable_since, m.now);
    h += ": " + Code(d.api_address);
    if (!d.api_error.empty()) h += ": " + HtmlEscape(d.api_error);
    h += ".</p>";
  }
  if (!d.out_of_sync.empty()) {
    h += "<p><b>Out of sync</b>: the list or watch of" + Names(d.out_of_sync) +
         " keeps failing.</p>";
  }
  h += "<p>";
  if (d.last_data > 0) {
    h += "The last data arrived " + Ago(d.last_data, m.now) + ": what follows is as of then, ";
  } else {
    h += "No data has arrived from the API server yet: ";
  }
  h += "not an all-clear.</p></div>";
}

// The summary line, of the whole scope whatever the filter; never green unless the data is
// current.
void AppendSummary(const ViewModel& m, const PodFilter& f, const views::WaitingCounts& shown,
                   std::string& h) {
  const views::ScopeCounts n = views::CountScope(m);
  h += "<p class=\"summary\">";
  if (!m.health.not_synced_yet.empty() && n.attention + n.expected == 0) {
    h += "<span class=\"warn\">No data yet</span></p>";
    return;
  }
  const char* tone = n.attention > 0 ? "bad" : (m.health.Current() ? "ok" : "warn");
  h += "<span class=\"" + std::string(tone) + "\">" + NeedAttention(n.attention) +
       "</span>, <span class=\"calm\">" + std::to_string(n.expected) +
       " expected</span> <span class=\"meta\">in " + Plural(n.clusters, "cluster", "clusters");
  if (n.attention_clusters > 0) h += ", " + std::to_string(n.attention_clusters) + " with problems";
  if (!m.health.Current()) h += " · as of the last data";
  h += "</span>";
  if (!f.Empty()) {
    size_t matching = 0;
    for (const auto& [_, classes] : shown) {
      for (const auto& [c, count] : classes) {
        if (f.wait_class.empty() || f.wait_class == WaitClassName(c)) {
          if (!f.expected || IsExpected(c) == *f.expected) matching += count;
        }
      }
    }
    h += " <span class=\"filtered\">· filtered: " + std::to_string(matching) + " shown</span>";
  }
  h += "</p>";
}

// ?namespace=&pod= (an alert's link): the pod's class, reason, evidence, times and what holds
// it, above the groups.
void AppendPodDetail(const ViewModel& m, const WaitingPod& p, std::string& h) {
  const Classification& c = p.classification;
  const ClusterKey k{p.namespace_, p.cluster};
  const bool expected = IsExpected(c.wait_class);
  PodFilter only_namespace;
  only_namespace.namespace_ = p.namespace_;
  PodFilter only_cluster;
  only_cluster.cluster = TidbClusterLabel(p.namespace_, p.cluster);
  h += "<section class=\"pod" + std::string(expected ? " expected" : " attention") +
       "\"><h2><a href=\"" + FilterLink(only_namespace) + "\">" + HtmlEscape(p.namespace_) +
       "</a> / " + HtmlEscape(p.pod) + "</h2><dl><dt>class</dt><dd><b>" +
       HtmlEscape(WaitClassName(c.wait_class)) + "</b> · " +
       (expected ? "expected wait" : "needs attention") + ": " +
       HtmlEscape(Info(c.wait_class).meaning) + " · " + RunbookLink(c.wait_class) +
       "</dd><dt>reason</dt><dd>" + HtmlEscape(c.reason) + "</dd><dt>evidence</dt><dd>" +
       HtmlEscape(EvidenceText(c, m.now)) + "</dd><dt>since</dt><dd>" +
       HtmlEscape(StageName(c.stage)) + " for " + TimeAgo(c.stage_start, m.now) + ", " +
       HtmlEscape(WaitClassName(c.wait_class)) + " for " + TimeAgo(p.class_since, m.now) +
       "</dd><dt>what holds it</dt><dd>";
  // A dependency row: the dependency's waiting pods first, the unexpected ones leading.
  for (const HeldBy& held : p.held_by) {
    h += "<div class=\"heldby\">held by <b>" + HtmlEscape(held.pod) +
         "</b>: " + HtmlEscape(WaitClassName(held.wait_class)) + "/" + HtmlEscape(held.reason) +
         (IsExpected(held.wait_class) ? " (expected)" : " (needs attention)") + "</div>";
  }
  AppendDependencies(m, k, h);
  h += "</dd><dt>cluster</dt><dd><a href=\"" + FilterLink(only_cluster) + "\">" +
       HtmlEscape(p.namespace_ + " / " + (p.cluster.empty() ? "(no cluster label)" : p.cluster)) +
       "</a>, component " + HtmlEscape(p.component) + "</dd></dl></section>";
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

// The title: what needs attention, or that there is no current data.
std::string Title(const ViewModel& m) {
  const views::ScopeCounts n = views::CountScope(m);
  std::string t;
  if (!m.health.Current()) t = "not current · ";
  if (n.attention > 0) t += NeedAttention(n.attention) + " · ";
  return HtmlEscape(t) + "podwait";
}

// "evaluated 2s ago · synced": the part of the top line the script refreshes.
void AppendEvaluated(const ViewModel& m, std::string& h) {
  if (const Timestamp at = views::EvaluatedAt(m); at > 0) {
    h += "evaluated " + Ago(at, m.now) + " · ";
  }
  h += !m.health.Current() ? "<b>not current</b>" : m.synced ? "synced" : "<b>not synced</b>";
}

// <head>, then the header: version, evaluation, links, and #status (what is not current, the
// summary line, the filters), which the script refreshes.
void AppendHeader(const ViewModel& m, const StatusPageOptions& o, const PodFilter& f,
                  const views::WaitingCounts& shown, std::string& h) {
  h += "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>" +
       Title(m) + "</title><style>";
  h += kStyle;
  h += "</style></head><body><header><div class=\"top\"><h1>podwait</h1><span class=\"meta\">";
  h += "version " + HtmlEscape(o.version) + " · <span id=\"evaluated\">";
  AppendEvaluated(m, h);
  h += "</span> · <span id=\"refresh\">reload to refresh</span></span><span class=\"meta\">"
       "<a href=\"" +
       Beside(o.telemetry_path) +
       "\">metrics</a> · <a href=\"api/v1/pods\">JSON</a> · <a href=\"runbook\">runbook</a>"
       "</span></div><div id=\"status\">";
  AppendHealth(m, h);
  AppendSummary(m, f, shown, h);
  AppendFilters(shown, f, h);
  h += "</div></header>";
}

// <main>: the pod asked for, what needs attention, the expected waits, the quiet clusters.
void AppendMain(const ViewModel& m, const StatusPageOptions& o, const PodFilter& f,
                std::string& h) {
  const std::vector<ClusterGroups> clusters = GroupPods(m, f);
  size_t attention = 0;
  size_t expected = 0;
  for (const ClusterGroups& cg : clusters) {
    for (const Group& g : cg.attention) attention += g.pods.size();
    for (const Group& g : cg.expected) expected += g.pods.size();
  }
  h += "<main id=\"main\">";
  if (!f.pod.empty() && m.waiting) {
    for (const WaitingPod& p : m.waiting->pods) {
      if (f.Matches(p)) AppendPodDetail(m, p, h);
    }
  }
  if (attention + expected == 0) AppendEmpty(m, o, f, h);
  if (attention > 0) {
    h += "<h2 class=\"part\" id=\"attention\">Needs attention · " +
         Plural(attention, "pod", "pods") + "</h2>";
    for (const ClusterGroups& cg : clusters) {
      if (!cg.attention.empty()) AppendAttention(m, cg, h);
    }
  }
  if (expected > 0) {
    h += "<h2 class=\"part\" id=\"expected\">Expected waits · " + Plural(expected, "pod", "pods") +
         "</h2>";
    const bool open = !f.wait_class.empty() || !f.pod.empty();
    for (const ClusterGroups& cg : clusters) {
      if (!cg.expected.empty()) AppendExpected(m, cg, open, h);
    }
  }
  AppendQuiet(clusters, h);
  h += "</main>";
}

// What the script needs beyond /api/v1/pods: the classes in order (name, expected, meaning) and
// the empty state's sentence, as inert data.
void AppendScriptData(const StatusPageOptions& o, std::string& h) {
  h += "<template id=\"podwait-watching\">" + WatchingSentence(o) +
       "</template><script type=\"application/json\" id=\"podwait-classes\">[";
  // A JSON string inside HTML: no '<' (no "</script>"), quotes and backslashes escaped.
  auto str = [](std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '<') {
        out += "\\u003c";
      } else {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
    }
    return out + "\"";
  };
  for (const ClassInfo& c : kClasses) {
    h += std::string(&c == kClasses ? "" : ",") + "[" + str(c.name) + "," +
         (c.expected ? "true" : "false") + "," + str(c.meaning) + "]";
  }
  h += "]</script><script>";
  h += kStatusPageScript;
  h += "</script>";
}

}  // namespace

std::string RenderStatusPage(const ViewModel& model, const StatusPageOptions& options,
                             const PodFilter& filter) {
  const views::WaitingCounts shown = views::CountWaiting(model, filter);
  std::string h;
  h.reserve(64 * 1024);
  AppendHeader(model, options, filter, shown, h);
  AppendMain(model, options, filter, h);
  h += "<footer>Classes and what to do: <a href=\"runbook#classes\">runbook</a>.";
  if (!options.external_url.empty()) {
    h += " Alert links to this exporter's runbook: <code>runbookURLPattern: '" +
         HtmlEscape(options.external_url) + "/runbook#%s'</code>; to a pod here: <code>" +
         HtmlEscape(options.external_url) + "/?namespace=&lt;ns&gt;&amp;pod=&lt;pod&gt;</code>.";
  }
  h += "</footer>";
  AppendScriptData(options, h);
  h += "</body></html>\n";
  return h;
}

std::vector<std::pair<std::string, std::string>> StatusPageHeaders() {
  static const std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Security-Policy",
       "default-src 'none'; style-src 'sha256-" + views::Sha256Base64(kStyle) +
           "'; script-src 'sha256-" + views::Sha256Base64(kStatusPageScript) +
           "'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
      {"X-Frame-Options", "DENY"}};
  return headers;
}

}  // namespace podwait
