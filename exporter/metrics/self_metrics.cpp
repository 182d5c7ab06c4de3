#include "exporter/metrics/self_metrics.h"

#include "exporter/metrics/contract.h"
#include "exporter/metrics/metric_writer.h"
#include "podwait/version.h"

namespace podwait {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

namespace {
std::string Name(const MetricInfo& m) { return std::string(m.name); }
std::string Help(const MetricInfo& m) { return std::string(m.help); }
}  // namespace

SelfMetrics::SelfMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      watch_events_(BuildCounter()
                        .Name(Name(metric::kWatchEvents))
                        .Help(Help(metric::kWatchEvents))
                        .Register(*registry_)),
      watch_restarts_(BuildCounter()
                          .Name(Name(metric::kWatchRestarts))
                          .Help(Help(metric::kWatchRestarts))
                          .Register(*registry_)),
      watch_relists_(BuildCounter()
                         .Name(Name(metric::kWatchRelists))
                         .Help(Help(metric::kWatchRelists))
                         .Register(*registry_)),
      watch_synced_(BuildGauge()
                        .Name(Name(metric::kWatchSynced))
                        .Help(Help(metric::kWatchSynced))
                        .Register(*registry_)),
      input_enabled_(BuildGauge()
                         .Name(Name(metric::kInputEnabled))
                         .Help(Help(metric::kInputEnabled))
                         .Register(*registry_)),
      objects_(BuildGauge()
                   .Name(Name(metric::kObjects))
                   .Help(Help(metric::kObjects))
                   .Register(*registry_)),
      parse_errors_(BuildCounter()
                        .Name(Name(metric::kParseErrors))
                        .Help(Help(metric::kParseErrors))
                        .Register(*registry_)),
      watch_last_event_(BuildGauge()
                            .Name(Name(metric::kWatchLastEventTimestamp))
                            .Help(Help(metric::kWatchLastEventTimestamp))
                            .Register(*registry_)),
      probe_duration_(BuildHistogram()
                          .Name(Name(metric::kProbeDuration))
                          .Help(Help(metric::kProbeDuration))
                          .Register(*registry_)),
      probe_errors_(BuildCounter()
                        .Name(Name(metric::kProbeErrors))
                        .Help(Help(metric::kProbeErrors))
                        .Register(*registry_)),
      probe_round_(BuildGauge()
                       .Name(Name(metric::kProbeRoundSeconds))
                       .Help(Help(metric::kProbeRoundSeconds))
                       .Register(*registry_)),
      scrape_duration_(BuildHistogram()
                           .Name(Name(metric::kScrapeDuration))
                           .Help(Help(metric::kScrapeDuration))
                           .Register(*registry_)),
      events_written_(BuildCounter()
                          .Name(Name(metric::kEventsWritten))
                          .Help(Help(metric::kEventsWritten))
                          .Register(*registry_)),
      events_dropped_(BuildCounter()
                          .Name(Name(metric::kEventsDropped))
                          .Help(Help(metric::kEventsDropped))
                          .Register(*registry_)),
      build_info_(std::make_shared<prometheus::Registry>()),
      web_config_successful_(BuildGauge()
                                 .Name(Name(metric::kWebConfigLastReloadSuccessful))
                                 .Help(Help(metric::kWebConfigLastReloadSuccessful))
                                 .Register(*registry_)
                                 .Add({})),
      web_config_success_time_(BuildGauge()
                                   .Name(Name(metric::kWebConfigLastReloadSuccessTimestamp))
                                   .Help(Help(metric::kWebConfigLastReloadSuccessTimestamp))
                                   .Register(*registry_)
                                   .Add({})) {
  web_config_successful_.Set(1);
  for (prometheus::Registry* r : {registry_.get(), build_info_.get()}) {
    BuildGauge()
        .Name(Name(metric::kBuildInfo))
        .Help(Help(metric::kBuildInfo))
        .Register(*r)
        .Add(PromLabels<metric::kBuildInfo>({kVersion, kRevision}))
        .Set(1);
  }
}

void SelfMetrics::SetWebConfigReload(bool successful, int64_t last_success) {
  web_config_successful_.Set(successful ? 1 : 0);
  web_config_success_time_.Set(static_cast<double>(last_success) / 1000);
}

prometheus::Counter& SelfMetrics::WatchEvents(const std::string& resource,
                                              const std::string& type) {
  return watch_events_.Add(PromLabels<metric::kWatchEvents>({resource, type}));
}
prometheus::Counter& SelfMetrics::WatchRestarts(const std::string& resource,
                                                const std::string& reason) {
  return watch_restarts_.Add(PromLabels<metric::kWatchRestarts>({resource, reason}));
}
prometheus::Counter& SelfMetrics::WatchRelists(const std::string& resource) {
  return watch_relists_.Add(PromLabels<metric::kWatchRelists>({resource}));
}
prometheus::Gauge& SelfMetrics::InputEnabled(const std::string& input) {
  return input_enabled_.Add(PromLabels<metric::kInputEnabled>({input}));
}
prometheus::Gauge& SelfMetrics::WatchSynced(const std::string& resource) {
  return watch_synced_.Add(PromLabels<metric::kWatchSynced>({resource}));
}
void SelfMetrics::SetWatchSynced(const std::string& resource, bool synced) {
  std::lock_guard<std::mutex> lock(watch_synced_mu_);
  watch_synced_.Add(PromLabels<metric::kWatchSynced>({resource})).Set(synced ? 1 : 0);
}
void SelfMetrics::RemoveWatchSynced(const std::string& resource) {
  std::lock_guard<std::mutex> lock(watch_synced_mu_);
  watch_synced_.Remove(&watch_synced_.Add(PromLabels<metric::kWatchSynced>({resource})));
}
prometheus::Counter& SelfMetrics::EventsWritten(const std::string& result) {
  return events_written_.Add(PromLabels<metric::kEventsWritten>({result}));
}
prometheus::Counter& SelfMetrics::EventsDropped(const std::string& reason) {
  return events_dropped_.Add(PromLabels<metric::kEventsDropped>({reason}));
}
prometheus::Gauge& SelfMetrics::Objects(const std::string& resource) {
  return objects_.Add(PromLabels<metric::kObjects>({resource}));
}
prometheus::Counter& SelfMetrics::ParseErrors(const std::string& resource) {
  return parse_errors_.Add(PromLabels<metric::kParseErrors>({resource}));
}
prometheus::Gauge& SelfMetrics::WatchLastEventTimestamp(const std::string& resource) {
  return watch_last_event_.Add(PromLabels<metric::kWatchLastEventTimestamp>({resource}));
}
prometheus::Histogram& SelfMetrics::ProbeDuration(const std::string& endpoint) {
  return probe_duration_.Add(
      PromLabels<metric::kProbeDuration>({endpoint}),
      prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5});
}
prometheus::Counter& SelfMetrics::ProbeErrors(const std::string& endpoint,
                                              const std::string& kind) {
  return probe_errors_.Add(PromLabels<metric::kProbeErrors>({endpoint, kind}));
}
prometheus::Gauge& SelfMetrics::ProbeRoundSeconds() { return probe_round_.Add({}); }
prometheus::Histogram& SelfMetrics::ScrapeDuration() {
  return scrape_duration_.Add(
      {}, prometheus::Histogram::BucketBoundaries{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1});
}

}  // namespace podwait
