#pragma once

// The exporter's self-metrics as observers of the modules below app/: the PD prober's requests
// and rounds (podwait_probe_*), the reflectors' health (podwait_watch_*, podwait_objects,
// podwait_parse_errors_total). The modules report through their own interfaces and know nothing
// of metrics.

#include <memory>

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

}  // namespace podwait
