#include "exporter/http/views.h"

#include <openssl/evp.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "exporter/common/base64.h"
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

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
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
:root{--bg:#fbfbfd;--fg:#1d1d22;--muted:#6b6b76;--card:#fff;--line:#e4e4ea;
--ok:#1f8a4c;--warn:#b26a00;--bad:#c62828;--calm:#2f6db5}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#e8e8ee;--muted:#9a9aa6;--card:#1f1f25;--line:#33333c}}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
header{padding:14px 18px;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:8px 18px;align-items:baseline}
header h1{font-size:19px;margin:0}header .meta{color:var(--muted);font-size:13px}
main{padding:12px 18px;max-width:1200px}
section.cluster{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px;margin:0 0 14px}
section.cluster h2{font-size:17px;margin:0 0 6px}
.deps{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 8px}
.dep{border-radius:999px;padding:2px 10px;font-size:13px;border:1px solid var(--line)}
.dep.ready{color:var(--ok)}.dep.not_ready{color:var(--bad)}.dep.unknown{color:var(--warn)}
h3{font-size:14px;margin:10px 0 4px}h3 .expected{color:var(--calm);font-weight:normal}h3 .unexpected{color:var(--bad);font-weight:normal}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:4px 8px;border-top:1px solid var(--line);vertical-align:top;font-size:14px}
th{color:var(--muted);font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.03em}
td.evidence{color:var(--muted);font-size:12.5px;word-break:break-word}
.none{color:var(--muted)}
td.pod{white-space:nowrap;font-weight:500}.scroll{overflow-x:auto}
@media (max-width:700px){.evidence,.stage,.component{display:none}td,th{padding:4px 5px}main,header{padding-left:10px;padding-right:10px}}
)";

}  // namespace

bool PodFilter::Matches(const WaitingPod& p) const {
  if (!namespace_.empty() && p.namespace_ != namespace_) return false;
  if (!cluster.empty() && p.cluster != cluster && p.tidb_cluster != cluster) return false;
  if (!wait_class.empty() && WaitClassName(p.classification.wait_class) != wait_class) return false;
  return true;
}

std::optional<PodFilter> ParsePodFilter(const std::map<std::string, std::string>& query,
                                        std::string* error) {
  PodFilter filter;
  for (const auto& [key, value] : query) {
    if (key == "namespace") {
      filter.namespace_ = value;
    } else if (key == "cluster") {
      filter.cluster = value;
    } else if (key == "class") {
      if (!value.empty() && !ParseWaitClass(value)) {
        *error = "unknown class \"" + value + "\" (known:";
        for (const ClassInfo& c : kClasses) *error += " " + std::string(c.name);
        *error += ")";
        return std::nullopt;
      }
      filter.wait_class = value;
    } else {
      *error = "unknown parameter \"" + key + "\" (known: namespace, cluster, class)";
      return std::nullopt;
    }
  }
  return filter;
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
    if (!filter.namespace_.empty() && k.namespace_ != filter.namespace_) continue;
    if (!filter.cluster.empty() && k.name != filter.cluster &&
        TidbClusterLabel(k.namespace_, k.name) != filter.cluster) {
      continue;
    }
    w.StartObject();
    Key(w, "namespace", k.namespace_);
    Key(w, "cluster", k.name);
    Key(w, "tidbCluster", TidbClusterLabel(k.namespace_, k.name));
    auto it = model.dependencies.find(k);
    w.Key("dependencies");
    w.StartObject();
    for (Dependency d : kAllDependencies) {
      w.Key(std::string(DependencyName(d)).c_str());
      WriteDependency(w, it == model.dependencies.end() ? DependencyStatus{} : it->second.Get(d));
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::vector<std::pair<std::string, std::string>> StatusPageHeaders() {
  static const std::string csp = [] {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(kStyle, std::strlen(kStyle), md, &len, EVP_sha256(), nullptr);
    const std::string hash = Base64Encode(std::string_view(reinterpret_cast<const char*>(md), len));
    return "default-src 'none'; style-src 'sha256-" + hash +
           "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  }();
  return {{"Content-Security-Policy", csp}, {"X-Frame-Options", "DENY"}};
}

std::string RenderStatusPage(const ViewModel& model, const std::string& telemetry_path) {
  std::string h;
  h.reserve(16 * 1024);
  h += "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
       "<meta http-equiv=\"refresh\" content=\"10\"><title>podwait — why pods wait</title><style>";
  h += kStyle;
  h += "</style></head><body><header><h1>podwait</h1><span class=\"meta\">";
  const size_t total = model.waiting ? model.waiting->pods.size() : 0;
  h += std::to_string(total) + (total == 1 ? " waiting pod" : " waiting pods");
  if (const Timestamp at = EvaluatedAt(model); at > 0) {
    h += " · evaluated " + Escape(FormatRfc3339(at));
  }
  if (!model.synced) h += " · <strong>not synced yet</strong>";
  h += " · refreshes every 10s</span><span class=\"meta\"><a href=\"" + Escape(telemetry_path) +
       "\">metrics</a> · <a href=\"api/v1/pods\">JSON</a></span></header><main>";

  const std::set<ClusterKey> clusters = AllClusters(model);
  if (clusters.empty()) h += "<p class=\"none\">No TiDB clusters seen yet.</p>";
  for (const ClusterKey& k : clusters) {
    const std::string label = TidbClusterLabel(k.namespace_, k.name);
    h += "<section class=\"cluster\" id=\"cluster-" + Escape(label) + "\"><h2>" +
         Escape(k.namespace_) + " / " + Escape(k.name.empty() ? "(no cluster label)" : k.name) +
         "</h2><div class=\"deps\">";
    auto it = model.dependencies.find(k);
    for (Dependency d : kAllDependencies) {
      DependencyStatus s = it == model.dependencies.end() ? DependencyStatus{} : it->second.Get(d);
      std::string text =
          std::string(DependencyName(d)) + ": " + std::string(ReadinessName(s.readiness));
      if (s.readiness == Readiness::kReady && s.ready_since > 0) {
        text += " for " + FormatDuration(model.now - s.ready_since);
      } else if (s.reason != DependencyReason::kNone) {
        text += " (" + std::string(DependencyReasonName(s.reason)) + ")";
      }
      h += "<span class=\"dep " + std::string(ReadinessName(s.readiness)) + "\">" + Escape(text) +
           "</span>";
    }
    h += "</div>";
    // Waiting pods of this cluster grouped by class, unexpected classes first.
    std::map<std::pair<bool, std::string>, std::vector<const WaitingPod*>> by_class;
    if (model.waiting) {
      for (const WaitingPod& p : model.waiting->pods) {
        if (p.namespace_ != k.namespace_ || p.cluster != k.name) continue;
        WaitClass c = p.classification.wait_class;
        by_class[{IsExpected(c), std::string(WaitClassName(c))}].push_back(&p);
      }
    }
    if (by_class.empty()) h += "<p class=\"none\">No pod waits.</p>";
    for (const auto& [key, pods] : by_class) {
      const auto& [expected, name] = key;
      h += "<h3 class=\"class-" + Escape(name) + "\">" + Escape(name) + " <span class=\"" +
           (expected ? "expected\">expected wait" : "unexpected\">needs attention") + "</span> · " +
           std::to_string(pods.size()) +
           "</h3><div class=\"scroll\"><table><thead><tr><th>pod</th><th class=\"component\">"
           "component</th><th class=\"stage\">stage</th><th>reason</th><th>waiting</th>"
           "<th class=\"evidence\">evidence</th></tr></thead><tbody>";
      for (const WaitingPod* p : pods) {
        const Classification& c = p->classification;
        h += "<tr data-class=\"" + Escape(name) + "\"><td class=\"pod\">" + Escape(p->pod) +
             "</td><td class=\"component\">" + Escape(p->component) + "</td><td class=\"stage\">" +
             Escape(StageName(c.stage)) + "</td><td class=\"reason\">" + Escape(c.reason) +
             "</td><td>" + Escape(FormatDuration(model.now - c.stage_start)) +
             "</td><td class=\"evidence\">" + Escape(EvidenceText(c, model.now)) + "</td></tr>";
      }
      h += "</tbody></table></div>";
    }
    h += "</section>";
  }
  h += "</main></body></html>\n";
  return h;
}

}  // namespace podwait
