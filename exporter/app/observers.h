#pragma once

// The exporter's self-metrics as observers of the modules below app/: the PD prober's requests
// and rounds (podwait_probe_*), the reflectors' health (podwait_watch_*, podwait_objects,
// podwait_parse_errors_total). The modules report through their own interfaces and know nothing
// of metrics.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exporter/kube/reflector.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/pd/client.h"

namespace podwait {

class SelfMetricsProbeObserver final : public PdProbeObserver {
 public:
  explicit SelfMetricsProbeObserver(SelfMetrics& metrics) : metrics_(metrics) {}
  void OnRequest(PdEndpoint endpoint, double seconds, PdErrorKind kind) override;
  void OnRound(double seconds) override;

 private:
  SelfMetrics& metrics_;
};

// One observer per reflector, holding its resource's series. `metrics` must outlive them.
ReflectorObserverFactory MakeSelfMetricsReflectorObservers(SelfMetrics& metrics);

// When each reflector last brought data (a completed list, a watch event, a bookmark): what the
// status page's "the last data is 3m old" says while the data is not current. Thread-safe.
class WatchFreshness {
 public:
  // A new reflector of `resource`; the slot lives as long as this object.
  std::atomic<Timestamp>& Add(const std::string& resource);
  // The oldest last-data time among the reflectors of `resource` (disabled ones left out); 0
  // when one has none yet or there is none.
  Timestamp Oldest(const std::string& resource) const;

 private:
  struct Slot {
    std::string resource;
    std::atomic<Timestamp> at{0};
  };
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

// `inner`'s observers, each also recording its reflector's data in `freshness` at `clock`'s
// time. `freshness` and `clock` must outlive them.
ReflectorObserverFactory WithFreshness(ReflectorObserverFactory inner, WatchFreshness& freshness,
                                       const Clock& clock);

}  // namespace podwait
