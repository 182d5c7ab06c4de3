#include "exporter/sources/tidbcluster.h"

#include <rapidjson/document.h>

#include <algorithm>

#include "exporter/common/json.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

using rapidjson::Value;

// Reads an optional string; a present non-string is an error.
bool Str(const Value& obj, const char* key, std::string* out, std::string* error) {
  const Value* v = json::Present(obj, key);
  if (v == nullptr) return true;
  if (!v->IsString()) {
    *error = std::string("\"") + key + "\" is not a string";
    return false;
  }
  out->assign(v->GetString(), v->GetStringLength());
  return true;
}

// Optional object field: absent/null -> nullptr (fine); a non-object is an error.
bool Obj(const Value& obj, const char* key, const Value** out, std::string* error) {
  *out = json::Present(obj, key);
  if (*out != nullptr && !(*out)->IsObject()) {
    *error = std::string("\"") + key + "\" is not an object";
    *out = nullptr;
    return false;
  }
  return true;
}

bool Replicas(const Value& spec, const char* component, int32_t* out, std::string* error) {
  const Value* c = nullptr;
  if (!Obj(spec, component, &c, error)) return false;
  if (c == nullptr) return true;
  const Value* r = json::Present(*c, "replicas");
  if (r == nullptr) {
    *out = 0;
    return true;
  }
  if (!r->IsInt()) {
    *error = std::string("spec.") + component + ".replicas is not an integer";
    return false;
  }
  *out = r->GetInt();
  return true;
}

// Reads an optional array of strings; a present non-array or a non-string item is an error.
bool Strings(const Value& obj, const char* key, std::vector<std::string>* out, std::string* error) {
  const Value* v = json::Present(obj, key);
  if (v == nullptr) return true;
  if (!v->IsArray()) {
    *error = std::string("\"") + key + "\" is not an array";
    return false;
  }
  for (const auto& item : v->GetArray()) {
    if (!item.IsString()) {
      *error = std::string("\"") + key + "\" holds a non-string";
      return false;
    }
    out->emplace_back(item.GetString(), item.GetStringLength());
  }
  return true;
}

// spec.pd, spec.cluster, spec.pdAddresses, spec.acrossK8s, spec.clusterDomain: where PD is
// (PdSource, model/tidbcluster_status.h; tidb-operator v1.6.6 types.go TidbClusterSpec and the
// choice of startscript/v1/render_script.go: acrossK8s first, then a heterogeneous cluster
// without a local PD joins the referenced cluster's PD).
bool ReadPdSource(const Value& spec, TidbClusterStatus* tc, std::string* error) {
  PdSource& source = tc->pd_source;
  const Value* ref = nullptr;
  if (!Obj(spec, "cluster", &ref, error)) return false;
  std::string ref_name;
  std::string ref_namespace;
  std::string ref_domain;
  if (ref != nullptr &&
      (!Str(*ref, "name", &ref_name, error) || !Str(*ref, "namespace", &ref_namespace, error) ||
       !Str(*ref, "clusterDomain", &ref_domain, error))) {
    *error = "spec.cluster: " + *error;
    return false;
  }
  if (!Strings(spec, "pdAddresses", &source.addresses, error) ||
      !Str(spec, "clusterDomain", &source.cluster_domain, error)) {
    *error = "spec: " + *error;
    return false;
  }
  const Value* across = json::Present(spec, "acrossK8s");
  if (across != nullptr) {
    if (!across->IsBool()) {
      *error = "spec.acrossK8s is not a boolean";
      return false;
    }
    source.across_k8s = across->GetBool();
  }
  if (source.cluster_domain.empty()) source.cluster_domain = ref_domain;
  if (json::Present(spec, "pd") != nullptr) {
    source.kind = PdSourceKind::kOwn;
  } else if (source.across_k8s || !ref_domain.empty()) {
    source.kind = PdSourceKind::kExternal;
  } else if (!ref_name.empty()) {
    source.kind = PdSourceKind::kReferenced;
    // TidbClusterRef.Namespace: "default to the same namespace" (tidbmonitor_types.go).
    source.referenced = {ref_namespace.empty() ? tc->key.namespace_ : ref_namespace, ref_name};
  } else if (!source.addresses.empty()) {
    source.kind = PdSourceKind::kExternal;
  } else {
    source.kind = PdSourceKind::kUnknown;
  }
  return true;
}

// Reads a failureMembers / failureStores map into *out.
bool Failures(const Value& status, const char* component, const char* field,
              std::vector<TidbFailureMember>* out, std::string* error) {
  const Value* c = nullptr;
  if (!Obj(status, component, &c, error)) return false;
  if (c == nullptr) return true;
  const Value* m = nullptr;
  if (!Obj(*c, field, &m, error)) {
    *error = std::string("status.") + component + "." + *error;
    return false;
  }
  if (m == nullptr) return true;
  for (const auto& entry : m->GetObject()) {
    if (!entry.value.IsObject()) {
      *error = std::string("status.") + component + "." + field + " entry is not an object";
      return false;
    }
    TidbFailureMember f;
    f.component = component;
    f.id.assign(entry.name.GetString(), entry.name.GetStringLength());
    std::string created;
    if (!Str(entry.value, "podName", &f.pod_name, error) ||
        !Str(entry.value, "createdAt", &created, error)) {
      *error = std::string("status.") + component + "." + field + ": " + *error;
      return false;
    }
    if (!created.empty()) {
      auto t = ParseRfc3339(created);
      if (!t) {
        *error = std::string("status.") + component + "." + field + ": bad createdAt";
        return false;
      }
      f.created_at = *t;
    }
    out->push_back(std::move(f));
  }
  return true;
}

// status.pd: the members and their health (the healthy ones' latest transition), the leader.
bool ReadPdStatus(const Value& status, TidbClusterStatus* tc, std::string* error) {
  auto fail = [&](std::string e) {
    *error = std::move(e);
    return false;
  };
  const Value* pd = nullptr;
  if (!Obj(status, "pd", &pd, error)) return fail("status." + *error);
  if (pd == nullptr) return true;
  const Value* members = nullptr;
  if (!Obj(*pd, "members", &members, error)) return fail("status.pd." + *error);
  if (members != nullptr) {
    for (const auto& m : members->GetObject()) {
      if (!m.value.IsObject()) return fail("status.pd.members entry is not an object");
      const Value* health = json::Present(m.value, "health");
      if (health != nullptr && !health->IsBool()) {
        return fail("status.pd.members health is not a boolean");
      }
      const bool healthy = health != nullptr && health->GetBool();
      tc->pd_members[std::string(m.name.GetString(), m.name.GetStringLength())] = healthy;
      if (healthy) {
        tc->pd_healthy_since =
            std::max(tc->pd_healthy_since, json::Time(&m.value, "lastTransitionTime"));
      }
    }
  }
  const Value* leader = nullptr;
  if (!Obj(*pd, "leader", &leader, error)) return fail("status.pd." + *error);
  if (leader != nullptr && !Str(*leader, "name", &tc->pd_leader, error)) {
    return fail("status.pd.leader: " + *error);
  }
  return true;
}

// status.tikv: bootStrapped and the stores (id, pod, state, last transition).
bool ReadTikvStatus(const Value& status, TidbClusterStatus* tc, std::string* error) {
  auto fail = [&](std::string e) {
    *error = std::move(e);
    return false;
  };
  const Value* tikv = nullptr;
  if (!Obj(status, "tikv", &tikv, error)) return fail("status." + *error);
  if (tikv == nullptr) return true;
  const Value* boot = json::Present(*tikv, "bootStrapped");
  if (boot != nullptr) {
    if (!boot->IsBool()) return fail("status.tikv.bootStrapped is not a boolean");
    tc->tikv_bootstrapped = boot->GetBool();
  }
  const Value* stores = nullptr;
  if (!Obj(*tikv, "stores", &stores, error)) return fail("status.tikv." + *error);
  if (stores == nullptr) return true;
  for (const auto& s : stores->GetObject()) {
    if (!s.value.IsObject()) return fail("status.tikv.stores entry is not an object");
    TidbStoreStatus store;
    store.id.assign(s.name.GetString(), s.name.GetStringLength());
    std::string id;
    if (!Str(s.value, "id", &id, error) || !Str(s.value, "podName", &store.pod_name, error) ||
        !Str(s.value, "state", &store.state, error)) {
      return fail("status.tikv.stores: " + *error);
    }
    if (!id.empty()) store.id = id;
    store.last_transition = json::Time(&s.value, "lastTransitionTime");
    tc->tikv_stores.push_back(std::move(store));
  }
  return true;
}

}  // namespace

TidbClusterParse ParseTidbCluster(const Value& object) {
  TidbClusterParse result;
  std::string error;
  auto fail = [&](std::string e) {
    result.error = std::move(e);
    return result;
  };
  if (!object.IsObject()) return fail("TidbCluster is not an object");
  TidbClusterStatus tc;

  const Value* meta = nullptr;
  if (!Obj(object, "metadata", &meta, &error)) return fail(error);
  if (meta == nullptr) return fail("TidbCluster without metadata");
  if (!Str(*meta, "namespace", &tc.key.namespace_, &error) ||
      !Str(*meta, "name", &tc.key.name, &error) || !Str(*meta, "uid", &tc.uid, &error) ||
      !Str(*meta, "resourceVersion", &tc.resource_version, &error)) {
    return fail("metadata: " + error);
  }
  if (tc.key.name.empty()) return fail("TidbCluster without metadata.name");

  const Value* spec = nullptr;
  if (!Obj(object, "spec", &spec, &error)) return fail(error);
  if (spec != nullptr) {
    if (!Replicas(*spec, "pd", &tc.pd_replicas, &error) ||
        !Replicas(*spec, "tikv", &tc.tikv_replicas, &error) ||
        !Replicas(*spec, "tidb", &tc.tidb_replicas, &error) ||
        !Replicas(*spec, "tiflash", &tc.tiflash_replicas, &error) ||
        !ReadPdSource(*spec, &tc, &error)) {
      return fail(error);
    }
  }

  const Value* status = nullptr;
  if (!Obj(object, "status", &status, &error)) return fail(error);
  if (status == nullptr) {  // a freshly created TidbCluster has no status yet
    result.value = std::move(tc);
    return result;
  }

  if (!ReadPdStatus(*status, &tc, &error) || !ReadTikvStatus(*status, &tc, &error)) {
    return fail(error);
  }
  if (!Failures(*status, "pd", "failureMembers", &tc.failure_members, &error) ||
      !Failures(*status, "tidb", "failureMembers", &tc.failure_members, &error) ||
      !Failures(*status, "tikv", "failureStores", &tc.failure_members, &error) ||
      !Failures(*status, "tiflash", "failureStores", &tc.failure_members, &error)) {
    return fail(error);
  }
  result.value = std::move(tc);
  return result;
}

TidbClusterParse ParseTidbCluster(std::string_view text) {
  auto doc = json::Parse(text);
  if (!doc.ok()) {
    TidbClusterParse result;
    result.error = std::move(doc.error);
    return result;
  }
  return ParseTidbCluster(static_cast<const rapidjson::Value&>(*doc.value));
}

}  // namespace podwait
