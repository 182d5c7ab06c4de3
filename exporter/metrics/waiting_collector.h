#pragma once

#include <prometheus/collectable.h>

#include <functional>
#include <memory>

#include "exporter/common/clock.h"
#include "exporter/state/waiting_tracker.h"

namespace podwait {

// Renders the waiting-pod part of the metric contract (DESIGN §5) from the latest snapshot at
// scrape time: podwait_pod_waiting_seconds, podwait_waiting_pods, podwait_waiting_oldest_seconds,
// podwait_stage_duration_seconds, podwait_failover_during_dependency_wait,
// podwait_autoscaler_detected. Waiting times are computed against the clock at scrape time, so
// they grow between evaluations. Thread-safe.
class WaitingCollector final : public prometheus::Collectable {
 public:
  using SnapshotFn = std::function<std::shared_ptr<const WaitingSnapshot>()>;
  WaitingCollector(SnapshotFn snapshot, const Clock& clock, bool pod_series);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  SnapshotFn snapshot_;
  const Clock& clock_;
  bool pod_series_;
};

}  // namespace podwait
