#include "exporter/http/views.h"

#include <openssl/evp.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>

#include "exporter/common/base64.h"
#include "exporter/common/time_format.h"
#include "exporter/common/utf8.h"
#include "exporter/http/views_internal.h"

namespace podwait {

namespace views {

Timestamp EvaluatedAt(const ViewModel& model) {
  if (model.evaluated_at > 0) return model.evaluated_at;
  return model.waiting ? model.waiting->evaluated_at : 0;
}

std::set<ClusterKey> AllClusters(const ViewModel& m) {
  std::set<ClusterKey> clusters;
  for (const auto& [k, _] : m.dependencies) clusters.insert(k);
  if (m.waiting) {
    for (const auto& p : m.waiting->pods) clusters.insert(ClusterKey{p.namespace_, p.cluster});
  }
  return clusters;
}

ScopeCounts CountScope(const ViewModel& m) {
  ScopeCounts n;
  n.clusters = AllClusters(m).size();
  if (!m.waiting) return n;
  std::set<ClusterKey> with_problems;
  for (const WaitingPod& p : m.waiting->pods) {
    if (IsExpected(p.classification.wait_class)) {
      ++n.expected;
    } else {
      ++n.attention;
      with_problems.insert(ClusterKey{p.namespace_, p.cluster});
    }
  }
  n.attention_clusters = with_problems.size();
  return n;
}

WaitingCounts CountWaiting(const ViewModel& m, const PodFilter& filter) {
  const PodFilter scope = filter.AnyClass();
  WaitingCounts counts;
  for (const ClusterKey& k : AllClusters(m)) {
    if (scope.MatchesCluster(k)) counts[k];
  }
  if (m.waiting) {
    for (const WaitingPod& p : m.waiting->pods) {
      if (scope.Matches(p)) ++counts[{p.namespace_, p.cluster}][p.classification.wait_class];
    }
  }
  return counts;
}

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

std::string Sha256Base64(std::string_view text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(md), len));
}

}  // namespace views

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Every string value of the JSON view goes through here: RapidJSON's writer copies bytes as they
// are, so invalid UTF-8 is replaced first.
void Key(JsonWriter& w, const char* key, std::string_view value) {
  w.Key(key);
  std::string repaired;
  value = ValidUtf8(value, &repaired, Utf8Output::kJson);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void Strings(JsonWriter& w, const char* key, const std::vector<std::string>& values) {
  w.Key(key);
  w.StartArray();
  for (const std::string& v : values) {
    std::string repaired;
    const std::string_view s = ValidUtf8(v, &repaired, Utf8Output::kJson);
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  }
  w.EndArray();
}

void WriteDependency(JsonWriter& w, const DependencyStatus& d) {
  w.StartObject();
  Key(w, "readiness", ReadinessName(d.readiness));
  if (d.ready_since > 0) Key(w, "readySince", FormatRfc3339(d.ready_since));
  if (d.reason != DependencyReason::kNone) Key(w, "reason", DependencyReasonName(d.reason));
  w.EndObject();
}

// "health": whether what follows is current, and if not, why.
void WriteHealth(JsonWriter& w, const DataHealth& h) {
  w.Key("health");
  w.StartObject();
  w.Key("current");
  w.Bool(h.Current());
  Strings(w, "notSyncedYet", h.not_synced_yet);
  Strings(w, "outOfSync", h.out_of_sync);
  w.Key("apiServer");
  w.StartObject();
  Key(w, "address", h.api_address);
  w.Key("reachable");
  w.Bool(h.api_reachable);
  if (!h.api_reachable) {
    Key(w, "error", h.api_error);
    if (h.api_unreachable_since > 0) {
      Key(w, "unreachableSince", FormatRfc3339(h.api_unreachable_since));
    }
  }
  w.EndObject();
  if (h.last_data > 0) Key(w, "lastData", FormatRfc3339(h.last_data));
  if (h.started_at > 0) Key(w, "startedAt", FormatRfc3339(h.started_at));
  w.EndObject();
}

void WriteScope(JsonWriter& w, const views::ScopeCounts& n) {
  w.Key("scope");
  w.StartObject();
  w.Key("needAttention");
  w.Uint64(n.attention);
  w.Key("expected");
  w.Uint64(n.expected);
  w.Key("clusters");
  w.Uint64(n.clusters);
  w.Key("clustersWithProblems");
  w.Uint64(n.attention_clusters);
  w.EndObject();
}

void WritePod(JsonWriter& w, const WaitingPod& p, Timestamp now) {
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
  w.Int64(std::max<Timestamp>(0, now - c.stage_start) / 1000);
  Key(w, "classSince", FormatRfc3339(p.class_since));
  Key(w, "evidence", EvidenceText(c, now));
  if (IsDependencyRow(p)) {
    // The waiting pods of the dependency it waits on (docs/DESIGN.md §4), present even when empty.
    w.Key("heldBy");
    w.StartArray();
    for (const HeldBy& h : p.held_by) {
      w.StartObject();
      Key(w, "pod", h.pod);
      Key(w, "class", WaitClassName(h.wait_class));
      Key(w, "reason", h.reason);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void WriteCluster(JsonWriter& w, const ViewModel& model, const ClusterKey& k,
                  const std::map<WaitClass, size_t>& waiting) {
  w.StartObject();
  Key(w, "namespace", k.namespace_);
  Key(w, "cluster", k.name);
  Key(w, "tidbCluster", TidbClusterLabel(k.namespace_, k.name));
  auto it = model.dependencies.find(k);
  w.Key("dependencies");
  w.StartObject();
  for (Dependency d : kAllDependencies) {
    if (it != model.dependencies.end() ? !it->second.Applies(d)
                                        : !ClusterDependencies::AlwaysApplies(d)) {
      continue;
    }
    w.Key(std::string(DependencyName(d)).c_str());
    WriteDependency(w, it == model.dependencies.end() ? DependencyStatus{} : it->second.Get(d));
  }
  w.EndObject();
  // Where PD lives when it is not the cluster's own (a heterogeneous or across-Kubernetes one).
  if (it != model.dependencies.end() && !it->second.pd_source.empty()) {
    Key(w, "pdSource", it->second.pd_source);
  }
  // What tidb-operator v2 holds on purpose (paused, suspending, suspended, pd_mode_switch).
  const OperatorHold hold = it == model.dependencies.end() ? OperatorHold{} : it->second.hold;
  w.Key("holds");
  w.StartArray();
  for (std::string_view name : HoldNames(hold)) w.String(name.data(), name.size());
  w.EndArray();
  if (!hold.mode_switch.empty()) Key(w, "modeSwitch", hold.mode_switch);
  w.Key("waiting");
  w.StartObject();
  for (const auto& [c, n] : waiting) {
    w.Key(std::string(WaitClassName(c)).c_str());
    w.Uint64(n);
  }
  w.EndObject();
  w.EndObject();
}

}  // namespace

PodFilter PodFilter::AnyClass() const {
  PodFilter f = *this;
  f.wait_class.clear();
  f.expected.reset();
  return f;
}

bool PodFilter::MatchesCluster(const ClusterKey& k) const {
  if (!namespace_.empty() && k.namespace_ != namespace_) return false;
  if (!cluster.empty() && k.name != cluster && TidbClusterLabel(k.namespace_, k.name) != cluster) {
    return false;
  }
  // A class, pod or expected filter shows the clusters that have pods of it only.
  return wait_class.empty() && pod.empty() && !expected.has_value();
}

namespace {

constexpr const char* kFilterKeys[] = {"namespace", "cluster", "class", "pod", "expected"};

std::optional<bool> ParseBool(const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  return std::nullopt;
}

}  // namespace

PodFilter PodFilter::FromQuery(const std::map<std::string, std::string>& query) {
  PodFilter f;
  for (const auto& [key, value] : query) {
    if (key == "namespace") {
      f.namespace_ = value;
    } else if (key == "cluster") {
      f.cluster = value;
    } else if (key == "class") {
      f.wait_class = value;
    } else if (key == "pod") {
      f.pod = value;
    } else if (key == "expected") {
      f.expected = ParseBool(value);
    }
  }
  return f;
}

bool PodFilter::Matches(const WaitingPod& p) const {
  if (!namespace_.empty() && p.namespace_ != namespace_) return false;
  if (!cluster.empty() && p.cluster != cluster && p.tidb_cluster != cluster) return false;
  if (!pod.empty() && p.pod != pod) return false;
  if (!wait_class.empty() && WaitClassName(p.classification.wait_class) != wait_class) return false;
  if (expected && IsExpected(p.classification.wait_class) != *expected) return false;
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
    if (key == "expected" && !ParseBool(value)) {
      return R::Fail("expected must be true or false, not \"" + value + "\"");
    }
    if (std::find(std::begin(kFilterKeys), std::end(kFilterKeys), key) == std::end(kFilterKeys)) {
      return R::Fail("unknown parameter \"" + key +
                     "\" (known: namespace, cluster, class, pod, expected)");
    }
  }
  return R::Ok(PodFilter::FromQuery(query));
}

std::string RenderPodsJson(const ViewModel& model, const PodFilter& filter) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (const Timestamp at = views::EvaluatedAt(model); at > 0) {
    Key(w, "evaluatedAt", FormatRfc3339(at));
  }
  if (model.now > 0) Key(w, "now", FormatRfc3339(model.now));
  w.Key("synced");
  w.Bool(model.synced);
  WriteHealth(w, model.health);
  WriteScope(w, views::CountScope(model));
  w.Key("pods");
  w.StartArray();
  if (model.waiting) {
    for (const WaitingPod& p : model.waiting->pods) {
      if (filter.Matches(p)) WritePod(w, p, model.now);
    }
  }
  w.EndArray();
  w.Key("clusters");
  w.StartArray();
  for (const auto& [k, waiting] : views::CountWaiting(model, filter)) {
    WriteCluster(w, model, k, waiting);
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::vector<std::pair<std::string, std::string>> StyleOnlyPageHeaders(std::string_view style) {
  return {{"Content-Security-Policy",
           "default-src 'none'; style-src 'sha256-" + views::Sha256Base64(style) +
               "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
          {"X-Frame-Options", "DENY"}};
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

}  // namespace podwait
