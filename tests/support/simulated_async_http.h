#pragma once

// An AsyncHttp on simulated time, for driving the PD prober over minutes of a FakeClock in a few
// milliseconds: each request is answered by a function of the request after a latency, or hangs
// until its own timeout (as a PD that accepts and never answers); Run(wait_ms) moves the clock
// to the next completion (or by wait_ms) and runs the completions due. The clock never moves past
// a horizon the test sets, so a test can stop time, look, signal and let it run on.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/net/async_http.h"

namespace podwait::testing {

class SimulatedAsyncHttp final : public AsyncHttp {
 public:
  struct Reply {
    std::optional<HttpResponse> response;  // nullopt: no answer until the request's timeout
    int64_t latency_ms = 1;
  };
  using Server = std::function<Reply(const HttpRequest&)>;
  struct Sent {
    int64_t at_ms;
    std::string url;
    bool keep_connection;
  };

  SimulatedAsyncHttp(FakeClock* clock, Server server) : clock_(clock), server_(std::move(server)) {}

  void Get(HttpRequest request, size_t, Done done) override {
    const int64_t now = clock_->MonotonicMs();
    {
      std::lock_guard<std::mutex> lock(mu_);
      sent_.push_back({now, request.url, request.keep_connection});
    }
    Reply reply = server_(request);
    HttpResponse response;
    int64_t due = now + reply.latency_ms;
    if (reply.response) {
      response = std::move(*reply.response);
      response.duration_ms = reply.latency_ms;
    } else {
      due = now + request.timeout_ms;
      response.timed_out = true;
      response.error = "timeout: Operation timed out after " + std::to_string(request.timeout_ms) +
                       " milliseconds with 0 bytes received";
      response.duration_ms = request.timeout_ms;
    }
    pending_.emplace(due, std::make_pair(std::move(done), std::move(response)));
  }

  void Run(int64_t wait_ms) override {
    ++runs_;
    const int64_t now = clock_->MonotonicMs();
    if (pending_.empty() || pending_.begin()->first > now) {
      int64_t target = now + wait_ms;
      if (!pending_.empty()) target = std::min(target, pending_.begin()->first);
      target = std::min(target, horizon());
      if (target > now) {
        clock_->Set(target);
      } else if (wait_ms > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // time stands at the horizon
      }
    }
    while (!pending_.empty() && pending_.begin()->first <= clock_->MonotonicMs()) {
      auto node = pending_.extract(pending_.begin());
      node.mapped().first(std::move(node.mapped().second));
    }
  }

  void Wake() override {}
  void SetMaxConnections(size_t connections) override {
    std::lock_guard<std::mutex> lock(mu_);
    max_connections_ = connections;
  }
  size_t in_flight() const override { return pending_.size(); }

  // Time does not pass `ms` (monotonic) until the horizon moves.
  void SetHorizon(int64_t ms) {
    std::lock_guard<std::mutex> lock(mu_);
    horizon_ = ms;
  }
  std::vector<Sent> sent() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_;
  }
  // Run() calls so far: the turns of the caller's loop.
  uint64_t runs() const { return runs_.load(); }
  size_t max_connections() const {
    std::lock_guard<std::mutex> lock(mu_);
    return max_connections_;
  }

 private:
  int64_t horizon() const {
    std::lock_guard<std::mutex> lock(mu_);
    return horizon_;
  }

  FakeClock* clock_;
  Server server_;
  std::multimap<int64_t, std::pair<Done, HttpResponse>> pending_;  // by completion time
  std::atomic<uint64_t> runs_{0};
  mutable std::mutex mu_;  // guards the members below
  std::vector<Sent> sent_;
  int64_t horizon_ = 0;
  size_t max_connections_ = 0;
};

}  // namespace podwait::testing
