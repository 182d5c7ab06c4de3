#pragma once

// An AsyncHttp over a blocking HttpClient, for tests that script HTTP with a fake client and drive
// a user of AsyncHttp (the PD prober): Get() performs the request at once, and the next Run()
// hands the response to its completion, as a real AsyncHttp would after the transfer finished.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "exporter/net/async_http.h"
#include "exporter/net/environment.h"

namespace podwait::testing {

class BlockingAsyncHttp final : public AsyncHttp {
 public:
  explicit BlockingAsyncHttp(std::unique_ptr<HttpClient> http) : http_(std::move(http)) {}

  void Get(HttpRequest request, size_t max_body, Done done) override {
    HttpResponse response = http_->Get(request, max_body);
    finished_.emplace_back(std::move(done), std::move(response));
  }

  void Run(int64_t wait_ms) override {
    if (finished_.empty()) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(wait_ms), [this] { return woken_; });
      woken_ = false;
    }
    auto done = std::move(finished_);
    finished_.clear();
    for (auto& [callback, response] : done) callback(std::move(response));
  }

  void Wake() override {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
    cv_.notify_all();
  }

  void SetMaxConnections(size_t) override {}
  size_t in_flight() const override { return finished_.size(); }

 private:
  std::unique_ptr<HttpClient> http_;
  std::vector<std::pair<Done, HttpResponse>> finished_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;
};

// Makes env->async_http use env->http (call after setting env->http).
inline void UseBlockingAsyncHttp(Environment* env) {
  HttpClientFactory http = env->http;
  env->async_http = [http] { return std::make_unique<BlockingAsyncHttp>(http()); };
}

}  // namespace podwait::testing
