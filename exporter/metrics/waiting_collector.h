#pragma once

#include <functional>
#include <memory>
#include <string>

#include "exporter/common/clock.h"
#include "exporter/model/waiting.h"

namespace podwait {

// Renders the waiting-pod part of the metric contract (docs/DESIGN.md §5) from the latest snapshot
// at scrape time: podwait_pod_waiting_seconds, podwait_waiting_pods,
// podwait_waiting_oldest_seconds, podwait_stage_duration_seconds,
// podwait_failover_during_dependency_wait, podwait_autoscaler_detected. Waiting times are computed
// against the clock at scrape time, so they grow between evaluations.
//
// It writes the text format directly (TextWriter) instead of going through prometheus-cpp's
// MetricFamily values: with one series per waiting pod, the intermediate label vectors were most
// of a scrape's time and of the exporter's transient memory (BENCHMARKS.md). Thread-safe.
class WaitingCollector {
 public:
  using SnapshotFn = std::function<std::shared_ptr<const WaitingSnapshot>()>;
  WaitingCollector(SnapshotFn snapshot, const Clock& clock, bool pod_series);

  // Appends the families in the text exposition format 0.0.4.
  void AppendText(std::string* out) const;

 private:
  SnapshotFn snapshot_;
  const Clock& clock_;
  bool pod_series_;
};

}  // namespace podwait
