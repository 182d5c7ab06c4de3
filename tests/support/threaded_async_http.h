#pragma once

// An AsyncHttp over a blocking HttpClient, for tests that script HTTP with a fake client and drive
// a user of AsyncHttp that streams (the Kubernetes event loop): each transfer runs the blocking
// client on a thread of its own, and what it receives (data, the end) is handed to the callbacks
// from Run() on the driving thread, in order, as a real AsyncHttp would.

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "exporter/net/async_http.h"
#include "exporter/net/environment.h"

namespace podwait::testing {

class ThreadedAsyncHttp final : public AsyncHttp {
 public:
  explicit ThreadedAsyncHttp(HttpClientFactory http) : http_(std::move(http)) {}
  ~ThreadedAsyncHttp() override {
    std::map<TransferId, std::shared_ptr<Transfer>> left;
    {
      std::lock_guard<std::mutex> lock(mu_);
      left.swap(transfers_);
      for (auto& [id, t] : left) t->cancel = true;
    }
    for (auto& [id, t] : left) Join(*t);
  }

  void Get(HttpRequest request, size_t max_body, Done done) override {
    Begin(std::move(request), max_body, nullptr, std::move(done));
  }
  TransferId Fetch(HttpRequest request, size_t max_body, Done done) override {
    return Begin(std::move(request), max_body, nullptr, std::move(done));
  }
  TransferId Stream(HttpRequest request, Data on_data, Done done) override {
    return Begin(std::move(request), 0, std::move(on_data), std::move(done));
  }
  // Returns once the blocking client gave up (as a real transport drops the transfer at once),
  // so a cancelled request never takes a scripted answer meant for a later one.
  void Cancel(TransferId id) override {
    std::shared_ptr<Transfer> t;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = transfers_.find(id);
      if (it == transfers_.end()) return;
      t = it->second;
      t->cancel = true;
      t->dropped = true;
      transfers_.erase(it);
    }
    Join(*t);
  }

  void Run(int64_t wait_ms) override {
    std::deque<Event> events;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(wait_ms),
                   [this] { return woken_ || !events_.empty(); });
      woken_ = false;
      events.swap(events_);
    }
    for (Event& e : events) Deliver(e);
  }

  void Wake() override {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
    cv_.notify_all();
  }
  void SetMaxConnections(size_t) override {}
  size_t in_flight() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return transfers_.size();
  }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  struct Transfer {
    TransferId id = 0;
    std::atomic<bool> cancel{false};
    std::atomic<bool> stop{false};  // the data callback said stop
    bool dropped = false;           // under mu_
    Data on_data;
    Done done;
    std::thread thread;
  };

  static void Join(Transfer& t) {
    if (t.thread.joinable()) t.thread.join();
  }
  struct Event {
    std::shared_ptr<Transfer> t;
    bool end = false;
    std::string data;
    HttpResponse response;
  };

  TransferId Begin(HttpRequest request, size_t max_body, Data on_data, Done done) {
    auto t = std::make_shared<Transfer>();
    t->on_data = std::move(on_data);
    t->done = std::move(done);
    {
      std::lock_guard<std::mutex> lock(mu_);
      t->id = ++next_id_;
      transfers_[t->id] = t;
    }
    const bool stream = static_cast<bool>(t->on_data);
    t->thread = std::thread([this, t, request = std::move(request), max_body, stream]() mutable {
      request.cancel = &t->cancel;
      std::unique_ptr<HttpClient> client = http_();
      HttpResponse response;
      if (stream) {
        response = client->Stream(request, [this, t](std::string_view chunk) {
          if (t->cancel || t->stop) return false;
          Push(Event{t, false, std::string(chunk), {}});
          return true;
        });
        // A fake that answers a stream with a buffered 2xx body (a scripted list page): its
        // bytes arrive as data, as they would from a real transport.
        if (response.ok() && !response.body.empty() && !t->cancel) {
          for (size_t at = 0; at < response.body.size(); at += kChunk) {
            Push(Event{t, false, response.body.substr(at, kChunk), {}});
          }
          response.body.clear();
        }
      } else {
        response = client->Get(request, max_body);
      }
      Push(Event{t, true, {}, std::move(response)});
    });
    return t->id;
  }

  void Push(Event e) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(e));
    cv_.notify_all();
  }

  void Deliver(Event& e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (e.t->dropped) return;
      if (e.end) transfers_.erase(e.t->id);
    }
    if (!e.end) {
      if (!e.t->stop && !e.t->on_data(e.data)) {
        e.t->stop = true;
        e.t->cancel = true;  // the blocking client gives up too
      }
      return;
    }
    Join(*e.t);
    if (e.t->stop) {
      // Ended by its data callback: a clean end, as libcurl reports one (not a cancellation).
      e.response.cancelled = false;
      e.response.error.clear();
    }
    e.t->done(std::move(e.response));
  }

  HttpClientFactory http_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;
  std::deque<Event> events_;
  std::map<TransferId, std::shared_ptr<Transfer>> transfers_;
  TransferId next_id_ = 0;
};

// Makes env->async_http run env->http's clients on a thread per transfer (call after setting
// env->http).
inline void UseThreadedAsyncHttp(Environment* env) {
  HttpClientFactory http = env->http;
  env->async_http = [http] { return std::make_unique<ThreadedAsyncHttp>(http); };
}

}  // namespace podwait::testing
