#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <mutex>
#include <string>

namespace podwait {

// The exporter's own health metrics (fixed, low-cardinality families; docs/DESIGN.md §5
// "self-monitoring"). Sources hold a reference and update them; the registry is collected at scrape
// time. Thread-safe (prometheus-cpp metrics are atomic).
class SelfMetrics {
 public:
  SelfMetrics();
  SelfMetrics(const SelfMetrics&) = delete;
  SelfMetrics& operator=(const SelfMetrics&) = delete;

  // Every family below, podwait_build_info included.
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }
  // podwait_build_info alone (--web.disable-exporter-metrics).
  std::shared_ptr<prometheus::Registry> build_info_registry() const { return build_info_; }

  // Watches (resource: pods, events, tidbclusters, configmaps).
  prometheus::Counter& WatchEvents(const std::string& resource, const std::string& type);
  prometheus::Counter& WatchRestarts(const std::string& resource, const std::string& reason);
  prometheus::Counter& WatchRelists(const std::string& resource);
  prometheus::Gauge& WatchSynced(const std::string& resource);
  // Sets, or drops (a resource the API server does not serve), the resource's watch_synced
  // series; serialised, so reflectors of one resource in several namespaces never use a series
  // another has dropped.
  void SetWatchSynced(const std::string& resource, bool synced);
  void RemoveWatchSynced(const std::string& resource);
  // An optional input (app/optional_inputs.h): tidbclusters, v2, ca_status, volumes, ...
  prometheus::Gauge& InputEnabled(const std::string& input);
  prometheus::Gauge& Objects(const std::string& resource);
  prometheus::Counter& ParseErrors(const std::string& resource);
  prometheus::Gauge& WatchLastEventTimestamp(const std::string& resource);

  // PD probes (endpoint: health, leader, members, cluster_status, stores, config_replicate;
  // kind: timeout, connect, http_status, parse, tls, too_large).
  prometheus::Histogram& ProbeDuration(const std::string& endpoint);
  prometheus::Counter& ProbeErrors(const std::string& endpoint, const std::string& kind);
  prometheus::Gauge& ProbeRoundSeconds();

  // Scrapes of /metrics.
  prometheus::Histogram& ScrapeDuration();

  // Events written on pods (--events.write; result: created, series_updated, failed) and not
  // written (reason: pod_rate_limited, queue_full).
  prometheus::Counter& EventsWritten(const std::string& result);
  prometheus::Counter& EventsDropped(const std::string& reason);

  // The web config's last reload (--web.config.file; without one, the server's start).
  // `last_success`: Unix ms.
  void SetWebConfigReload(bool successful, int64_t last_success);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& watch_events_;
  prometheus::Family<prometheus::Counter>& watch_restarts_;
  prometheus::Family<prometheus::Counter>& watch_relists_;
  prometheus::Family<prometheus::Gauge>& watch_synced_;
  std::mutex watch_synced_mu_;
  prometheus::Family<prometheus::Gauge>& input_enabled_;
  prometheus::Family<prometheus::Gauge>& objects_;
  prometheus::Family<prometheus::Counter>& parse_errors_;
  prometheus::Family<prometheus::Gauge>& watch_last_event_;
  prometheus::Family<prometheus::Histogram>& probe_duration_;
  prometheus::Family<prometheus::Counter>& probe_errors_;
  prometheus::Family<prometheus::Gauge>& probe_round_;
  prometheus::Family<prometheus::Histogram>& scrape_duration_;
  prometheus::Family<prometheus::Counter>& events_written_;
  prometheus::Family<prometheus::Counter>& events_dropped_;
  std::shared_ptr<prometheus::Registry> build_info_;
  prometheus::Gauge& web_config_successful_;
  prometheus::Gauge& web_config_success_time_;
};

}  // namespace podwait
