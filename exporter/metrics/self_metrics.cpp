#include "exporter/metrics/self_metrics.h"

#include "podwait/version.h"

namespace podwait {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

SelfMetrics::SelfMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      watch_events_(BuildCounter()
                        .Name("podwait_watch_events_total")
                        .Help("Watch events received, by resource and event type.")
                        .Register(*registry_)),
      watch_restarts_(BuildCounter()
                          .Name("podwait_watch_restarts_total")
                          .Help("Watch streams restarted, by resource and reason.")
                          .Register(*registry_)),
      watch_relists_(BuildCounter()
                         .Name("podwait_watch_relists_total")
                         .Help("Full lists done after the initial one (410 Gone, expired).")
                         .Register(*registry_)),
      watch_synced_(BuildGauge()
                        .Name("podwait_watch_synced")
                        .Help("1 when the resource's list is synced and its watch is running.")
                        .Register(*registry_)),
      objects_(BuildGauge()
                   .Name("podwait_objects")
                   .Help("Objects currently held, by resource.")
                   .Register(*registry_)),
      parse_errors_(BuildCounter()
                        .Name("podwait_parse_errors_total")
                        .Help("Malformed documents or lines counted and skipped, by resource.")
                        .Register(*registry_)),
      watch_last_event_(BuildGauge()
                            .Name("podwait_watch_last_event_timestamp_seconds")
                            .Help("When the resource's watch last delivered an event or bookmark.")
                            .Register(*registry_)),
      probe_duration_(BuildHistogram()
                          .Name("podwait_probe_duration_seconds")
                          .Help("Duration of PD API requests, by endpoint.")
                          .Register(*registry_)),
      probe_errors_(BuildCounter()
                        .Name("podwait_probe_errors_total")
                        .Help("Failed PD API requests, by endpoint and kind of failure.")
                        .Register(*registry_)),
      probe_round_(BuildGauge()
                       .Name("podwait_probe_round_seconds")
                       .Help("Duration of the last round of PD probes over all clusters.")
                       .Register(*registry_)),
      scrape_duration_(BuildHistogram()
                           .Name("podwait_scrape_duration_seconds")
                           .Help("Time to render /metrics.")
                           .Register(*registry_)) {
  BuildGauge()
      .Name("podwait_build_info")
      .Help("A metric with a constant '1' value labeled by version and revision of podwait.")
      .Register(*registry_)
      .Add({{"version", kVersion}, {"revision", kRevision}})
      .Set(1);
}

prometheus::Counter& SelfMetrics::WatchEvents(const std::string& resource,
                                              const std::string& type) {
  return watch_events_.Add({{"resource", resource}, {"type", type}});
}
prometheus::Counter& SelfMetrics::WatchRestarts(const std::string& resource,
                                                const std::string& reason) {
  return watch_restarts_.Add({{"resource", resource}, {"reason", reason}});
}
prometheus::Counter& SelfMetrics::WatchRelists(const std::string& resource) {
  return watch_relists_.Add({{"resource", resource}});
}
prometheus::Gauge& SelfMetrics::WatchSynced(const std::string& resource) {
  return watch_synced_.Add({{"resource", resource}});
}
prometheus::Gauge& SelfMetrics::Objects(const std::string& resource) {
  return objects_.Add({{"resource", resource}});
}
prometheus::Counter& SelfMetrics::ParseErrors(const std::string& resource) {
  return parse_errors_.Add({{"resource", resource}});
}
prometheus::Gauge& SelfMetrics::WatchLastEventTimestamp(const std::string& resource) {
  return watch_last_event_.Add({{"resource", resource}});
}
prometheus::Histogram& SelfMetrics::ProbeDuration(const std::string& endpoint) {
  return probe_duration_.Add(
      {{"endpoint", endpoint}},
      prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5});
}
prometheus::Counter& SelfMetrics::ProbeErrors(const std::string& endpoint,
                                              const std::string& kind) {
  return probe_errors_.Add({{"endpoint", endpoint}, {"kind", kind}});
}
prometheus::Gauge& SelfMetrics::ProbeRoundSeconds() { return probe_round_.Add({}); }
prometheus::Histogram& SelfMetrics::ScrapeDuration() {
  return scrape_duration_.Add(
      {}, prometheus::Histogram::BucketBoundaries{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1});
}

}  // namespace podwait
