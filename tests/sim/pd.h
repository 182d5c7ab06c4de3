#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace podwait::sim {

struct PdStoreState {
  uint64_t id = 1;
  std::string state = "Up";  // state_name: Up, Disconnected, Down, Offline, Tombstone
  bool tiflash = false;
  std::string pod;  // pod name behind the store (address is derived from it)
  // state_name as answered, when it should differ from `state` (hostile-input tests: raw bytes).
  std::string state_name;
};

// What one cluster's simulated PD answers. See tests/sim/README.md ("PD API").
struct PdState {
  std::string ns;
  std::string cluster;
  // Transport-level behaviour: "none" (answer normally), "503", "close" (close the connection
  // without an answer), "reset" (TCP RST), "hang" (never answer until hang_seconds pass),
  // "garbage" (200 with bytes that are not JSON), "html" (200 text/html error page), "deep"
  // (200 with 1,000,000 nested arrays), "huge" (200 with a 9 MiB body).
  std::string fault = "none";
  int64_t hang_seconds = 30;
  int members = 3;
  std::vector<bool> healthy;  // per member; empty = all healthy
  bool leader = true;
  int leader_index = 0;
  bool bootstrapped = true;
  bool initialized = true;
  // "normal", "legacy" (a PD before is_initialized existed: the field is missing), "absent"
  // (the endpoint is missing: 404).
  std::string cluster_status = "normal";
  std::string version = "v8.1.0";
  int max_replicas = 3;
  std::vector<PdStoreState> stores;
  int64_t bootstrap_time_ms = 0;
};

// Merges a "pd" op into *state (fields absent from `spec` keep their value; "state" sets several
// at once). Returns false with *error on bad input.
bool ApplyPdSpec(const rapidjson::Value& spec, int64_t now_ms, PdState* state, std::string* error);

struct PdAnswer {
  // kRespond: status/content_type/body; the others are transport faults the server carries out.
  enum Action { kRespond, kClose, kReset, kHang } action = kRespond;
  int status = 200;
  std::string content_type = "application/json; charset=UTF-8";
  std::string body;
};
// The answer of PD endpoint `endpoint` (the path after /pd/api/v1, e.g. "/health").
PdAnswer AnswerPd(const PdState& state, std::string_view endpoint);

// A JSON summary of the state for /_sim/state.
std::string PdStateJson(const PdState& state);

}  // namespace podwait::sim
