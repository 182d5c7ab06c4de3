#include "tests/sim/managed_fields.h"

#include <string>

#include "exporter/common/time_format.h"

namespace podwait::sim {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

// The key of a list item, or "" when it has none (such items are not listed, as for a list the
// API server treats atomically).
std::string ItemKey(const rapidjson::Value& item) {
  for (const char* k : {"name", "type", "ip", "uid", "key", "mountPath"}) {
    auto it = item.FindMember(k);
    if (it != item.MemberEnd() && it->value.IsString()) {
      return std::string("k:{\"") + k + "\":\"" + it->value.GetString() + "\"}";
    }
  }
  return "";
}

// The FieldsV1 set of `v`: every object member as "f:<name>", list items by ItemKey, "." for a
// map or item that is itself owned; `depth` levels deep (below that a field is listed as {}),
// or all of it when depth < 0.
void FieldSet(const rapidjson::Value& v, rapidjson::Value* out, Allocator& a, int depth = -1) {
  out->SetObject();
  if (depth == 0) return;
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      rapidjson::Value sub;
      FieldSet(m.value, &sub, a, depth - 1);
      if (m.value.IsObject() && !m.value.ObjectEmpty() && depth != 1) {
        sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      }
      std::string key = std::string("f:") + m.name.GetString();
      out->AddMember(rapidjson::Value(key.c_str(), a), sub, a);
    }
  } else if (v.IsArray()) {
    for (const auto& item : v.GetArray()) {
      if (!item.IsObject()) continue;
      const std::string key = ItemKey(item);
      if (key.empty()) continue;
      rapidjson::Value sub;
      FieldSet(item, &sub, a, depth - 1);
      sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      out->AddMember(rapidjson::Value(key.c_str(), a), sub, a);
    }
  }
}

rapidjson::Value Entry(const char* manager, const char* operation, const char* subresource,
                       const std::string& time, rapidjson::Value fields, Allocator& a) {
  rapidjson::Value e(rapidjson::kObjectType);
  e.AddMember("manager", rapidjson::StringRef(manager), a);
  e.AddMember("operation", rapidjson::StringRef(operation), a);
  e.AddMember("apiVersion", "v1", a);
  e.AddMember("time", rapidjson::Value(time.c_str(), a), a);
  e.AddMember("fieldsType", "FieldsV1", a);
  e.AddMember("fieldsV1", fields, a);
  if (subresource != nullptr) e.AddMember("subresource", rapidjson::StringRef(subresource), a);
  return e;
}

bool StartsWith(const char* s, const char* prefix) {
  return std::string_view(s).substr(0, std::string_view(prefix).size()) == prefix;
}

}  // namespace

void AddManagedFields(rapidjson::Document* doc, Timestamp at, int depth) {
  if (!doc->IsObject() || !doc->HasMember("metadata") || !(*doc)["metadata"].IsObject()) return;
  auto& a = doc->GetAllocator();
  const std::string time = FormatRfc3339(at / 1000 * 1000);
  rapidjson::Value& meta = (*doc)["metadata"];
  meta.RemoveMember("managedFields");
  const rapidjson::Value* spec =
      doc->HasMember("spec") && (*doc)["spec"].IsObject() ? &(*doc)["spec"] : nullptr;
  const rapidjson::Value* status =
      doc->HasMember("status") && (*doc)["status"].IsObject() ? &(*doc)["status"] : nullptr;

  bool v2 = false;
  if (meta.HasMember("ownerReferences") && meta["ownerReferences"].IsArray()) {
    for (const auto& o : meta["ownerReferences"].GetArray()) {
      if (o.IsObject() && o.HasMember("apiVersion") && o["apiVersion"].IsString() &&
          StartsWith(o["apiVersion"].GetString(), "core.pingcap.com/")) {
        v2 = true;
      }
    }
  }
  rapidjson::Value list(rapidjson::kArrayType);

  // The creator: metadata it set (operator labels of v1 members come later, from another manager)
  // and the whole spec but nodeName, which the scheduler's binding sets.
  rapidjson::Value created(rapidjson::kObjectType);
  {
    rapidjson::Value md(rapidjson::kObjectType);
    for (const char* k : {"annotations", "generateName", "labels", "ownerReferences"}) {
      auto it = meta.FindMember(k);
      if (it == meta.MemberEnd()) continue;
      rapidjson::Value sub;
      if (std::string_view(k) == "labels" && it->value.IsObject()) {
        sub.SetObject();
        for (const auto& l : it->value.GetObject()) {
          if (StartsWith(l.name.GetString(), "tidb.pingcap.com/")) continue;
          std::string key = std::string("f:") + l.name.GetString();
          sub.AddMember(rapidjson::Value(key.c_str(), a), rapidjson::Value(rapidjson::kObjectType),
                        a);
        }
        sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      } else {
        FieldSet(it->value, &sub, a);
        if (it->value.IsObject()) sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      }
      md.AddMember(rapidjson::Value((std::string("f:") + k).c_str(), a), sub, a);
    }
    created.AddMember("f:metadata", md, a);
    if (spec != nullptr) {
      rapidjson::Value sp;
      FieldSet(*spec, &sp, a, depth);
      sp.RemoveMember("f:nodeName");
      created.AddMember("f:spec", sp, a);
    }
  }
  list.PushBack(
      v2 ? Entry("tidb-operator", "Apply", nullptr, time, std::move(created), a)
         : Entry("kube-controller-manager", "Update", nullptr, time, std::move(created), a),
      a);

  // tidb-operator v1 labels its members once they joined (cluster-id, member-id, store-id).
  if (meta.HasMember("labels") && meta["labels"].IsObject()) {
    rapidjson::Value labels(rapidjson::kObjectType);
    for (const auto& l : meta["labels"].GetObject()) {
      if (!StartsWith(l.name.GetString(), "tidb.pingcap.com/")) continue;
      std::string key = std::string("f:") + l.name.GetString();
      labels.AddMember(rapidjson::Value(key.c_str(), a), rapidjson::Value(rapidjson::kObjectType),
                       a);
    }
    if (!labels.ObjectEmpty()) {
      rapidjson::Value md(rapidjson::kObjectType);
      md.AddMember("f:labels", labels, a);
      rapidjson::Value fields(rapidjson::kObjectType);
      fields.AddMember("f:metadata", md, a);
      list.PushBack(Entry("tidb-controller-manager", "Update", nullptr, time, std::move(fields), a),
                    a);
    }
  }

  const bool bound = spec != nullptr && spec->HasMember("nodeName");
  if (status != nullptr && !bound && status->HasMember("conditions") &&
      (*status)["conditions"].IsArray()) {
    rapidjson::Value conds;
    FieldSet((*status)["conditions"], &conds, a, depth < 0 ? -1 : depth - 1);
    if (!conds.ObjectEmpty()) {
      rapidjson::Value st(rapidjson::kObjectType);
      st.AddMember("f:conditions", conds, a);
      rapidjson::Value fields(rapidjson::kObjectType);
      fields.AddMember("f:status", st, a);
      list.PushBack(Entry("kube-scheduler", "Update", "status", time, std::move(fields), a), a);
    }
  }
  if (status != nullptr && bound) {
    rapidjson::Value st;
    FieldSet(*status, &st, a, depth < 0 ? -1 : depth - 1);
    rapidjson::Value fields(rapidjson::kObjectType);
    fields.AddMember("f:status", st, a);
    list.PushBack(Entry("kubelet", "Update", "status", time, std::move(fields), a), a);
  }
  meta.AddMember("managedFields", list, a);
}

}  // namespace podwait::sim
