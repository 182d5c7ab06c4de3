#include "tests/sim/store.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <set>

#include "exporter/common/json_escape.h"
#include "exporter/common/time_format.h"

namespace podwait::sim {

namespace {

constexpr Resource V2(int i) {
  return static_cast<Resource>(static_cast<int>(Resource::kFirstV2) + i);
}
constexpr const char* kCore = "core.pingcap.com/v1alpha1";

// The v2 rows follow the CRDs of pingcap/tidb-operator (manifests/crd/core.pingcap.com_*.yaml):
// plural, kind, list kind, singular, shortNames (where the CRD declares them), categories, a
// status subresource.
constexpr ResourceInfo kInfos[kResourceCount] = {
    {Resource::kPods, "pods", "Pod", "PodList", "v1", true, "pod", "po", "all", true},
    {Resource::kEvents, "events", "Event", "EventList", "v1", true, "event", "ev", "", false},
    {Resource::kTidbClusters, "tidbclusters", "TidbCluster", "TidbClusterList",
     "pingcap.com/v1alpha1", false, "tidbcluster", "tc", "", false},
    {Resource::kConfigMaps, "configmaps", "ConfigMap", "ConfigMapList", "v1", true, "configmap",
     "cm", "", false},
    {Resource::kPersistentVolumeClaims, "persistentvolumeclaims", "PersistentVolumeClaim",
     "PersistentVolumeClaimList", "v1", true, "persistentvolumeclaim", "pvc", "", true},
    {Resource::kPersistentVolumes, "persistentvolumes", "PersistentVolume", "PersistentVolumeList",
     "v1", true, "persistentvolume", "pv", "", true, /*cluster_scoped=*/true},
    // tidb-operator v1.6 manifests/crd/v1/pingcap.com_dmclusters.yaml (shortName dc).
    {Resource::kDmClusters, "dmclusters", "DMCluster", "DMClusterList", "pingcap.com/v1alpha1",
     false, "dmcluster", "dc", "", false},
    {V2(0), "clusters", "Cluster", "ClusterList", kCore, false, "cluster", "", "", true},
    {V2(1), "pdgroups", "PDGroup", "PDGroupList", kCore, false, "pdgroup", "pdg", "group", true},
    {V2(2), "pds", "PD", "PDList", kCore, false, "pd", "", "instance", true},
    {V2(3), "tikvgroups", "TiKVGroup", "TiKVGroupList", kCore, false, "tikvgroup", "", "group",
     true},
    {V2(4), "tikvs", "TiKV", "TiKVList", kCore, false, "tikv", "", "instance", true},
    {V2(5), "tidbgroups", "TiDBGroup", "TiDBGroupList", kCore, false, "tidbgroup", "", "group",
     true},
    {V2(6), "tidbs", "TiDB", "TiDBList", kCore, false, "tidb", "", "instance", true},
    {V2(7), "tiflashgroups", "TiFlashGroup", "TiFlashGroupList", kCore, false, "tiflashgroup", "",
     "group", true},
    {V2(8), "tiflashes", "TiFlash", "TiFlashList", kCore, false, "tiflash", "", "instance", true},
    {V2(9), "ticdcgroups", "TiCDCGroup", "TiCDCGroupList", kCore, false, "ticdcgroup", "", "group",
     true},
    {V2(10), "ticdcs", "TiCDC", "TiCDCList", kCore, false, "ticdc", "", "instance", true},
    {V2(11), "tsogroups", "TSOGroup", "TSOGroupList", kCore, false, "tsogroup", "", "group", true},
    {V2(12), "tsos", "TSO", "TSOList", kCore, false, "tso", "", "instance", true},
    {V2(13), "schedulinggroups", "SchedulingGroup", "SchedulingGroupList", kCore, false,
     "schedulinggroup", "", "group", true},
    {V2(14), "schedulings", "Scheduling", "SchedulingList", kCore, false, "scheduling", "",
     "instance", true},
    {V2(15), "schedulergroups", "SchedulerGroup", "SchedulerGroupList", kCore, false,
     "schedulergroup", "", "group", true},
    {V2(16), "schedulers", "Scheduler", "SchedulerList", kCore, false, "scheduler", "", "instance",
     true},
    {V2(17), "resourcemanagergroups", "ResourceManagerGroup", "ResourceManagerGroupList", kCore,
     false, "resourcemanagergroup", "rmg", "group", true},
    {V2(18), "resourcemanagers", "ResourceManager", "ResourceManagerList", kCore, false,
     "resourcemanager", "", "instance", true},
    {V2(19), "routergroups", "RouterGroup", "RouterGroupList", kCore, false, "routergroup", "rg",
     "group", true},
    {V2(20), "routers", "Router", "RouterList", kCore, false, "router", "", "instance", true},
    {V2(21), "tikvworkergroups", "TiKVWorkerGroup", "TiKVWorkerGroupList", kCore, false,
     "tikvworkergroup", "kvwg", "group", true},
    {V2(22), "tikvworkers", "TiKVWorker", "TiKVWorkerList", kCore, false, "tikvworker", "",
     "instance", true},
    {V2(23), "tiproxygroups", "TiProxyGroup", "TiProxyGroupList", kCore, false, "tiproxygroup",
     "pg", "group", true},
    {V2(24), "tiproxies", "TiProxy", "TiProxyList", kCore, false, "tiproxy", "", "instance", true},
    {V2(25), "dmgroups", "DMGroup", "DMGroupList", kCore, false, "dmgroup", "dmg", "group", true},
    {V2(26), "dms", "DM", "DMList", kCore, false, "dm", "", "instance", true},
    {V2(27), "dmworkergroups", "DMWorkerGroup", "DMWorkerGroupList", kCore, false, "dmworkergroup",
     "dmwg", "group", true},
    {V2(28), "dmworkers", "DMWorker", "DMWorkerList", kCore, false, "dmworker", "", "instance",
     true},
    // cluster-autoscaler apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go (kubebuilder
    // shortNames provreq, provreqs; a status subresource) and karpenter pkg/apis/v1/nodeclaim.go
    // (cluster-scoped, category karpenter).
    {V2(kV2ResourceCount), "provisioningrequests", "ProvisioningRequest", "ProvisioningRequestList",
     "autoscaling.x-k8s.io/v1", false, "provisioningrequest", "provreq,provreqs", "", true},
    {V2(kV2ResourceCount + 1), "nodeclaims", "NodeClaim", "NodeClaimList", "karpenter.sh/v1", false,
     "nodeclaim", "", "karpenter", true, /*cluster_scoped=*/true},
};

constexpr bool InEnumOrder() {
  for (int i = 0; i < kResourceCount; ++i) {
    if (static_cast<int>(kInfos[i].resource) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "kInfos is indexed by Resource");

const char* const kPodFields[] = {
    "metadata.name",      "metadata.namespace", "spec.nodeName",
    "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
    "status.phase",       "status.podIP",       "status.nominatedNodeName"};
const char* const kEventFields[] = {"metadata.name",
                                    "metadata.namespace",
                                    "involvedObject.kind",
                                    "involvedObject.namespace",
                                    "involvedObject.name",
                                    "involvedObject.uid",
                                    "involvedObject.apiVersion",
                                    "involvedObject.resourceVersion",
                                    "involvedObject.fieldPath",
                                    "reason",
                                    "reportingComponent",
                                    "source",
                                    "type"};
const char* const kMetaFields[] = {"metadata.name", "metadata.namespace"};

template <size_t N>
bool Contains(const char* const (&arr)[N], std::string_view f) {
  for (const char* a : arr) {
    if (f == a) return true;
  }
  return false;
}

// Value at a dotted path, as a string ("" when absent or not a scalar).
std::string StringAt(const rapidjson::Value& root, std::string_view path) {
  const rapidjson::Value* v = &root;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string part(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (!v->IsObject()) return "";
    auto it = v->FindMember(part.c_str());
    if (it == v->MemberEnd()) return "";
    v = &it->value;
  }
  if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
  if (v->IsBool()) return v->GetBool() ? "true" : "false";
  if (v->IsInt64()) return std::to_string(v->GetInt64());
  if (v->IsUint64()) return std::to_string(v->GetUint64());
  return "";
}

}  // namespace

const ResourceInfo& Info(Resource r) { return kInfos[static_cast<int>(r)]; }

std::string ResourceInfo::PathPrefix() const {
  return core ? std::string("/api/") + api_version : std::string("/apis/") + api_version;
}

std::vector<Resource> ResourcesOf(std::string_view api_version) {
  std::vector<Resource> out;
  for (const auto& i : kInfos) {
    if (api_version == i.api_version) out.push_back(i.resource);
  }
  return out;
}

std::optional<Resource> ResourceFromPlural(std::string_view plural) {
  for (const auto& i : kInfos) {
    if (plural == i.plural) return i.resource;
  }
  return std::nullopt;
}

std::optional<Resource> ResourceFromKind(std::string_view kind) {
  for (const auto& i : kInfos) {
    if (kind == i.kind) return i.resource;
  }
  return std::nullopt;
}

bool FieldSupported(Resource r, std::string_view field) {
  switch (r) {
    case Resource::kPods:
      return Contains(kPodFields, field);
    case Resource::kEvents:
      return Contains(kEventFields, field);
    default:
      return Contains(kMetaFields, field);
  }
}

const char* EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

void Object::AppendListItem(std::string* out) const {
  if (!Info(resource).core || body_offset == 0) {
    out->append(json);
    return;
  }
  out->push_back('{');
  out->append(json, body_offset, std::string::npos);
}

std::string Object::FieldValue(std::string_view field) const {
  if (field == "metadata.name") return name;
  if (field == "metadata.namespace") return ns;
  for (const auto& [k, v] : fields) {
    if (field == k) return v;
  }
  return "";
}

const std::string* InternKey(std::string_view key) {
  static std::mutex mu;
  static std::set<std::string, std::less<>> keys;
  std::lock_guard<std::mutex> lock(mu);
  auto it = keys.find(key);
  if (it == keys.end()) it = keys.emplace(key).first;
  return &*it;
}

bool MatchesLabels(const Selector& selector, const KeyValues& labels) {
  return selector.MatchesWith([&labels](const std::string& key) -> const std::string* {
    for (const auto& [k, v] : labels) {
      if (*k == key) return &v;
    }
    return nullptr;
  });
}

bool MatchesFields(const Selector& selector, const Object& o) {
  // A field the object does not set reads as "", as the API server's field sets do.
  std::string value;
  return selector.MatchesWith([&o, &value](const std::string& key) {
    value = o.FieldValue(key);
    return &value;
  });
}

std::string ToJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

void MergePatch(rapidjson::Value& target, const rapidjson::Value& patch,
                rapidjson::Document::AllocatorType& alloc) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, alloc);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (const auto& m : patch.GetObject()) {
    auto it = target.FindMember(m.name);
    if (m.value.IsNull()) {
      if (it != target.MemberEnd()) target.RemoveMember(it);
    } else if (it != target.MemberEnd()) {
      MergePatch(it->value, m.value, alloc);
    } else {
      rapidjson::Value name(m.name, alloc);
      rapidjson::Value value(rapidjson::kObjectType);
      MergePatch(value, m.value, alloc);
      target.AddMember(name, value, alloc);
    }
  }
}

std::string StatusJson(int code, std::string_view reason, std::string_view message) {
  return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
         "\"message\":\"" +
         JsonEscaped(message) + "\",\"reason\":\"" + JsonEscaped(reason) +
         "\",\"details\":{},\"code\":" + std::to_string(code) + "}";
}

ObjectPtr BuildObject(Resource r, rapidjson::Document& doc, uint64_t rv, std::string* error) {
  if (!doc.IsObject()) {
    *error = "document is not a JSON object";
    return nullptr;
  }
  auto meta_it = doc.FindMember("metadata");
  if (meta_it == doc.MemberEnd() || !meta_it->value.IsObject()) {
    *error = "document has no metadata";
    return nullptr;
  }
  rapidjson::Value& meta = meta_it->value;
  auto& alloc = doc.GetAllocator();
  auto obj = std::make_shared<Object>();
  obj->resource = r;
  obj->name = StringAt(meta, "name");
  obj->ns = StringAt(meta, "namespace");
  if (obj->name.empty()) {
    *error = "metadata.name is empty";
    return nullptr;
  }
  if (obj->ns.empty() != Info(r).cluster_scoped) {
    *error =
        Info(r).cluster_scoped
            ? std::string(Info(r).plural) + " are cluster-scoped: no metadata.namespace"
            : "metadata.namespace is empty (" + std::string(Info(r).plural) + " are namespaced)";
    return nullptr;
  }
  obj->uid = StringAt(meta, "uid");
  obj->creation = StringAt(meta, "creationTimestamp");
  obj->rv = rv;
  std::string rv_text = std::to_string(rv);
  auto rv_it = meta.FindMember("resourceVersion");
  if (rv_it != meta.MemberEnd()) {
    rv_it->value.SetString(rv_text.c_str(), static_cast<rapidjson::SizeType>(rv_text.size()),
                           alloc);
  } else {
    meta.AddMember("resourceVersion", rapidjson::Value(rv_text.c_str(), alloc), alloc);
  }
  auto labels_it = meta.FindMember("labels");
  if (labels_it != meta.MemberEnd() && labels_it->value.IsObject()) {
    for (auto& m : labels_it->value.GetObject()) {
      if (m.value.IsString()) {
        obj->labels.emplace_back(InternKey(m.name.GetString()), m.value.GetString());
      }
    }
  }
  auto add_field = [&](const char* f, std::string v) {
    if (!v.empty() && std::string_view(f).rfind("metadata.", 0) != 0) {
      obj->fields.emplace_back(f, std::move(v));
    }
  };
  if (r == Resource::kPods) {
    for (const char* f : kPodFields) add_field(f, StringAt(doc, f));
  } else if (r == Resource::kEvents) {
    for (const char* f : kEventFields) {
      std::string_view fv(f);
      add_field(f, StringAt(doc, fv == "source" ? "source.component" : fv));
    }
  } else {
    for (const char* f : kMetaFields) add_field(f, StringAt(doc, f));
  }
  const ResourceInfo& info = Info(r);
  std::string head =
      std::string("{\"kind\":\"") + info.kind + "\",\"apiVersion\":\"" + info.api_version + "\",";
  // Serialize the members other than kind/apiVersion.
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  for (auto& m : doc.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "kind" || key == "apiVersion") continue;
    w.Key(m.name.GetString(), m.name.GetStringLength());
    m.value.Accept(w);
  }
  w.EndObject();
  std::string_view rest(sb.GetString(), sb.GetSize());  // "{...}"
  obj->json.reserve(head.size() + rest.size());
  obj->json = head;
  obj->json.append(rest.substr(1));
  obj->body_offset = head.size();
  return obj;
}

Store::Store(size_t history_limit, uint64_t seed, const Clock& clock)
    : history_limit_(history_limit < 16 ? 16 : history_limit), clock_(clock), rng_(seed) {}

std::string Store::NewUid() {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t a = rng_();
  uint64_t b = rng_();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

ObjectPtr Store::Upsert(Resource r, rapidjson::Document doc, std::string* error) {
  if (!doc.IsObject() || !doc.HasMember("metadata") || !doc["metadata"].IsObject()) {
    *error = "document has no metadata";
    return nullptr;
  }
  auto& alloc = doc.GetAllocator();
  rapidjson::Value& meta = doc["metadata"];
  std::string ns = StringAt(meta, "namespace");
  std::string name = StringAt(meta, "name");
  std::string fresh_uid;
  if (StringAt(meta, "uid").empty()) fresh_uid = NewUid();
  std::lock_guard<std::mutex> lock(mu_);
  auto& objects = objects_[static_cast<int>(r)];
  auto it = objects.find(Key(ns, name));
  ObjectPtr prev = it == objects.end() ? nullptr : it->second;
  auto set_meta = [&](const char* key, const std::string& value) {
    auto m = meta.FindMember(key);
    if (m != meta.MemberEnd()) {
      m->value.SetString(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), alloc);
    } else {
      meta.AddMember(rapidjson::Value(key, alloc), rapidjson::Value(value.c_str(), alloc), alloc);
    }
  };
  if (StringAt(meta, "uid").empty()) set_meta("uid", prev ? prev->uid : fresh_uid);
  if (StringAt(meta, "creationTimestamp").empty()) {
    set_meta("creationTimestamp", prev && !prev->creation.empty()
                                      ? prev->creation
                                      : FormatRfc3339(clock_.Now() / 1000 * 1000));
  }
  ObjectPtr obj = BuildObject(r, doc, rv_ + 1, error);
  if (!obj) return nullptr;
  ++rv_;
  if (prev) {
    it->second = obj;
  } else {
    objects.emplace(Key(ns, name), obj);
  }
  Record(prev ? EventType::kModified : EventType::kAdded, obj, prev);
  return obj;
}

bool Store::Delete(Resource r, const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& objects = objects_[static_cast<int>(r)];
  auto it = objects.find(Key(ns, name));
  if (it == objects.end()) return false;
  rapidjson::Document doc;
  doc.Parse(it->second->json.c_str(), it->second->json.size());
  std::string error;
  ObjectPtr gone = BuildObject(r, doc, rv_ + 1, &error);
  if (!gone) return false;
  ++rv_;
  objects.erase(it);
  Record(EventType::kDeleted, gone, nullptr);
  return true;
}

void Store::Record(EventType type, ObjectPtr obj, ObjectPtr prev) {
  history_.push_back({type, std::move(obj), std::move(prev)});
  while (history_.size() > history_limit_) {
    history_.pop_front();
    ++history_base_;
  }
  cv_.notify_all();
}

ObjectPtr Store::Get(Resource r, const std::string& ns, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto& objects = objects_[static_cast<int>(r)];
  auto it = objects.find(Key(ns, name));
  return it == objects.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Store::Snapshot(Resource r, const std::string& ns) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto& objects = objects_[static_cast<int>(r)];
  std::vector<ObjectPtr> out;
  if (ns.empty()) {
    out.reserve(objects.size());
    for (const auto& [k, v] : objects) out.push_back(v);
  } else {
    std::string prefix = ns + "/";
    for (auto it = objects.lower_bound(prefix);
         it != objects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      out.push_back(it->second);
    }
  }
  return out;
}

size_t Store::Count(Resource r) const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_[static_cast<int>(r)].size();
}

Store::ListPage Store::List(Resource r, const ListQuery& q) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto& objects = objects_[static_cast<int>(r)];
  ListPage page;
  page.rv = rv_;
  std::string prefix = q.ns.empty() ? std::string() : q.ns + "/";
  auto it = q.start_key.empty() ? objects.lower_bound(prefix) : objects.upper_bound(q.start_key);
  auto in_range = [&](decltype(it) i) {
    return i != objects.end() &&
           (prefix.empty() || i->first.compare(0, prefix.size(), prefix) == 0);
  };
  bool filtered = !q.labels.empty() || !q.fields.empty();
  for (; in_range(it); ++it) {
    const ObjectPtr& o = it->second;
    if (filtered && (!MatchesLabels(q.labels, o->labels) || !MatchesFields(q.fields, *o))) continue;
    if (q.limit > 0 && page.items.size() == q.limit) {
      page.last_key = Key(page.items.back()->ns, page.items.back()->name);
      if (!filtered) {
        int64_t remaining = 0;
        for (auto j = it; in_range(j); ++j) ++remaining;
        page.remaining = remaining;
      }
      break;
    }
    page.items.push_back(o);
  }
  return page;
}

uint64_t Store::CurrentRv() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_;
}

uint64_t Store::OldestWatchableRv() const {
  std::lock_guard<std::mutex> lock(mu_);
  return history_base_ - 1;
}

void Store::Compact() {
  std::lock_guard<std::mutex> lock(mu_);
  history_.clear();
  history_base_ = rv_ + 1;
  cv_.notify_all();
}

bool Store::Since(uint64_t after, size_t max, std::vector<HistoryEntry>* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (after + 1 < history_base_) return false;
  for (uint64_t rv = after + 1; rv <= rv_ && out->size() < max; ++rv) {
    out->push_back(history_[rv - history_base_]);
  }
  return true;
}

void Store::WaitForChange(uint64_t after, int64_t deadline_ms) const {
  std::unique_lock<std::mutex> lock(mu_);
  int64_t now = clock_.MonotonicMs();
  if (rv_ > after || now >= deadline_ms) return;
  cv_.wait_for(lock, std::chrono::milliseconds(deadline_ms - now));
}

void Store::WakeAll() const {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

}  // namespace podwait::sim
