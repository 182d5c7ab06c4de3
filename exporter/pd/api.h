#pragma once

// Pure parsers for the PD HTTP API (prefix /pd/api/v1), one per endpoint. No I/O: a body in, a
// value or an error out. They never throw and never crash on bad input (truncated JSON, wrong
// types, HTML or empty bodies from proxies); the error says what was wrong.
//
// Shapes follow tikv/pd's API handlers; real payloads are in tests/fixtures/real/pd/.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"

namespace podwait {

// A parse result: a value, or an error that says what was wrong.
template <typename T>
using PdParse = Result<T>;

// A PD member as /leader and /members report it (pdpb.Member). member_id is a full uint64.
struct PdMember {
  std::string name;
  uint64_t member_id = 0;
  std::vector<std::string> client_urls;
  std::vector<std::string> peer_urls;
  std::string binary_version;  // empty on old PD
};

// One entry of /health.
struct PdMemberHealth {
  std::string name;
  uint64_t member_id = 0;
  std::vector<std::string> client_urls;
  bool health = false;
};

// /members: every member plus the PD leader and the etcd leader (either may be absent).
struct PdMembers {
  std::vector<PdMember> members;
  std::optional<PdMember> leader;
  std::optional<PdMember> etcd_leader;
};

// /cluster/status.
struct PdClusterStatus {
  Timestamp raft_bootstrap_time = 0;  // 0 when absent or Go's zero time (not bootstrapped)
  // Absent on PD < 3.0 (the field was added in 2019): nullopt then.
  std::optional<bool> is_initialized;
  std::string replication_status;
};

// One store of /stores (store.* fields; status.* is not needed).
struct PdStore {
  uint64_t id = 0;
  std::string address;
  std::string state_name;  // Up, Disconnected, Down, Offline, Tombstone (PD's derived state)
  std::string version;
  std::vector<std::pair<std::string, std::string>> labels;
  // TiFlash registers as a store labelled engine=tiflash.
  bool IsTiFlash() const;
};

// /stores.
struct PdStores {
  int64_t count = 0;
  std::vector<PdStore> stores;
};

// /config/replicate (pd-ctl "config show replication").
struct PdReplicateConfig {
  int64_t max_replicas = 0;
  std::string location_labels;  // comma-separated, as PD writes it
  std::string isolation_level;
  bool strictly_match_label = false;
  bool enable_placement_rules = false;
};

// GET /pd/api/v1/health: an array of {name, member_id, client_urls, health}.
PdParse<std::vector<PdMemberHealth>> ParsePdHealth(std::string_view body);
// GET /pd/api/v1/leader: a member object; `null` (or a member without name and id) means no
// leader, which is a valid answer (nullopt inside an ok result).
PdParse<std::optional<PdMember>> ParsePdLeader(std::string_view body);
// GET /pd/api/v1/members: {header, members: [...], leader: {...}, etcd_leader: {...}}.
PdParse<PdMembers> ParsePdMembers(std::string_view body);
// GET /pd/api/v1/cluster/status: {raft_bootstrap_time, is_initialized, replication_status}.
PdParse<PdClusterStatus> ParsePdClusterStatus(std::string_view body);
// GET /pd/api/v1/stores: {count, stores: [{store: {...}, status: {...}}]}.
PdParse<PdStores> ParsePdStores(std::string_view body);
// GET /pd/api/v1/config/replicate.
PdParse<PdReplicateConfig> ParsePdReplicateConfig(std::string_view body);

// PD answers /stores (and other cluster-scoped endpoints) with HTTP 500 and a message containing
// "not bootstrapped" before the first TiKV has bootstrapped the cluster.
bool IsPdNotBootstrapped(int http_status, std::string_view body);

}  // namespace podwait
