#pragma once

// The waiting logic of wait-for-pd (the init container): poll PD until it has a leader (--leader,
// for TiKV) or until cluster/status says is_initialized (--initialized, for TiDB; PD < 3.0 does
// not report it, so that falls back to the leader wait with a warning). One log line per state
// change, not per try. Pure of process concerns (flags, exit codes, files): wait-for-pd/main.cpp
// does those.

#include <atomic>
#include <functional>
#include <string>

#include "exporter/common/clock.h"
#include "exporter/net/http_client.h"
#include "exporter/pd/client.h"

namespace podwait {

enum class PdWaitMode { kLeader, kInitialized };

struct PdWaitOptions {
  PdWaitMode mode = PdWaitMode::kLeader;
  PdClientOptions client;      // base URL, TLS, per-request timeout (5 s in wait-for-pd)
  int64_t interval_ms = 1000;  // between tries
  int64_t deadline_ms = 0;     // overall, from the start; 0 = wait forever
};

// What one try saw. `state` is a short word for logs and the termination message: unreachable,
// bad_answer, pd_error, no_leader, leader, not_initialized, initialized.
struct PdWaitCheck {
  bool done = false;
  std::string state;
  std::string detail;      // the error or the leader's name
  bool timed_out = false;  // no answer within the request's timeout
};

// One try. *legacy turns true (and stays) once PD is found not to report is_initialized; the
// check is then the leader check.
PdWaitCheck CheckPdOnce(PdClient& client, PdWaitMode mode, bool* legacy);

struct PdWaitResult {
  bool ok = false;
  std::string reason;  // on failure: a short human sentence (also for /dev/termination-log)
  int tries = 0;
  std::string last_state;
};

// Polls until done, the deadline passes, or *stop turns true. `sleep_ms` waits between tries
// (tests pass one that advances a FakeClock); it should return early when *stop turns true.
PdWaitResult WaitForPd(HttpClient& http, const PdWaitOptions& options, const Clock& clock,
                       const std::atomic<bool>* stop, const std::function<void(int64_t)>& sleep_ms);

}  // namespace podwait
