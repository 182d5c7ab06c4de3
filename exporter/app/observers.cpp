#include "exporter/app/observers.h"

#include <array>

namespace podwait {
namespace {

// The series of one resource, looked up once: a watch event costs one atomic increment.
class SelfMetricsReflectorObserver final : public ReflectorObserver {
 public:
  SelfMetricsReflectorObserver(SelfMetrics& metrics, const std::string& resource)
      : metrics_(metrics),
        resource_(resource),
        relists_(metrics.WatchRelists(resource)),
        objects_(metrics.Objects(resource)),
        parse_errors_(metrics.ParseErrors(resource)),
        last_event_(metrics.WatchLastEventTimestamp(resource)) {
    metrics.SetWatchSynced(resource, false);  // not synced until the first list
    for (size_t t = 0; t < events_.size(); ++t) {
      events_[t] =
          &metrics.WatchEvents(resource, WatchEventTypeName(static_cast<WatchEventType>(t)));
    }
  }

  void OnWatchEvent(WatchEventType type, Timestamp now) override {
    last_event_.Set(static_cast<double>(now) / 1000.0);
    events_[static_cast<size_t>(type)]->Increment();
  }
  void OnRestart(const std::string& reason) override {
    metrics_.WatchRestarts(resource_, reason).Increment();
  }
  void OnRelist() override { relists_.Increment(); }
  void OnSynced(bool synced) override { metrics_.SetWatchSynced(resource_, synced); }
  void OnObjects(size_t count) override { objects_.Set(static_cast<double>(count)); }
  void OnParseError() override { parse_errors_.Increment(); }
  // Not served (its CRD is not installed): no watch_synced series, so PodwaitWatchStale stays
  // quiet on a cluster without tidb-operator v1's or v2's CRDs.
  void OnDisabled() override { metrics_.RemoveWatchSynced(resource_); }

 private:
  SelfMetrics& metrics_;
  const std::string resource_;
  std::array<prometheus::Counter*, 5> events_{};  // by WatchEventType
  prometheus::Counter& relists_;
  prometheus::Gauge& objects_;
  prometheus::Counter& parse_errors_;
  prometheus::Gauge& last_event_;
};

}  // namespace

void SelfMetricsProbeObserver::OnRequest(PdEndpoint endpoint, double seconds, PdErrorKind kind) {
  const std::string name(PdEndpointName(endpoint));
  metrics_.ProbeDuration(name).Observe(seconds);
  if (kind != PdErrorKind::kNone && kind != PdErrorKind::kCancelled) {
    metrics_.ProbeErrors(name, std::string(PdErrorKindName(kind))).Increment();
  }
}

void SelfMetricsProbeObserver::OnRound(double seconds) {
  metrics_.ProbeRoundSeconds().Set(seconds);
}

ReflectorObserverFactory MakeSelfMetricsReflectorObservers(SelfMetrics& metrics) {
  return [&metrics](const std::string& resource) -> std::unique_ptr<ReflectorObserver> {
    return std::make_unique<SelfMetricsReflectorObserver>(metrics, resource);
  };
}

std::atomic<Timestamp>& WatchFreshness::Add(const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  slots_.push_back(std::make_unique<Slot>());
  slots_.back()->resource = resource;
  return slots_.back()->at;
}

Timestamp WatchFreshness::Oldest(const std::string& resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  Timestamp oldest = 0;
  for (const auto& s : slots_) {
    if (s->resource != resource) continue;
    const Timestamp at = s->at.load(std::memory_order_relaxed);
    if (at < 0) continue;  // disabled: never brings data, and need not
    if (at == 0) return 0;
    if (oldest == 0 || at < oldest) oldest = at;
  }
  return oldest;
}

namespace {

// Forwards everything to the inner observer; a list done or a watch event is fresh data.
class FreshnessObserver final : public ReflectorObserver {
 public:
  FreshnessObserver(std::unique_ptr<ReflectorObserver> inner, std::atomic<Timestamp>& at,
                    const Clock& clock)
      : inner_(std::move(inner)), at_(at), clock_(clock) {}
  void OnWatchEvent(WatchEventType type, Timestamp now) override {
    at_.store(now, std::memory_order_relaxed);
    if (inner_) inner_->OnWatchEvent(type, now);
  }
  void OnRestart(const std::string& reason) override {
    if (inner_) inner_->OnRestart(reason);
  }
  void OnRelist() override {
    if (inner_) inner_->OnRelist();
  }
  void OnSynced(bool synced) override {
    if (synced) at_.store(clock_.Now(), std::memory_order_relaxed);
    if (inner_) inner_->OnSynced(synced);
  }
  void OnObjects(size_t count) override {
    if (inner_) inner_->OnObjects(count);
  }
  void OnParseError() override {
    if (inner_) inner_->OnParseError();
  }
  void OnDisabled() override {
    at_.store(-1, std::memory_order_relaxed);
    if (inner_) inner_->OnDisabled();
  }

 private:
  std::unique_ptr<ReflectorObserver> inner_;
  std::atomic<Timestamp>& at_;
  const Clock& clock_;
};

}  // namespace

ReflectorObserverFactory WithFreshness(ReflectorObserverFactory inner, WatchFreshness& freshness,
                                       const Clock& clock) {
  return [inner = std::move(inner), &freshness,
          &clock](const std::string& resource) -> std::unique_ptr<ReflectorObserver> {
    return std::make_unique<FreshnessObserver>(inner ? inner(resource) : nullptr,
                                               freshness.Add(resource), clock);
  };
}

}  // namespace podwait
