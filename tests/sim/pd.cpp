#include "tests/sim/pd.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "exporter/common/time_format.h"
#include "tests/sim/shorthand.h"

namespace podwait::sim {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

std::string MemberName(const PdState& s, int i) { return s.cluster + "-pd-" + std::to_string(i); }

std::string PeerHost(const PdState& s, const std::string& member) {
  return member + "." + s.cluster + "-pd-peer." + s.ns + ".svc";
}

bool IsHealthy(const PdState& s, int i) {
  return s.healthy.empty() || (static_cast<size_t>(i) < s.healthy.size() && s.healthy[i]);
}

// name, member_id, [peer_urls], client_urls of member i: what /members and /health share.
void WriteMemberIdentity(Writer& w, const PdState& s, int i, bool peer_urls) {
  std::string name = MemberName(s, i);
  w.Key("name");
  w.String(name.c_str());
  w.Key("member_id");
  w.Uint64(std::stoull(PdMemberId(s.ns, s.cluster, static_cast<size_t>(i))));
  if (peer_urls) {
    w.Key("peer_urls");
    w.StartArray();
    w.String(("http://" + PeerHost(s, name) + ":2380").c_str());
    w.EndArray();
  }
  w.Key("client_urls");
  w.StartArray();
  w.String(("http://" + PeerHost(s, name) + ":2379").c_str());
  w.EndArray();
}

void WriteMember(Writer& w, const PdState& s, int i, bool full) {
  w.StartObject();
  WriteMemberIdentity(w, s, i, true);
  if (full) {
    w.Key("deploy_path");
    w.String("/");
    w.Key("binary_version");
    w.String(s.version.c_str());
    w.Key("git_hash");
    w.String("fca469ca33eb5d8b5e0891b507c87709a00b0e81");
  }
  w.EndObject();
}

std::string Quoted(std::string_view text) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return std::string(sb.GetString(), sb.GetSize()) + "\n";
}

PdAnswer Json(int status, std::string body) {
  PdAnswer a;
  a.status = status;
  a.body = std::move(body);
  return a;
}

PdAnswer NotFound() {
  PdAnswer a;
  a.status = 404;
  a.content_type = "text/plain; charset=utf-8";
  a.body = "404 page not found\n";
  return a;
}

int StoreStateCode(const std::string& state) {
  if (state == "Offline") return 1;
  if (state == "Tombstone") return 2;
  return 0;  // Up, Disconnected, Down are all metapb Up
}

}  // namespace

bool ApplyPdSpec(const rapidjson::Value& spec, int64_t now_ms, PdState* s, std::string* error) {
  if (!spec.IsObject()) {
    *error = "pd op must be an object";
    return false;
  }
  const bool was_bootstrapped = s->bootstrapped && s->bootstrap_time_ms != 0;
  auto str = [&](const char* k) -> std::string {
    auto it = spec.FindMember(k);
    return it != spec.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
  };
  auto member = [&](const char* k) -> const rapidjson::Value* {
    auto it = spec.FindMember(k);
    return it == spec.MemberEnd() ? nullptr : &it->value;
  };
  if (auto* m = member("members"); m && m->IsInt()) s->members = std::max(1, m->GetInt());
  std::string state = str("state");
  if (!state.empty()) {
    s->fault = "none";
    if (state == "no_leader") {
      s->leader = false;
      s->bootstrapped = false;
      s->initialized = false;
      s->healthy.assign(static_cast<size_t>(s->members), false);
    } else if (state == "leader" || state == "not_bootstrapped") {
      s->leader = true;
      s->bootstrapped = false;
      s->initialized = false;
      s->healthy.clear();
    } else if (state == "bootstrapped") {
      s->leader = true;
      s->bootstrapped = true;
      s->initialized = false;
      s->healthy.clear();
    } else if (state == "initialized" || state == "ready") {
      s->leader = true;
      s->bootstrapped = true;
      s->initialized = true;
      s->healthy.clear();
    } else if (state == "down") {
      s->fault = "503";
    } else if (state == "hang" || state == "garbage" || state == "html" || state == "close" ||
               state == "reset" || state == "deep" || state == "huge") {
      s->fault = state;
    } else {
      *error = "unknown pd state " + state;
      return false;
    }
  }
  std::string fault = str("fault");
  if (!fault.empty()) {
    if (fault != "none" && fault != "503" && fault != "close" && fault != "reset" &&
        fault != "hang" && fault != "garbage" && fault != "html" && fault != "deep" &&
        fault != "huge") {
      *error = "unknown pd fault " + fault;
      return false;
    }
    s->fault = fault;
  }
  if (auto* m = member("hangSeconds"); m && m->IsNumber()) s->hang_seconds = m->GetInt64();
  if (auto* m = member("healthy")) {
    s->healthy.assign(static_cast<size_t>(s->members), false);
    if (m->IsBool()) {
      s->healthy.assign(static_cast<size_t>(s->members), m->GetBool());
    } else if (m->IsInt()) {
      for (int i = 0; i < s->members && i < m->GetInt(); ++i) s->healthy[i] = true;
    } else if (m->IsArray()) {
      for (const auto& e : m->GetArray()) {
        for (int i = 0; i < s->members; ++i) {
          if ((e.IsInt() && e.GetInt() == i) ||
              (e.IsString() && MemberName(*s, i) == e.GetString())) {
            s->healthy[i] = true;
          }
        }
      }
    }
  }
  if (auto* m = member("leader")) {
    if (m->IsBool()) {
      s->leader = m->GetBool();
    } else if (m->IsNull()) {
      s->leader = false;
    } else if (m->IsString() || m->IsInt()) {
      s->leader = true;
      for (int i = 0; i < s->members; ++i) {
        if ((m->IsInt() && m->GetInt() == i) ||
            (m->IsString() && MemberName(*s, i) == m->GetString())) {
          s->leader_index = i;
        }
      }
    }
  }
  if (auto* m = member("bootstrapped"); m && m->IsBool()) s->bootstrapped = m->GetBool();
  if (auto* m = member("initialized"); m && m->IsBool()) s->initialized = m->GetBool();
  if (auto cs = str("clusterStatus"); !cs.empty()) {
    if (cs != "normal" && cs != "legacy" && cs != "absent") {
      *error = "clusterStatus must be normal, legacy or absent";
      return false;
    }
    s->cluster_status = cs;
  }
  if (auto v = str("version"); !v.empty()) s->version = v;
  if (auto* m = member("maxReplicas"); m && m->IsInt()) s->max_replicas = m->GetInt();
  if (auto* m = member("stores"); m && m->IsArray()) {
    s->stores.clear();
    uint64_t next_id = 1;
    for (const auto& e : m->GetArray()) {
      PdStoreState st;
      st.id = next_id;
      if (e.IsObject()) {
        if (e.HasMember("id") && e["id"].IsUint64()) st.id = e["id"].GetUint64();
        if (e.HasMember("id") && e["id"].IsString()) st.id = std::stoull(e["id"].GetString());
        if (e.HasMember("state") && e["state"].IsString()) st.state = e["state"].GetString();
        if (e.HasMember("tiflash") && e["tiflash"].IsBool()) st.tiflash = e["tiflash"].GetBool();
        if (e.HasMember("pod") && e["pod"].IsString()) st.pod = e["pod"].GetString();
        if (e.HasMember("stateName") && e["stateName"].IsString()) {
          st.state_name.assign(e["stateName"].GetString(), e["stateName"].GetStringLength());
        }
      }
      if (st.state != "Up" && st.state != "Disconnected" && st.state != "Down" &&
          st.state != "Offline" && st.state != "Tombstone") {
        *error = "unknown store state " + st.state;
        return false;
      }
      if (st.pod.empty()) {
        st.pod = s->cluster + (st.tiflash ? "-tiflash-" : "-tikv-") + std::to_string(next_id - 1);
      }
      next_id = st.id + 1;
      s->stores.push_back(st);
    }
    if (!s->stores.empty() && !member("bootstrapped") && state.empty()) s->bootstrapped = true;
  }
  if (s->leader_index >= s->members) s->leader_index = 0;
  if (s->bootstrapped && !was_bootstrapped) s->bootstrap_time_ms = now_ms;
  return true;
}

PdAnswer AnswerPd(const PdState& s, std::string_view endpoint) {
  PdAnswer a;
  if (s.fault == "close") {
    a.action = PdAnswer::kClose;
    return a;
  }
  if (s.fault == "reset") {
    a.action = PdAnswer::kReset;
    return a;
  }
  if (s.fault == "hang") {
    a.action = PdAnswer::kHang;
    return a;
  }
  if (s.fault == "503") {
    a.status = 503;
    a.content_type = "text/plain; charset=utf-8";
    a.body = "no route to PD\n";
    return a;
  }
  if (s.fault == "garbage") {
    a.body = std::string("\x01\x02{\"members\": [{\"name\": tru") + "\n";
    return a;
  }
  if (s.fault == "deep") {
    // 1,000,000 nested arrays (2 MB): far below any body limit, deep enough to overflow a
    // recursive parser's stack.
    a.body = std::string(1'000'000, '[') + std::string(1'000'000, ']');
    return a;
  }
  if (s.fault == "huge") {
    // A valid JSON string of 9 MiB: over the 8 MiB a PD client accepts.
    a.body = "\"" + std::string(9u << 20, 'x') + "\"";
    return a;
  }
  if (s.fault == "html") {
    a.content_type = "text/html";
    a.body =
        "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
        "Gateway</h1></center>\r\n</body>\r\n</html>\r\n";
    return a;
  }
  rapidjson::StringBuffer sb;
  Writer w(sb);
  if (endpoint == "/health") {
    w.StartArray();
    for (int i = 0; i < s.members; ++i) {
      w.StartObject();
      WriteMemberIdentity(w, s, i, false);
      w.Key("health");
      w.Bool(IsHealthy(s, i));
      w.EndObject();
    }
    w.EndArray();
    return Json(200, std::string(sb.GetString(), sb.GetSize()) + "\n");
  }
  if (endpoint == "/members") {
    w.StartObject();
    w.Key("header");
    w.StartObject();
    w.Key("cluster_id");
    w.Uint64(PdClusterId(s.ns, s.cluster));
    w.EndObject();
    w.Key("members");
    w.StartArray();
    for (int i = 0; i < s.members; ++i) WriteMember(w, s, i, true);
    w.EndArray();
    if (s.leader) {
      w.Key("leader");
      WriteMember(w, s, s.leader_index, true);
      w.Key("etcd_leader");
      WriteMember(w, s, s.leader_index, true);
    }
    w.EndObject();
    return Json(200, std::string(sb.GetString(), sb.GetSize()) + "\n");
  }
  // Everything below is served by (or forwarded to) the leader.
  static const std::string_view kLeaderOnly[] = {"/leader", "/cluster/status", "/stores",
                                                 "/config/replicate"};
  bool known = false;
  for (auto e : kLeaderOnly) known = known || endpoint == e;
  if (!known) return NotFound();
  if (!s.leader) return Json(503, Quoted("no leader"));
  if (endpoint == "/leader") {
    WriteMember(w, s, s.leader_index, false);
    return Json(200, std::string(sb.GetString(), sb.GetSize()) + "\n");
  }
  if (endpoint == "/cluster/status") {
    if (s.cluster_status == "absent") return NotFound();
    w.StartObject();
    w.Key("raft_bootstrap_time");
    w.String(s.bootstrapped ? FormatRfc3339(s.bootstrap_time_ms / 1000 * 1000).c_str()
                            : "0001-01-01T00:00:00Z");
    if (s.cluster_status != "legacy") {
      w.Key("is_initialized");
      w.Bool(s.initialized);
      w.Key("replication_status");
      w.String("");
    }
    w.EndObject();
    return Json(200, std::string(sb.GetString(), sb.GetSize()) + "\n");
  }
  if (endpoint == "/config/replicate") {
    w.StartObject();
    w.Key("max-replicas");
    w.Int(s.max_replicas);
    w.Key("location-labels");
    w.String("");
    w.Key("isolation-level");
    w.String("");
    w.Key("strictly-match-label");
    w.String("false");
    w.Key("enable-placement-rules");
    w.String("true");
    w.EndObject();
    return Json(200, std::string(sb.GetString(), sb.GetSize()) + "\n");
  }
  // /stores
  if (!s.bootstrapped) {
    return Json(500, Quoted("[PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please "
                            "start TiKV first"));
  }
  int64_t start_s = s.bootstrap_time_ms / 1000;
  w.StartObject();
  w.Key("count");
  w.Uint64(s.stores.size());
  w.Key("stores");
  w.StartArray();
  for (const auto& st : s.stores) {
    std::string comp = st.tiflash ? "tiflash" : "tikv";
    std::string host = st.pod + "." + s.cluster + "-" + comp + "-peer." + s.ns + ".svc";
    int64_t heartbeat_s = start_s + 60;
    if (st.state == "Disconnected") heartbeat_s = start_s - 60;
    if (st.state == "Down") heartbeat_s = start_s - 3600;
    w.StartObject();
    w.Key("store");
    w.StartObject();
    w.Key("id");
    w.Uint64(st.id);
    w.Key("address");
    w.String((host + (st.tiflash ? ":3930" : ":20160")).c_str());
    if (st.tiflash) {
      w.Key("labels");
      w.StartArray();
      w.StartObject();
      w.Key("key");
      w.String("engine");
      w.Key("value");
      w.String("tiflash");
      w.EndObject();
      w.EndArray();
    }
    if (int code = StoreStateCode(st.state); code != 0) {
      w.Key("state");
      w.Int(code);
    }
    w.Key("version");
    w.String(s.version.substr(s.version[0] == 'v' && !st.tiflash ? 1 : 0).c_str());
    w.Key("peer_address");
    w.String((host + (st.tiflash ? ":20170" : ":20160")).c_str());
    w.Key("status_address");
    w.String((host + (st.tiflash ? ":20292" : ":20180")).c_str());
    w.Key("git_hash");
    w.String("ba73b0d92d94463d74543550d0efe61fa6a6f416");
    w.Key("start_timestamp");
    w.Int64(start_s);
    w.Key("deploy_path");
    w.String(st.tiflash ? "/tiflash" : "/");
    w.Key("last_heartbeat");
    w.Int64(heartbeat_s * 1000000000LL);
    w.Key("node_state");
    w.Int(st.state == "Tombstone" ? 3 : st.state == "Offline" ? 2 : 1);
    w.Key("state_name");
    const std::string& name = st.state_name.empty() ? st.state : st.state_name;
    w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    w.EndObject();
    w.Key("status");
    w.StartObject();
    w.Key("capacity");
    w.String("311.7GiB");
    w.Key("available");
    w.String("222.1GiB");
    w.Key("used_size");
    w.String(st.tiflash ? "1B" : "290.7MiB");
    w.Key("leader_count");
    w.Int(st.tiflash ? 0 : 17);
    w.Key("region_count");
    w.Int(st.tiflash ? 0 : 60);
    w.Key("start_ts");
    w.String(FormatRfc3339(start_s * 1000).c_str());
    w.Key("last_heartbeat_ts");
    w.String(FormatRfc3339(heartbeat_s * 1000).c_str());
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Json(200, std::string(sb.GetString(), sb.GetSize()) + "\n");
}

std::string PdStateJson(const PdState& s) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  w.Key("namespace");
  w.String(s.ns.c_str());
  w.Key("cluster");
  w.String(s.cluster.c_str());
  w.Key("fault");
  w.String(s.fault.c_str());
  w.Key("members");
  w.Int(s.members);
  w.Key("healthyMembers");
  int healthy = 0;
  for (int i = 0; i < s.members; ++i) healthy += IsHealthy(s, i) ? 1 : 0;
  w.Int(healthy);
  w.Key("leader");
  if (s.leader) {
    w.String(MemberName(s, s.leader_index).c_str());
  } else {
    w.Null();
  }
  w.Key("bootstrapped");
  w.Bool(s.bootstrapped);
  w.Key("initialized");
  w.Bool(s.initialized);
  w.Key("clusterStatus");
  w.String(s.cluster_status.c_str());
  w.Key("stores");
  w.StartArray();
  for (const auto& st : s.stores) {
    w.StartObject();
    w.Key("id");
    w.Uint64(st.id);
    w.Key("state");
    w.String(st.state.c_str());
    w.Key("tiflash");
    w.Bool(st.tiflash);
    w.Key("pod");
    w.String(st.pod.c_str());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

}  // namespace podwait::sim
