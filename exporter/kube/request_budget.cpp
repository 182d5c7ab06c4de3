#include "exporter/kube/request_budget.h"

#include <algorithm>
#include <cmath>

#include "exporter/common/log.h"

namespace podwait {

RequestBudget::RequestBudget(double qps, double burst)
    : qps_(std::max(0.001, qps)), burst_(std::max(1.0, burst)), tokens_(burst_) {}

void RequestBudget::RefillLocked(int64_t now_ms) {
  if (last_ms_ >= 0 && now_ms > last_ms_) {
    tokens_ = std::min(burst_, tokens_ + static_cast<double>(now_ms - last_ms_) * qps_ / 1000);
  }
  last_ms_ = std::max(last_ms_, now_ms);
}

bool RequestBudget::TryTake(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  RefillLocked(now_ms);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  ++requests_;
  return true;
}

int64_t RequestBudget::Reserve(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  RefillLocked(now_ms);
  tokens_ -= 1;
  ++requests_;
  if (tokens_ >= 0) return 0;
  ++delayed_;
  return static_cast<int64_t>(std::ceil(-tokens_ * 1000 / qps_));
}

void RequestBudget::TakeGranted() {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_;
}

uint64_t RequestBudget::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

uint64_t RequestBudget::delayed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delayed_;
}

namespace {

// A cause's shape: libcurl's text carries timings ("after 18 ms") and counters that differ from
// one attempt to the next, so each run of digits counts as one "#".
std::string CauseShape(const std::string& cause) {
  std::string shape;
  shape.reserve(cause.size());
  for (size_t i = 0; i < cause.size(); ++i) {
    const bool digit = cause[i] >= '0' && cause[i] <= '9';
    if (!digit) {
      shape += cause[i];
    } else if (i == 0 || cause[i - 1] < '0' || cause[i - 1] > '9') {
      shape += '#';
    }
  }
  return shape;
}

}  // namespace

ApiServerLog::ApiServerLog(int64_t first_step_ms, int64_t max_step_ms)
    : first_step_ms_(std::max<int64_t>(1, first_step_ms)),
      max_step_ms_(std::max(first_step_ms_, max_step_ms)) {}

bool ApiServerLog::OnTransportError(const std::string& resource, const std::string& address,
                                    const std::string& cause, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  failing_.insert(resource);
  if (down_since_ms_ < 0) down_since_ms_ = now_ms;
  last_address_ = address;
  last_cause_ = cause;
  auto [it, first] = causes_.try_emplace(CauseShape(cause));
  Cause& c = it->second;
  if (!first && now_ms < c.next_ms) {
    ++c.suppressed;
    return false;
  }
  c.step_ms = first ? first_step_ms_ : std::min(max_step_ms_, c.step_ms * 2);
  c.next_ms = now_ms + c.step_ms;
  LogWarn("cannot reach the API server",
          {{"address", address},
           {"error", cause},
           {"resources_failing", std::to_string(failing_.size())},
           {"down_for_s", std::to_string((now_ms - down_since_ms_) / 1000)},
           {"suppressed", std::to_string(c.suppressed)},
           {"next_report_in_ms", std::to_string(c.step_ms)}});
  c.suppressed = 0;
  ++lines_;
  return true;
}

void ApiServerLog::OnAnswer(const std::string& resource, const std::string& address,
                            int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  failing_.erase(resource);
  if (down_since_ms_ < 0) return;
  LogInfo("API server reachable again",
          {{"address", address}, {"down_for_s", std::to_string((now_ms - down_since_ms_) / 1000)}});
  ++lines_;
  causes_.clear();
  failing_.clear();
  down_since_ms_ = -1;
}

uint64_t ApiServerLog::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

ApiServerLog::Reach ApiServerLog::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (down_since_ms_ < 0) return {};
  return {false, last_address_, last_cause_, down_since_ms_};
}

}  // namespace podwait
