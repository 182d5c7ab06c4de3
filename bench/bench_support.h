#pragma once

// Inputs for the benchmarks: pod documents and watch lines of real size and shape.
//
// Pods come from podwait-sim's pod shorthand (tests/sim/shorthand.h), which writes tidb-operator
// pods in the shape of the real documents of tests/fixtures/real/k8s/ (~2.9 KB of JSON; with
// "full": true the whole spec of a real tidb-operator pod and managedFields, ~5 KB, as the
// simulator's load generation serves them). WithManagedFields() adds metadata.managedFields to a
// pod the way the API server writes them (sim::AddManagedFields, which the simulator uses too).

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "exporter/common/time_format.h"
#include "tests/sim/managed_fields.h"
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

// Adds metadata.managedFields the way the API server writes them (sim::AddManagedFields).
inline void WithManagedFields(rapidjson::Document* doc) { sim::AddManagedFields(doc, kNow); }

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
