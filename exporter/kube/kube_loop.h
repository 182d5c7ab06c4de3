#pragma once

// The Kubernetes client's event loop: one thread that drives every list and watch of a process
// (their HTTP transfers on one AsyncHttp, multiplexed over HTTP/2 when the API server speaks it),
// their timers (backoff steps, request-budget waits) and the work they hand to it. Reflectors are
// state machines run by it, so threads and descriptors do not grow with namespaces or resources,
// and a watch that stalls waits on its socket without holding anything the others need.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "exporter/net/async_http.h"

namespace podwait {

class KubeLoop {
 public:
  using TimerId = uint64_t;
  // The transport comes from `http` (libcurl multi in production).
  explicit KubeLoop(const AsyncHttpFactory& http);
  ~KubeLoop();
  KubeLoop(const KubeLoop&) = delete;
  KubeLoop& operator=(const KubeLoop&) = delete;

  // Starts the thread (again after Stop()). Idempotent.
  void Start();
  // Runs the tasks still queued, then joins the thread; timers that did not fire are dropped.
  void Stop();
  // Runs `task` on the loop thread, soon. Thread-safe.
  void Post(std::function<void()> task);
  // Runs `task` on the loop thread and returns once it ran; at once when called on the loop
  // thread, or on the caller's thread when the loop is not running. Thread-safe.
  void Call(const std::function<void()>& task);
  // Runs `task` on the loop thread after `delay_ms` of real time. Loop thread only.
  TimerId After(int64_t delay_ms, std::function<void()> task);
  // A timer that did not fire yet never will. Loop thread only.
  void CancelTimer(TimerId id);
  // The transport. Loop thread only (or while the loop does not run, under Call()).
  AsyncHttp& http() { return *http_; }
  bool OnLoopThread() const { return std::this_thread::get_id() == thread_id_.load(); }

 private:
  void Run();
  // Runs what is due; returns how long the loop may wait for I/O before the next timer.
  int64_t RunDue();

  std::unique_ptr<AsyncHttp> http_;
  std::mutex mu_;  // guards tasks_, running_, stop_
  std::deque<std::function<void()>> tasks_;
  bool running_ = false;
  bool stop_ = false;
  std::mutex call_mu_;  // serializes Call() while the loop does not run
  std::atomic<std::thread::id> thread_id_{};
  std::thread thread_;
  // Timers (loop thread only): due time (steady ms) and id -> task.
  std::map<std::pair<int64_t, TimerId>, std::function<void()>> timers_;
  std::unordered_map<TimerId, int64_t> timer_due_;
  TimerId next_timer_ = 0;
};

}  // namespace podwait
