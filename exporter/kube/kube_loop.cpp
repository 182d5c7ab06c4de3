#include "exporter/kube/kube_loop.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <vector>

namespace podwait {
namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The longest the loop waits for I/O without looking at its timers and tasks.
constexpr int64_t kMaxWaitMs = 1000;

}  // namespace

KubeLoop::KubeLoop(const AsyncHttpFactory& http) : http_(http()) {}

KubeLoop::~KubeLoop() { Stop(); }

void KubeLoop::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) return;
  running_ = true;
  stop_ = false;
  thread_ = std::thread([this] {
    thread_id_ = std::this_thread::get_id();
    Run();
  });
}

void KubeLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!running_) return;
    stop_ = true;
  }
  http_->Wake();
  thread_.join();
  thread_id_ = std::thread::id();
  std::deque<std::function<void()>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
    left.swap(tasks_);
  }
  // Queued tasks still run (a Call() waits for its own), on this thread, the loop being gone.
  std::lock_guard<std::mutex> call(call_mu_);
  for (auto& task : left) task();
  timers_.clear();
  timer_due_.clear();
}

void KubeLoop::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  http_->Wake();
}

void KubeLoop::Call(const std::function<void()>& task) {
  if (OnLoopThread()) {
    task();
    return;
  }
  std::promise<void> ran;
  std::future<void> done = ran.get_future();
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!running_ || stop_) {
      lock.unlock();
      std::lock_guard<std::mutex> call(call_mu_);
      task();
      return;
    }
    tasks_.push_back([&task, &ran] {
      task();
      ran.set_value();
    });
  }
  http_->Wake();
  done.wait();
}

KubeLoop::TimerId KubeLoop::After(int64_t delay_ms, std::function<void()> task) {
  const TimerId id = ++next_timer_;
  const int64_t due = SteadyMs() + std::max<int64_t>(0, delay_ms);
  timers_.emplace(std::make_pair(due, id), std::move(task));
  timer_due_[id] = due;
  return id;
}

void KubeLoop::CancelTimer(TimerId id) {
  auto it = timer_due_.find(id);
  if (it == timer_due_.end()) return;
  timers_.erase({it->second, id});
  timer_due_.erase(it);
}

int64_t KubeLoop::RunDue() {
  std::deque<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks.swap(tasks_);
  }
  for (auto& task : tasks) task();
  const int64_t now = SteadyMs();
  while (!timers_.empty() && timers_.begin()->first.first <= now) {
    auto it = timers_.begin();
    std::function<void()> task = std::move(it->second);
    timer_due_.erase(it->first.second);
    timers_.erase(it);
    task();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!tasks_.empty()) return 0;
  if (timers_.empty()) return kMaxWaitMs;
  return std::clamp<int64_t>(timers_.begin()->first.first - SteadyMs(), 0, kMaxWaitMs);
}

void KubeLoop::Run() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    const int64_t wait = RunDue();
    http_->Run(wait);
  }
}

}  // namespace podwait
