#pragma once

// What keeps podwait from hammering an API server whatever it answers: a client-side request
// budget shared by every reflector of one server (client-go's QPS/burst token bucket in
// rest.Config), and one log of that server's connection failures, so that 22 reflectors that
// cannot connect make one line per backoff step rather than 22.

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace podwait {

// A token bucket: `burst` requests at once, then `qps` a second. Thread-safe.
class RequestBudget {
 public:
  explicit RequestBudget(double qps = 20, double burst = 100);

  // Takes one token at monotonic time now_ms and returns how long the caller must wait before it
  // sends its request (0: at once). Tokens are reserved in call order, so waiters never starve.
  int64_t Reserve(int64_t now_ms);
  // Takes one token at monotonic time now_ms if one is there; otherwise takes nothing (and
  // reserves nothing) and returns false. For requests that are worth sending only at once, such
  // as fetching a list's next page ahead of need.
  bool TryTake(int64_t now_ms);
  // Counts a request that brought its own token: the first request of each reflector (its
  // initial sync), so that N reflectors start at once whatever N, and every request after that
  // (next pages, watches, restarts) is paced by the bucket.
  void TakeGranted();
  // Requests reserved, and how many of them had to wait.
  uint64_t requests() const;
  uint64_t delayed() const;

 private:
  // REQUIRES: mu_ held. Adds the tokens earned since the last call.
  void RefillLocked(int64_t now_ms);

  const double qps_;
  const double burst_;
  mutable std::mutex mu_;
  double tokens_;
  int64_t last_ms_ = -1;
  uint64_t requests_ = 0;
  uint64_t delayed_ = 0;
};

// Transport failures (no HTTP answer) of one API server, logged once per backoff step for the
// server: the first failure at once, then after 0.8 s, 1.6 s, ... up to every 30 s, each line
// naming the address, the cause and how many resources fail alike. A different cause has its own
// steps (causes that differ only in numbers, such as libcurl's "after 18 ms", are one cause).
// The first answer after failures logs one "reachable again" line. Thread-safe.
class ApiServerLog {
 public:
  ApiServerLog(int64_t first_step_ms = 800, int64_t max_step_ms = 30'000);

  // `resource` could not reach `address`; `cause` is the transport error ("connection refused:
  // ..."). Returns true when this call wrote the line.
  bool OnTransportError(const std::string& resource, const std::string& address,
                        const std::string& cause, int64_t now_ms);
  // `resource` got an HTTP answer (of any status): the server is reachable.
  void OnAnswer(const std::string& resource, const std::string& address, int64_t now_ms);
  // Lines written since construction.
  uint64_t lines() const;
  // Whether the server answers now: unreachable from the first transport failure until the
  // next answer, with the address and cause of the last failure and when the outage began.
  struct Reach {
    bool reachable = true;
    std::string address;
    std::string error;
    int64_t down_since_ms = -1;  // monotonic
  };
  Reach Current() const;

 private:
  struct Cause {
    int64_t next_ms = 0;
    int64_t step_ms = 0;
    uint64_t suppressed = 0;
  };
  const int64_t first_step_ms_;
  const int64_t max_step_ms_;
  mutable std::mutex mu_;
  std::map<std::string, Cause> causes_;
  std::set<std::string> failing_;  // resources whose last request failed in transport
  int64_t down_since_ms_ = -1;
  std::string last_address_;
  std::string last_cause_;
  uint64_t lines_ = 0;
};

}  // namespace podwait
