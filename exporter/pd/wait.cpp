#include "exporter/pd/wait.h"

#include <algorithm>
#include <cstdio>

#include "exporter/common/log.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

template <typename T>
PdWaitCheck Unreachable(const PdAnswer<T>& r) {
  return {false, "unreachable", r.error, r.error_kind == PdErrorKind::kTimeout};
}

PdWaitCheck LeaderCheck(PdClient& client) {
  auto leader = client.Leader();
  if (leader.ok()) {
    if (leader.value->has_value()) return {true, "leader", (*leader.value)->name};
    return {false, "no_leader", ""};
  }
  if (leader.transport_failed()) return Unreachable(leader);
  // Some PD versions or proxies do not serve /leader: /members names the leader too.
  auto members = client.Members();
  if (members.ok()) {
    if (members.value->leader) return {true, "leader", members.value->leader->name};
    return {false, "no_leader", ""};
  }
  if (members.transport_failed()) return Unreachable(members);
  if (leader.pd_answered) return {false, "pd_error", leader.error};
  return {false, "bad_answer", leader.error};
}

// "2.4s" under a minute (the precision a deadline of seconds needs), else "1m5s".
std::string Elapsed(int64_t ms) {
  if (ms >= 60'000) return FormatDuration(ms);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1fs", static_cast<double>(std::max<int64_t>(ms, 0)) / 1000);
  return buf;
}

}  // namespace

PdWaitCheck CheckPdOnce(PdClient& client, PdWaitMode mode, bool* legacy) {
  if (mode == PdWaitMode::kLeader || *legacy) return LeaderCheck(client);
  auto status = client.ClusterStatus();
  if (status.ok()) {
    if (status.value->is_initialized.has_value()) {
      if (*status.value->is_initialized) return {true, "initialized", ""};
      return {false, "not_initialized", ""};
    }
  } else if (status.transport_failed()) {
    return Unreachable(status);
  } else if (status.http_status != 404) {
    if (status.pd_answered) return {false, "pd_error", status.error};
    return {false, "bad_answer", status.error};
  }
  // cluster/status without is_initialized (or without the endpoint): PD < 3.0.
  *legacy = true;
  LogWarn("PD does not report is_initialized (PD < 3.0?); waiting for a PD leader instead",
          {{"pd", client.options().base_url}});
  return LeaderCheck(client);
}

PdWaitResult WaitForPd(HttpClient& http, const PdWaitOptions& options, const Clock& clock,
                       const std::atomic<bool>* stop,
                       const std::function<void(int64_t)>& sleep_ms) {
  PdWaitResult result;
  const int64_t start = clock.MonotonicMs();
  const char* goal = options.mode == PdWaitMode::kLeader ? "leader" : "initialized";
  LogInfo("waiting for PD", {{"pd", options.client.base_url}, {"until", goal}});
  bool legacy = false;
  std::string last_state, last_detail;
  auto give_up = [&](const std::string& state) {
    // The real time spent, not the deadline asked for: the two differ when a try ran late.
    result.reason =
        "gave up after " + Elapsed(clock.MonotonicMs() - start) + " (--timeout " +
        FormatDuration(options.deadline_ms) + "): PD at " + options.client.base_url + " is not " +
        (options.mode == PdWaitMode::kLeader || legacy ? "serving a leader" : "initialized") +
        " (last state: " + state + (last_detail.empty() ? "" : ", " + last_detail) + ")";
    return result;
  };
  while (true) {
    PdClientOptions client_options = options.client;
    client_options.cancel = stop;
    bool cut_by_deadline = false;
    if (options.deadline_ms > 0) {
      // Never let one request run past the deadline.
      const int64_t left = options.deadline_ms - (clock.MonotonicMs() - start);
      if (left <= 0) return give_up(result.last_state);
      cut_by_deadline = left < client_options.timeout_ms;
      client_options.timeout_ms = std::clamp<int64_t>(left, 1, client_options.timeout_ms);
    }
    PdClient client(http, client_options);
    PdWaitCheck check = CheckPdOnce(client, options.mode, &legacy);
    ++result.tries;
    // A last try that the deadline cut short says only that time ran out: the tries before it
    // tell what PD did (a parse error, no leader), so the reason keeps theirs.
    if (!check.done && check.timed_out && cut_by_deadline && result.tries > 1) {
      return give_up(result.last_state);
    }
    if (check.state != last_state) {
      const int64_t elapsed = clock.MonotonicMs() - start;
      if (check.done) {
        LogInfo("PD is ready", {{"state", check.state},
                                {"leader", check.detail},
                                {"waited", FormatDuration(elapsed)},
                                {"tries", std::to_string(result.tries)}});
      } else {
        LogInfo("PD not ready yet", {{"state", check.state},
                                     {"detail", check.detail},
                                     {"waited", FormatDuration(elapsed)}});
      }
      last_state = check.state;
    }
    last_detail = check.detail;
    result.last_state = check.state;
    if (check.done) {
      result.ok = true;
      return result;
    }
    if (stop != nullptr && stop->load()) {
      result.reason = "interrupted while waiting for PD " + std::string(goal) +
                      " (last state: " + check.state + ")";
      return result;
    }
    // Keep trying until the deadline itself: the last pause is shortened to end at it.
    int64_t pause = options.interval_ms;
    if (options.deadline_ms > 0) {
      const int64_t left = options.deadline_ms - (clock.MonotonicMs() - start);
      if (left <= 0) return give_up(check.state);
      pause = std::min(pause, left);
    }
    sleep_ms(pause);
  }
}

}  // namespace podwait
