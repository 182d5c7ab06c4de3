#include "exporter/sources/v2_objects.h"

#include <rapidjson/document.h>

#include "exporter/common/json.h"
#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "exporter/net/http_client.h"

namespace podwait {
namespace {

using rapidjson::Value;

// Reads members with their types checked: a present member of the wrong type records the first
// error (with its path) and reads as absent, so one pass reports the first thing wrong.
class Reader {
 public:
  const Value* Object(const Value* parent, const char* name, std::string_view path) {
    const Value* m = json::Member(parent, name);
    if (m == nullptr || m->IsNull()) return nullptr;
    if (!m->IsObject()) return Fail(path, "an object");
    return m;
  }
  const Value* Array(const Value* parent, const char* name, std::string_view path) {
    const Value* m = json::Member(parent, name);
    if (m == nullptr || m->IsNull()) return nullptr;
    if (!m->IsArray()) return Fail(path, "an array");
    return m;
  }
  std::string String(const Value* parent, const char* name, std::string_view path) {
    const Value* m = json::Member(parent, name);
    if (m == nullptr || m->IsNull()) return {};
    if (!m->IsString()) {
      Fail(path, "a string");
      return {};
    }
    return {m->GetString(), m->GetStringLength()};
  }
  std::optional<int64_t> Int(const Value* parent, const char* name, std::string_view path) {
    const Value* m = json::Member(parent, name);
    if (m == nullptr || m->IsNull()) return std::nullopt;
    if (!m->IsInt64()) {
      Fail(path, "an integer");
      return std::nullopt;
    }
    return m->GetInt64();
  }
  bool Bool(const Value* parent, const char* name, std::string_view path) {
    const Value* m = json::Member(parent, name);
    if (m == nullptr || m->IsNull()) return false;
    if (!m->IsBool()) {
      Fail(path, "a boolean");
      return false;
    }
    return m->GetBool();
  }
  Timestamp Time(const Value* parent, const char* name, std::string_view path) {
    std::string s = String(parent, name, path);
    if (s.empty()) return 0;
    std::optional<Timestamp> t = ParseRfc3339(s);
    if (!t) Fail(path, "an RFC 3339 time");
    return t.value_or(0);
  }
  void Error(std::string what) {
    if (error_.empty()) error_ = std::move(what);
  }
  const std::string& error() const { return error_; }

 private:
  const Value* Fail(std::string_view path, std::string_view want) {
    Error(std::string(path) + " is not " + std::string(want));
    return nullptr;
  }
  std::string error_;
};

ConditionStatus StatusOf(std::string_view s) {
  if (s == "True") return ConditionStatus::kTrue;
  if (s == "False") return ConditionStatus::kFalse;
  return ConditionStatus::kUnknown;
}

// status.conditions: metav1.Condition items; an item without a type is an error.
std::vector<v2::Condition> Conditions(Reader& r, const Value* status) {
  std::vector<v2::Condition> out;
  const Value* list = r.Array(status, "conditions", "status.conditions");
  if (list == nullptr) return out;
  out.reserve(list->Size());
  for (const auto& item : list->GetArray()) {
    if (!item.IsObject()) {
      r.Error("status.conditions[] is not an object");
      return out;
    }
    v2::Condition c;
    c.type = r.String(&item, "type", "status.conditions[].type");
    if (c.type.empty()) {
      r.Error("status.conditions[] without a type");
      return out;
    }
    c.status = StatusOf(r.String(&item, "status", "status.conditions[].status"));
    c.reason = r.String(&item, "reason", "status.conditions[].reason");
    c.last_transition =
        r.Time(&item, "lastTransitionTime", "status.conditions[].lastTransitionTime");
    c.observed_generation =
        r.Int(&item, "observedGeneration", "status.conditions[].observedGeneration").value_or(0);
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<v2::Condition> Take(const std::vector<v2::Condition>& all, std::string_view type) {
  const v2::Condition* c = v2::FindCondition(all, type);
  return c == nullptr ? std::nullopt : std::optional<v2::Condition>(*c);
}

// What every v2 object has: apiVersion, kind, metadata.{namespace,name,uid}.
struct Meta {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  int64_t generation = 0;
  const Value* labels = nullptr;
  const Value* owners = nullptr;
  const Value* spec = nullptr;
  const Value* status = nullptr;
};

// Reads the common parts; a document that is not an object, of another API group, or without a
// namespace and name is an error.
std::optional<Meta> ReadMeta(Reader& r, const Value& object) {
  if (!object.IsObject()) {
    r.Error("document is not a JSON object");
    return std::nullopt;
  }
  Meta m;
  std::string api = r.String(&object, "apiVersion", "apiVersion");
  m.kind = r.String(&object, "kind", "kind");
  if (!api.empty() && api != v2::kApiVersion) {
    r.Error("apiVersion " + api + " is not " + std::string(v2::kApiVersion));
    return std::nullopt;
  }
  const Value* meta = r.Object(&object, "metadata", "metadata");
  m.namespace_ = r.String(meta, "namespace", "metadata.namespace");
  m.name = r.String(meta, "name", "metadata.name");
  m.uid = r.String(meta, "uid", "metadata.uid");
  m.generation = r.Int(meta, "generation", "metadata.generation").value_or(0);
  m.labels = r.Object(meta, "labels", "metadata.labels");
  m.owners = r.Array(meta, "ownerReferences", "metadata.ownerReferences");
  m.spec = r.Object(&object, "spec", "spec");
  m.status = r.Object(&object, "status", "status");
  if (!r.error().empty()) return std::nullopt;
  if (meta == nullptr || m.namespace_.empty() || m.name.empty()) {
    r.Error("no metadata.namespace or metadata.name");
    return std::nullopt;
  }
  return m;
}

// spec.cluster.name, else the pingcap.com/cluster label.
std::string ClusterOf(Reader& r, const Meta& m) {
  std::string name =
      r.String(r.Object(m.spec, "cluster", "spec.cluster"), "name", "spec.cluster.name");
  if (name.empty()) name = r.String(m.labels, "pingcap.com/cluster", "metadata.labels");
  return name;
}

// The component kind of `m` read as an instance (group=false) or a group; else an error.
const v2::Kind* KindOf(Reader& r, const Meta& m, bool group) {
  const v2::Kind* k = v2::FindKind(m.kind);
  if (k == nullptr || (group ? k->group_kind : k->instance_kind) != m.kind) {
    r.Error("kind " + m.kind + " is not a v2 " + (group ? "group" : "instance") + " kind");
    return nullptr;
  }
  return k;
}

template <typename T>
V2Parse<T> Done(Reader& r, T value) {
  if (!r.error().empty()) return V2Parse<T>::Fail(r.error());
  return V2Parse<T>::Ok(std::move(value));
}

template <typename T>
V2Parse<T> Failed(const Reader& r) {
  return V2Parse<T>::Fail(r.error());
}

}  // namespace

V2Parse<v2::Cluster> ParseV2Cluster(const Value& object) {
  Reader r;
  std::optional<Meta> m = ReadMeta(r, object);
  if (m && m->kind != "Cluster") r.Error("kind " + m->kind + " is not Cluster");
  if (!m || !r.error().empty()) return Failed<v2::Cluster>(r);
  v2::Cluster c;
  c.namespace_ = m->namespace_;
  c.name = m->name;
  c.uid = m->uid;
  c.tls = r.Bool(r.Object(m->spec, "tlsCluster", "spec.tlsCluster"), "enabled",
                 "spec.tlsCluster.enabled");
  c.paused = r.Bool(m->spec, "paused", "spec.paused");
  c.suspend_compute = r.Bool(r.Object(m->spec, "suspendAction", "spec.suspendAction"),
                             "suspendCompute", "spec.suspendAction.suspendCompute");
  c.pd_url = r.String(m->status, "pd", "status.pd");
  if (Result<bool> scheme = CheckUrlScheme(c.pd_url); !c.pd_url.empty() && !scheme.ok()) {
    // Whoever can write a Cluster's status must not steer the prober's bytes at another
    // service (gopher://, dict://, ...): the URL is dropped, the PD URL template applies.
    LogWarn("ignoring a v2 Cluster's status.pd",
            {{"cluster", c.namespace_ + "/" + c.name}, {"error", scheme.error}});
    c.pd_url.clear();
  }
  c.cluster_id = r.String(m->status, "id", "status.id");
  c.conditions = Conditions(r, m->status);
  return Done(r, std::move(c));
}

V2Parse<v2::Instance> ParseV2Instance(const Value& object) {
  Reader r;
  std::optional<Meta> m = ReadMeta(r, object);
  const v2::Kind* kind = m ? KindOf(r, *m, /*group=*/false) : nullptr;
  if (kind == nullptr) return Failed<v2::Instance>(r);
  v2::Instance in;
  in.kind = m->kind;
  in.component = std::string(kind->component);
  in.namespace_ = m->namespace_;
  in.name = m->name;
  in.uid = m->uid;
  in.generation = m->generation;
  in.cluster = ClusterOf(r, *m);
  in.group = r.String(m->labels, "pingcap.com/group", "metadata.labels");
  if (in.group.empty() && m->owners != nullptr) {
    for (const auto& o : m->owners->GetArray()) {
      if (!o.IsObject()) {
        r.Error("metadata.ownerReferences[] is not an object");
        break;
      }
      if (r.String(&o, "kind", "metadata.ownerReferences[].kind") == kind->group_kind &&
          r.Bool(&o, "controller", "metadata.ownerReferences[].controller")) {
        in.group = r.String(&o, "name", "metadata.ownerReferences[].name");
      }
    }
  }
  std::vector<v2::Condition> conds = Conditions(r, m->status);
  in.ready = Take(conds, "Ready");
  in.synced = Take(conds, "Synced");
  in.leaders_evicted = Take(conds, "LeadersEvicted");
  in.offlined = Take(conds, "Offlined");
  // StoreStatus (TiKV, TiFlash): the PD store id and the store state the operator saw.
  in.store_id = r.String(m->status, "id", "status.id");
  in.store_state = r.String(m->status, "state", "status.state");
  in.pod_name = v2::PodNameOf(in.name, in.component);
  return Done(r, std::move(in));
}

V2Parse<v2::Group> ParseV2Group(const Value& object) {
  Reader r;
  std::optional<Meta> m = ReadMeta(r, object);
  const v2::Kind* kind = m ? KindOf(r, *m, /*group=*/true) : nullptr;
  if (kind == nullptr) return Failed<v2::Group>(r);
  v2::Group g;
  g.kind = m->kind;
  g.component = std::string(kind->component);
  g.namespace_ = m->namespace_;
  g.name = m->name;
  g.uid = m->uid;
  g.cluster = ClusterOf(r, *m);
  g.spec_replicas = r.Int(m->spec, "replicas", "spec.replicas");
  g.replicas = r.Int(m->status, "replicas", "status.replicas");
  g.ready_replicas = r.Int(m->status, "readyReplicas", "status.readyReplicas");
  if (g.component == "pd") {
    // api/core/v1alpha1/pd_types.go: PDTemplateSpec.Mode, PDGroupStatus.Mode ("" or "ms").
    const Value* tmpl = r.Object(m->spec, "template", "spec.template");
    const Value* tspec = r.Object(tmpl, "spec", "spec.template.spec");
    g.pd_mode = r.String(tspec, "mode", "spec.template.spec.mode");
    g.pd_status_mode = r.String(m->status, "mode", "status.mode");
  }
  g.conditions = Conditions(r, m->status);
  return Done(r, std::move(g));
}

void AddV2Object(const Value& object, V2Objects* out) {
  std::string_view api = json::Str(&object, "apiVersion");
  std::string_view kind = json::Str(&object, "kind");
  if (api != v2::kApiVersion) {
    ++out->other;
    return;
  }
  auto failed = [&](const std::string& error) {
    const Value* meta = json::Object(&object, "metadata");
    out->errors.push_back(std::string(kind.empty() ? "object" : kind) + " " +
                          std::string(json::Str(meta, "namespace")) + "/" +
                          std::string(json::Str(meta, "name")) + ": " + error);
  };
  const v2::Kind* k = v2::FindKind(kind);
  if (kind == "Cluster") {
    auto c = ParseV2Cluster(object);
    c.ok() ? out->clusters.push_back(std::move(*c.value)) : failed(c.error);
  } else if (k != nullptr && k->instance_kind == kind) {
    auto i = ParseV2Instance(object);
    i.ok() ? out->instances.push_back(std::move(*i.value)) : failed(i.error);
  } else if (k != nullptr && k->group_kind == kind) {
    auto g = ParseV2Group(object);
    g.ok() ? out->groups.push_back(std::move(*g.value)) : failed(g.error);
  } else {
    ++out->other;  // a v2 kind podwait does not read (PlacementPolicy, ...)
  }
}

V2Objects ParseV2Objects(const Value& document) {
  V2Objects out;
  if (const Value* items = json::Array(&document, "items")) {
    for (const auto& item : items->GetArray()) AddV2Object(item, &out);
    return out;
  }
  if (!document.IsObject()) {
    out.errors.push_back("document is not a JSON object");
    return out;
  }
  AddV2Object(document, &out);
  return out;
}

}  // namespace podwait
