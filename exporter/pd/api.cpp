#include "exporter/pd/api.h"

#include <rapidjson/document.h>

#include <cctype>
#include <charconv>

#include "exporter/common/json.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

using rapidjson::Value;

// Parses body into doc; returns an empty string or what was wrong.
std::string ParseJson(std::string_view body, rapidjson::Document* doc) {
  size_t first = 0;
  while (first < body.size() && std::isspace(static_cast<unsigned char>(body[first]))) ++first;
  if (first == body.size()) return "empty body";
  if (body[first] == '<') return "not JSON (looks like HTML)";
  return json::ParseInto(body, doc);
}

// A uint64 written as a JSON number or as a decimal string (some PD/gateway versions quote it).
bool GetUint64(const Value& v, uint64_t* out) {
  if (v.IsUint64()) {
    *out = v.GetUint64();
    return true;
  }
  if (v.IsString()) {
    const char* s = v.GetString();
    const char* e = s + v.GetStringLength();
    auto [ptr, ec] = std::from_chars(s, e, *out);
    return ec == std::errc() && ptr == e && s != e;
  }
  return false;
}

// Optional string field: absent/null is fine (empty), any other non-string type is an error.
bool OptString(const Value& obj, const char* key, std::string* out, std::string* error) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return true;
  if (!it->value.IsString()) {
    *error = std::string("field \"") + key + "\" is not a string";
    return false;
  }
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

bool OptStringArray(const Value& obj, const char* key, std::vector<std::string>* out,
                    std::string* error) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return true;
  if (!it->value.IsArray()) {
    *error = std::string("field \"") + key + "\" is not an array";
    return false;
  }
  for (const auto& e : it->value.GetArray()) {
    if (!e.IsString()) {
      *error = std::string("field \"") + key + "\" holds a non-string";
      return false;
    }
    out->emplace_back(e.GetString(), e.GetStringLength());
  }
  return true;
}

bool OptUint64(const Value& obj, const char* key, uint64_t* out, std::string* error) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return true;
  if (!GetUint64(it->value, out)) {
    *error = std::string("field \"") + key + "\" is not an unsigned 64-bit integer";
    return false;
  }
  return true;
}

// A bool written as JSON true/false or as the strings "true"/"false" (PD's ",string" tags).
bool GetBoolish(const Value& v, bool* out) {
  if (v.IsBool()) {
    *out = v.GetBool();
    return true;
  }
  if (v.IsString()) {
    std::string_view s(v.GetString(), v.GetStringLength());
    if (s == "true") {
      *out = true;
      return true;
    }
    if (s == "false") {
      *out = false;
      return true;
    }
  }
  return false;
}

bool ParseMember(const Value& v, PdMember* m, std::string* error) {
  if (!v.IsObject()) {
    *error = "member is not an object";
    return false;
  }
  return OptString(v, "name", &m->name, error) && OptUint64(v, "member_id", &m->member_id, error) &&
         OptStringArray(v, "client_urls", &m->client_urls, error) &&
         OptStringArray(v, "peer_urls", &m->peer_urls, error) &&
         OptString(v, "binary_version", &m->binary_version, error);
}

// A member object that names nobody: what PD's zero-valued leader looks like.
bool IsEmptyMember(const PdMember& m) { return m.name.empty() && m.member_id == 0; }

// Reads an optional member field of /members ("leader", "etcd_leader").
bool OptMember(const Value& obj, const char* key, std::optional<PdMember>* out,
               std::string* error) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return true;
  PdMember m;
  if (!ParseMember(it->value, &m, error)) {
    *error = std::string(key) + ": " + *error;
    return false;
  }
  if (!IsEmptyMember(m)) *out = std::move(m);
  return true;
}

}  // namespace

bool PdStore::IsTiFlash() const {
  for (const auto& [k, v] : labels) {
    if (k == "engine" && v == "tiflash") return true;
  }
  return false;
}

PdParse<std::vector<PdMemberHealth>> ParsePdHealth(std::string_view body) {
  using Result = PdParse<std::vector<PdMemberHealth>>;
  rapidjson::Document doc;
  std::string error = ParseJson(body, &doc);
  if (!error.empty()) return Result::Fail(error);
  if (!doc.IsArray()) return Result::Fail("health: expected an array");
  std::vector<PdMemberHealth> out;
  out.reserve(doc.Size());
  for (const auto& e : doc.GetArray()) {
    if (!e.IsObject()) return Result::Fail("health: entry is not an object");
    PdMemberHealth h;
    if (!OptString(e, "name", &h.name, &error) ||
        !OptUint64(e, "member_id", &h.member_id, &error) ||
        !OptStringArray(e, "client_urls", &h.client_urls, &error)) {
      return Result::Fail("health: " + error);
    }
    auto it = e.FindMember("health");
    if (it == e.MemberEnd() || !it->value.IsBool()) {
      return Result::Fail("health: entry without a boolean \"health\"");
    }
    h.health = it->value.GetBool();
    out.push_back(std::move(h));
  }
  return Result::Ok(std::move(out));
}

PdParse<std::optional<PdMember>> ParsePdLeader(std::string_view body) {
  using Result = PdParse<std::optional<PdMember>>;
  rapidjson::Document doc;
  std::string error = ParseJson(body, &doc);
  if (!error.empty()) return Result::Fail(error);
  if (doc.IsNull()) return Result::Ok(std::nullopt);
  PdMember m;
  if (!ParseMember(doc, &m, &error)) return Result::Fail("leader: " + error);
  if (IsEmptyMember(m)) return Result::Ok(std::nullopt);
  return Result::Ok(std::move(m));
}

PdParse<PdMembers> ParsePdMembers(std::string_view body) {
  using Result = PdParse<PdMembers>;
  rapidjson::Document doc;
  std::string error = ParseJson(body, &doc);
  if (!error.empty()) return Result::Fail(error);
  if (!doc.IsObject()) return Result::Fail("members: expected an object");
  PdMembers out;
  const Value* it = json::Member(doc, "members");
  if (it == nullptr || !it->IsArray()) {
    return Result::Fail("members: no \"members\" array");
  }
  for (const auto& e : it->GetArray()) {
    PdMember m;
    if (!ParseMember(e, &m, &error)) return Result::Fail("members: " + error);
    out.members.push_back(std::move(m));
  }
  if (!OptMember(doc, "leader", &out.leader, &error) ||
      !OptMember(doc, "etcd_leader", &out.etcd_leader, &error)) {
    return Result::Fail("members: " + error);
  }
  return Result::Ok(std::move(out));
}

PdParse<PdClusterStatus> ParsePdClusterStatus(std::string_view body) {
  using Result = PdParse<PdClusterStatus>;
  rapidjson::Document doc;
  std::string error = ParseJson(body, &doc);
  if (!error.empty()) return Result::Fail(error);
  if (!doc.IsObject()) return Result::Fail("cluster/status: expected an object");
  PdClusterStatus out;
  std::string bootstrap;
  if (!OptString(doc, "raft_bootstrap_time", &bootstrap, &error) ||
      !OptString(doc, "replication_status", &out.replication_status, &error)) {
    return Result::Fail("cluster/status: " + error);
  }
  // Go's zero time.Time ("0001-01-01T00:00:00Z") means "never bootstrapped".
  if (!bootstrap.empty() && bootstrap.rfind("0001-01-01", 0) != 0) {
    auto t = ParseRfc3339(bootstrap);
    if (!t) return Result::Fail("cluster/status: raft_bootstrap_time is not RFC 3339");
    out.raft_bootstrap_time = *t;
  }
  const Value* it = json::Member(doc, "is_initialized");
  if (it != nullptr && !it->IsNull()) {
    if (!it->IsBool()) return Result::Fail("cluster/status: is_initialized is not a boolean");
    out.is_initialized = it->GetBool();
  }
  return Result::Ok(std::move(out));
}

PdParse<PdStores> ParsePdStores(std::string_view body) {
  using Result = PdParse<PdStores>;
  rapidjson::Document doc;
  std::string error = ParseJson(body, &doc);
  if (!error.empty()) return Result::Fail(error);
  if (!doc.IsObject()) return Result::Fail("stores: expected an object");
  PdStores out;
  const Value* count = json::Member(doc, "count");
  if (count != nullptr) {
    if (!count->IsInt64()) return Result::Fail("stores: count is not an integer");
    out.count = count->GetInt64();
  }
  const Value* it = json::Member(doc, "stores");
  if (it == nullptr || it->IsNull()) return Result::Ok(std::move(out));
  if (!it->IsArray()) return Result::Fail("stores: \"stores\" is not an array");
  out.stores.reserve(it->Size());
  for (const auto& e : it->GetArray()) {
    if (!e.IsObject()) return Result::Fail("stores: entry is not an object");
    auto st = e.FindMember("store");
    if (st == e.MemberEnd() || !st->value.IsObject()) {
      return Result::Fail("stores: entry without a \"store\" object");
    }
    const Value& s = st->value;
    PdStore store;
    auto id = s.FindMember("id");
    if (id == s.MemberEnd() || !GetUint64(id->value, &store.id)) {
      return Result::Fail("stores: store without an unsigned integer id");
    }
    if (!OptString(s, "address", &store.address, &error) ||
        !OptString(s, "state_name", &store.state_name, &error) ||
        !OptString(s, "version", &store.version, &error)) {
      return Result::Fail("stores: " + error);
    }
    auto labels = s.FindMember("labels");
    if (labels != s.MemberEnd() && !labels->value.IsNull()) {
      if (!labels->value.IsArray()) return Result::Fail("stores: labels is not an array");
      for (const auto& l : labels->value.GetArray()) {
        if (!l.IsObject()) return Result::Fail("stores: label is not an object");
        std::string key, value;
        if (!OptString(l, "key", &key, &error) || !OptString(l, "value", &value, &error)) {
          return Result::Fail("stores: label: " + error);
        }
        store.labels.emplace_back(std::move(key), std::move(value));
      }
    }
    // PD < 2.0 had no state_name; the numeric state 0 means Up (omitted when 0).
    if (store.state_name.empty()) {
      auto state = s.FindMember("state");
      int64_t n = 0;
      if (state != s.MemberEnd()) {
        if (!state->value.IsInt64()) return Result::Fail("stores: state is not an integer");
        n = state->value.GetInt64();
      }
      store.state_name = n == 0 ? "Up" : n == 1 ? "Offline" : n == 2 ? "Tombstone" : "Unknown";
    }
    out.stores.push_back(std::move(store));
  }
  return Result::Ok(std::move(out));
}

PdParse<PdReplicateConfig> ParsePdReplicateConfig(std::string_view body) {
  using Result = PdParse<PdReplicateConfig>;
  rapidjson::Document doc;
  std::string error = ParseJson(body, &doc);
  if (!error.empty()) return Result::Fail(error);
  if (!doc.IsObject()) return Result::Fail("config/replicate: expected an object");
  PdReplicateConfig out;
  const Value* mr = json::Member(doc, "max-replicas");
  if (mr == nullptr || !mr->IsInt64()) {
    return Result::Fail("config/replicate: no integer \"max-replicas\"");
  }
  out.max_replicas = mr->GetInt64();
  // location-labels is a comma-joined string in PD's JSON; accept an array as well.
  const Value* ll = json::Member(doc, "location-labels");
  if (ll != nullptr && ll->IsArray()) {
    std::vector<std::string> parts;
    if (!OptStringArray(doc, "location-labels", &parts, &error)) {
      return Result::Fail("config/replicate: " + error);
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out.location_labels += ",";
      out.location_labels += parts[i];
    }
  } else if (!OptString(doc, "location-labels", &out.location_labels, &error)) {
    return Result::Fail("config/replicate: " + error);
  }
  if (!OptString(doc, "isolation-level", &out.isolation_level, &error)) {
    return Result::Fail("config/replicate: " + error);
  }
  for (auto [key, field] : {std::pair{"strictly-match-label", &out.strictly_match_label},
                            std::pair{"enable-placement-rules", &out.enable_placement_rules}}) {
    const Value* it = json::Member(doc, key);
    if (it == nullptr || it->IsNull()) continue;
    if (!GetBoolish(*it, field)) {
      return Result::Fail(std::string("config/replicate: ") + key + " is not a boolean");
    }
  }
  return Result::Ok(std::move(out));
}

bool IsPdNotBootstrapped(int http_status, std::string_view body) {
  return http_status == 500 && body.find("not bootstrapped") != std::string_view::npos;
}

}  // namespace podwait
