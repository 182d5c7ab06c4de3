#include "exporter/sources/v2_source.h"

#include <rapidjson/document.h>

#include "exporter/common/json.h"
#include "exporter/common/log.h"
#include "exporter/sources/v2_objects.h"

namespace podwait {
namespace {

// metadata.namespace and metadata.name of a deleted object (a tombstone may be partial).
bool NameOf(const rapidjson::Value& object, std::string* ns, std::string* name) {
  const rapidjson::Value* meta = json::Member(&object, "metadata");
  const rapidjson::Value* n = json::Member(meta, "namespace");
  const rapidjson::Value* m = json::Member(meta, "name");
  if (n == nullptr || m == nullptr || !n->IsString() || !m->IsString()) return false;
  *ns = n->GetString();
  *name = m->GetString();
  return true;
}

}  // namespace

std::vector<V2Resource> V2Resources() {
  std::vector<V2Resource> out = {
      {std::string(v2::kClusterKind), std::string(v2::kClusterResource)}};
  for (const v2::Kind& k : v2::Kinds()) {
    out.push_back({std::string(k.instance_kind), std::string(k.instance_resource)});
    out.push_back({std::string(k.group_kind), std::string(k.group_resource)});
  }
  return out;
}

V2Source::V2Source(V2Store& store, V2Resource resource, std::string namespace_scope)
    : store_(store), resource_(std::move(resource)), scope_(std::move(namespace_scope)) {
  const v2::Kind* k = v2::FindKind(resource_.kind);
  if (k != nullptr) what_ = k->instance_kind == resource_.kind ? What::kInstance : What::kGroup;
}

void V2Source::OnListBegin() { OnListAbort(); }

void V2Source::OnListAbort() {
  clusters_.clear();
  instances_.clear();
  groups_.clear();
}

bool V2Source::Take(const rapidjson::Value& object, bool staging) {
  std::string error;
  switch (what_) {
    case What::kCluster: {
      V2Parse<v2::Cluster> p = ParseV2Cluster(object);
      if (!p.ok()) {
        error = p.error;
        break;
      }
      if (staging) {
        clusters_.push_back(std::move(*p.value));
      } else {
        store_.UpsertCluster(std::move(*p.value));
      }
      return true;
    }
    case What::kInstance: {
      V2Parse<v2::Instance> p = ParseV2Instance(object);
      if (p.ok() && p.value->kind != resource_.kind) p = V2Parse<v2::Instance>::Fail("wrong kind");
      if (!p.ok()) {
        error = p.error;
        break;
      }
      if (staging) {
        instances_.push_back(std::move(*p.value));
      } else {
        store_.UpsertInstance(std::move(*p.value));
      }
      return true;
    }
    case What::kGroup: {
      V2Parse<v2::Group> p = ParseV2Group(object);
      if (p.ok() && p.value->kind != resource_.kind) p = V2Parse<v2::Group>::Fail("wrong kind");
      if (!p.ok()) {
        error = p.error;
        break;
      }
      if (staging) {
        groups_.push_back(std::move(*p.value));
      } else {
        store_.UpsertGroup(std::move(*p.value));
      }
      return true;
    }
  }
  LogDebug("bad v2 object skipped", {{"resource", resource_.plural}, {"error", error}});
  return false;
}

bool V2Source::OnListItem(const rapidjson::Value& object) { return Take(object, true); }

void V2Source::OnListEnd(const std::string&) {
  switch (what_) {
    case What::kCluster:
      store_.ReplaceClusters(scope_, std::move(clusters_));
      break;
    case What::kInstance:
      store_.ReplaceInstances(resource_.kind, scope_, std::move(instances_));
      break;
    case What::kGroup:
      store_.ReplaceGroups(resource_.kind, scope_, std::move(groups_));
      break;
  }
  OnListAbort();
}

bool V2Source::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  if (type == WatchEventType::kDeleted) {
    std::string ns, name;
    if (!NameOf(object, &ns, &name)) return false;
    switch (what_) {
      case What::kCluster:
        store_.RemoveCluster(ns, name);
        break;
      case What::kInstance:
        store_.RemoveInstance(resource_.kind, ns, name);
        break;
      case What::kGroup:
        store_.RemoveGroup(resource_.kind, ns, name);
        break;
    }
    return true;
  }
  if (type != WatchEventType::kAdded && type != WatchEventType::kModified) return true;
  return Take(object, false);
}

}  // namespace podwait
