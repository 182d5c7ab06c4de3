#pragma once

// Inputs for the benchmarks: pod documents and watch lines of real size and shape.
//
// Pods come from podwait-sim's pod shorthand (tests/sim/shorthand.h), which writes tidb-operator
// pods in the shape of the real documents of tests/fixtures/real/k8s/ (~2.9 KB of JSON). A pod
// read from a real API server also carries metadata.managedFields (server-side apply field
// ownership), which the shorthand leaves out; WithManagedFields() adds them the way the API server
// writes them (one entry per field manager, with a FieldsV1 set of the fields that manager set),
// made up from the document's own fields, which brings a pod to the ~5 KB of a real watch event.

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "exporter/common/time_format.h"
#include "tests/sim/shorthand.h"

namespace podwait::bench {

inline constexpr Timestamp kNow = 1'714'600'000'000;  // 2024-05-01T21:46:40Z

// A pod from the simulator's shorthand, e.g. {"namespace":"ns","name":"tc-tikv-0","stage":"init",
// "waitForPd":true}. uid and resourceVersion are set (the simulator's store would set them).
inline rapidjson::Document ShorthandPod(const std::string& shorthand, const std::string& uid,
                                        const std::string& resource_version) {
  rapidjson::Document spec;
  spec.Parse(shorthand.c_str(), shorthand.size());
  if (spec.HasParseError()) throw std::runtime_error("bad shorthand: " + shorthand);
  rapidjson::Document doc;
  std::string error;
  if (!sim::ExpandPod(spec, kNow, &doc, &error)) throw std::runtime_error(error);
  auto& a = doc.GetAllocator();
  rapidjson::Value& meta = doc["metadata"];
  meta.RemoveMember("uid");
  meta.RemoveMember("resourceVersion");
  meta.AddMember("uid", rapidjson::Value(uid.c_str(), a), a);
  meta.AddMember("resourceVersion", rapidjson::Value(resource_version.c_str(), a), a);
  return doc;
}

namespace internal {

// The FieldsV1 set of `v`: every object member as "f:<name>", list items keyed the way the API
// server keys them ("k:{\"name\":...}" for containers, "k:{\"type\":...}" for conditions,
// "k:{\"ip\":...}" for IPs), "." for a map or item that is itself owned.
inline void FieldSet(const rapidjson::Value& v, rapidjson::Value* out,
                     rapidjson::Document::AllocatorType& a) {
  out->SetObject();
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      rapidjson::Value sub;
      FieldSet(m.value, &sub, a);
      if (m.value.IsObject() && !m.value.ObjectEmpty()) {
        sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      }
      std::string key = std::string("f:") + m.name.GetString();
      out->AddMember(rapidjson::Value(key.c_str(), a), sub, a);
    }
  } else if (v.IsArray()) {
    for (const auto& item : v.GetArray()) {
      if (!item.IsObject()) continue;
      std::string key;
      for (const char* k : {"name", "type", "ip"}) {
        auto it = item.FindMember(k);
        if (it != item.MemberEnd() && it->value.IsString()) {
          key = std::string("k:{\"") + k + "\":\"" + it->value.GetString() + "\"}";
          break;
        }
      }
      if (key.empty()) continue;
      rapidjson::Value sub;
      FieldSet(item, &sub, a);
      sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      out->AddMember(rapidjson::Value(key.c_str(), a), sub, a);
    }
  }
}

inline rapidjson::Value ManagedFieldsEntry(const char* manager, const char* subresource,
                                           rapidjson::Value fields,
                                           rapidjson::Document::AllocatorType& a) {
  rapidjson::Value e(rapidjson::kObjectType);
  e.AddMember("manager", rapidjson::StringRef(manager), a);
  e.AddMember("operation", "Update", a);
  e.AddMember("apiVersion", "v1", a);
  e.AddMember("time", rapidjson::Value(FormatRfc3339(kNow).c_str(), a), a);
  e.AddMember("fieldsType", "FieldsV1", a);
  e.AddMember("fieldsV1", fields, a);
  if (subresource != nullptr) e.AddMember("subresource", rapidjson::StringRef(subresource), a);
  return e;
}

}  // namespace internal

// Adds metadata.managedFields: kube-controller-manager owns the labels, owner references and
// spec it created the pod with; the kubelet owns the status (subresource "status").
inline void WithManagedFields(rapidjson::Document* doc) {
  auto& a = doc->GetAllocator();
  rapidjson::Value& meta = (*doc)["metadata"];
  rapidjson::Value created(rapidjson::kObjectType);
  {
    rapidjson::Value md(rapidjson::kObjectType);
    for (const char* k : {"generateName", "labels", "ownerReferences"}) {
      auto it = meta.FindMember(k);
      if (it == meta.MemberEnd()) continue;
      rapidjson::Value sub;
      internal::FieldSet(it->value, &sub, a);
      if (it->value.IsObject()) sub.AddMember(".", rapidjson::Value(rapidjson::kObjectType), a);
      md.AddMember(rapidjson::Value((std::string("f:") + k).c_str(), a), sub, a);
    }
    created.AddMember("f:metadata", md, a);
    rapidjson::Value spec;
    internal::FieldSet((*doc)["spec"], &spec, a);
    created.AddMember("f:spec", spec, a);
  }
  rapidjson::Value status_fields(rapidjson::kObjectType);
  {
    rapidjson::Value st;
    internal::FieldSet((*doc)["status"], &st, a);
    status_fields.AddMember("f:status", st, a);
  }
  rapidjson::Value list(rapidjson::kArrayType);
  list.PushBack(
      internal::ManagedFieldsEntry("kube-controller-manager", nullptr, std::move(created), a), a);
  list.PushBack(internal::ManagedFieldsEntry("kubelet", "status", std::move(status_fields), a), a);
  meta.AddMember("managedFields", list, a);
}

inline std::string ToJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

// One watch line: {"type":"MODIFIED","object":{...}}.
inline std::string WatchLine(const char* type, const rapidjson::Value& object) {
  return std::string("{\"type\":\"") + type + "\",\"object\":" + ToJson(object) + "}";
}

}  // namespace podwait::bench
