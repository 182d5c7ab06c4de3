#pragma once

// Small, forgiving accessors for Kubernetes JSON documents: a missing member or a member of the
// wrong type reads as absent, never as a crash.

#include <rapidjson/document.h>

#include <cstdint>
#include <string_view>

#include "exporter/common/clock.h"
#include "exporter/common/time_format.h"

namespace podwait::json {

// The member `name` of an object, or nullptr (also when `v` is not an object).
inline const rapidjson::Value* Member(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}
inline const rapidjson::Value* Member(const rapidjson::Value* v, const char* name) {
  return v == nullptr ? nullptr : Member(*v, name);
}
// An object member, or nullptr.
inline const rapidjson::Value* Object(const rapidjson::Value* v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m != nullptr && m->IsObject() ? m : nullptr;
}
// An array member, or nullptr.
inline const rapidjson::Value* Array(const rapidjson::Value* v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m != nullptr && m->IsArray() ? m : nullptr;
}
inline std::string_view Str(const rapidjson::Value* v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  if (m == nullptr || !m->IsString()) return {};
  return {m->GetString(), m->GetStringLength()};
}
inline int64_t Int(const rapidjson::Value* v, const char* name, int64_t fallback = 0) {
  const rapidjson::Value* m = Member(v, name);
  if (m == nullptr || !m->IsInt64()) return fallback;
  return m->GetInt64();
}
inline bool Bool(const rapidjson::Value* v, const char* name, bool fallback = false) {
  const rapidjson::Value* m = Member(v, name);
  if (m == nullptr || !m->IsBool()) return fallback;
  return m->GetBool();
}
// An RFC 3339 timestamp member in ms, or 0 when absent or malformed.
inline Timestamp Time(const rapidjson::Value* v, const char* name) {
  std::string_view s = Str(v, name);
  if (s.empty()) return 0;
  return ParseRfc3339(s).value_or(0);
}

}  // namespace podwait::json
