#pragma once

// The metric contract (docs/DESIGN.md, "Metric contract"): every family podwait-exporter serves,
// with its type, help and labels, written once. Every writer (the waiting and dependency
// collectors, the self-metrics, the process collector) takes its families from here;
// `podwait-exporter contract` prints the table, and the rules, dashboards and docs checks read
// that. A new metric is a row here plus the code that writes its samples, which names the row and
// gives the label values in its order (TextWriter::Sample<M>, PromLabels<M>): a sample with a
// missing or extra label does not compile.

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace podwait {

struct MetricInfo {
  std::string_view name;
  std::string_view type;  // counter, gauge, histogram (the exposition's TYPE)
  std::string_view help;
  std::string_view labels;  // comma-separated, in the order they are written
};

// PODWAIT_METRICS(X) calls X(constant, name, type, help, labels) once per family.
#define PODWAIT_METRICS(X)                                                                         \
  /* Waiting pods (WaitingCollector) */                                                            \
  X(kPodWaitingSeconds, "podwait_pod_waiting_seconds", "gauge",                                    \
    "Seconds since the waiting pod's current stage began, with why it waits.",                     \
    "namespace,tidb_cluster,component,pod,v2_instance,stage,class,reason")                         \
  X(kWaitingPods, "podwait_waiting_pods", "gauge", "Number of waiting pods.",                      \
    "namespace,tidb_cluster,component,stage,class")                                                \
  X(kWaitingOldestSeconds, "podwait_waiting_oldest_seconds", "gauge",                              \
    "The longest current wait in the group.", "namespace,tidb_cluster,component,stage,class")      \
  X(kStageDurationSeconds, "podwait_stage_duration_seconds", "histogram",                          \
    "Completed stages (time to schedule, time in init, time to start), by the class the pod "      \
    "had when it left the stage.",                                                                 \
    "component,stage,class")                                                                       \
  X(kFailoverDuringDependencyWait, "podwait_failover_during_dependency_wait", "gauge",             \
    "Failover members or stores that tidb-operator recorded while that pod was waiting on a "      \
    "dependency.",                                                                                 \
    "namespace,tidb_cluster,component")                                                            \
  X(kAutoscalerDetected, "podwait_autoscaler_detected", "gauge",                                   \
    "1 when the autoscaler of that kind is detected (or set by flag).", "kind")                    \
  X(kAutoscalerHealthy, "podwait_autoscaler_healthy", "gauge",                                     \
    "For a detected autoscaler: 1 when healthy, 0 when its status stopped updating or a pod "      \
    "waits with reason autoscaler_silent.",                                                        \
    "kind")                                                                                        \
  /* Dependencies and PD (DependencyCollector) */                                                  \
  X(kDependencyReady, "podwait_dependency_ready", "gauge",                                         \
    "Whether a TiDB cluster's dependency is ready (1) or not (0); absent while unknown.",          \
    "namespace,tidb_cluster,dependency")                                                           \
  X(kDependencyReadySince, "podwait_dependency_ready_since_timestamp_seconds", "gauge",            \
    "When the dependency last became ready (Unix seconds); only while ready.",                     \
    "namespace,tidb_cluster,dependency")                                                           \
  X(kPdProbeSuccess, "podwait_pd_probe_success", "gauge",                                          \
    "Whether the last PD API probe of the cluster answered and parsed.", "namespace,tidb_cluster") \
  X(kPdMembers, "podwait_pd_members", "gauge", "PD members by health.",                            \
    "namespace,tidb_cluster,health")                                                               \
  X(kPdLeader, "podwait_pd_leader", "gauge", "1 when PD has a leader.", "namespace,tidb_cluster")  \
  X(kClusterInitialized, "podwait_cluster_initialized", "gauge",                                   \
    "PD's cluster/status is_initialized (absent when PD does not say).", "namespace,tidb_cluster") \
  X(kTikvStores, "podwait_tikv_stores", "gauge", "TiKV stores by state (TiFlash excluded).",       \
    "namespace,tidb_cluster,state")                                                                \
  X(kFailoverMembers, "podwait_failover_members", "gauge",                                         \
    "Failover members/stores tidb-operator recorded in the TidbCluster status.",                   \
    "namespace,tidb_cluster,component")                                                            \
  X(kClusterHold, "podwait_cluster_hold", "gauge",                                                 \
    "1 while tidb-operator v2 holds the cluster on purpose: paused, suspending, suspended, or a "  \
    "PD mode switch.",                                                                             \
    "namespace,tidb_cluster,hold")                                                                 \
  /* Self-monitoring (SelfMetrics) */                                                              \
  X(kWatchEvents, "podwait_watch_events_total", "counter",                                         \
    "Watch events received, by resource and event type.", "resource,type")                         \
  X(kWatchRestarts, "podwait_watch_restarts_total", "counter",                                     \
    "Watch streams restarted, by resource and reason.", "resource,reason")                         \
  X(kWatchRelists, "podwait_watch_relists_total", "counter",                                       \
    "Full lists done after the initial one (410 Gone, expired).", "resource")                      \
  X(kWatchSynced, "podwait_watch_synced", "gauge",                                                 \
    "1 when the resource's list is synced and its watch is running.", "resource")                  \
  X(kObjects, "podwait_objects", "gauge", "Objects currently held, by resource.", "resource")      \
  X(kParseErrors, "podwait_parse_errors_total", "counter",                                         \
    "Malformed documents or lines counted and skipped, by resource.", "resource")                  \
  X(kWatchLastEventTimestamp, "podwait_watch_last_event_timestamp_seconds", "gauge",               \
    "When the resource's watch last delivered an event or bookmark.", "resource")                  \
  X(kProbeDuration, "podwait_probe_duration_seconds", "histogram",                                 \
    "Duration of PD API requests, by endpoint.", "endpoint")                                       \
  X(kProbeErrors, "podwait_probe_errors_total", "counter",                                         \
    "Failed PD API requests, by endpoint and kind of failure.", "endpoint,kind")                   \
  X(kProbeRoundSeconds, "podwait_probe_round_seconds", "gauge",                                    \
    "Duration of the last round of PD probes over all clusters.", "")                              \
  X(kScrapeDuration, "podwait_scrape_duration_seconds", "histogram", "Time to render /metrics.",   \
    "")                                                                                            \
  X(kWebConfigLastReloadSuccessful, "podwait_web_config_last_reload_successful", "gauge",          \
    "Whether the last reload of --web.config.file succeeded (0: serving with the last good one).", \
    "")                                                                                            \
  X(kWebConfigLastReloadSuccessTimestamp,                                                          \
    "podwait_web_config_last_reload_success_timestamp_seconds", "gauge",                           \
    "When the web config in use was loaded (Unix seconds).", "")                                   \
  X(kEventsWritten, "podwait_events_written_total", "counter",                                     \
    "Events written on pods (--events.write), by result: created, series_updated, failed.",        \
    "result")                                                                                      \
  X(kEventsDropped, "podwait_events_dropped_total", "counter",                                     \
    "Events not written (--events.write), by reason: pod_rate_limited, queue_full.", "reason")     \
  X(kInvalidUtf8, "podwait_invalid_utf8_total", "counter",                                         \
    "Strings written with invalid UTF-8, each ill-formed sequence replaced by U+FFFD (output: "    \
    "metrics label values, json strings).",                                                        \
    "output")                                                                                      \
  X(kBuildInfo, "podwait_build_info", "gauge",                                                     \
    "A metric with a constant '1' value labeled by version and revision of podwait.",              \
    "version,revision")                                                                            \
  /* The process (ProcessCollector), as every Prometheus client library names them */              \
  X(kProcessCpuSeconds, "process_cpu_seconds_total", "counter",                                    \
    "Total user and system CPU time spent in seconds.", "")                                        \
  X(kProcessResidentMemory, "process_resident_memory_bytes", "gauge",                              \
    "Resident memory size in bytes.", "")                                                          \
  X(kProcessVirtualMemory, "process_virtual_memory_bytes", "gauge",                                \
    "Virtual memory size in bytes.", "")                                                           \
  X(kProcessStartTime, "process_start_time_seconds", "gauge",                                      \
    "Start time of the process since unix epoch in seconds.", "")                                  \
  X(kProcessOpenFds, "process_open_fds", "gauge", "Number of open file descriptors.", "")          \
  X(kProcessMaxFds, "process_max_fds", "gauge", "Maximum number of open file descriptors.", "")

namespace metric {
#define PODWAIT_METRIC_CONSTANT(constant, name, type, help, labels) \
  inline constexpr MetricInfo constant{name, type, help, labels};
PODWAIT_METRICS(PODWAIT_METRIC_CONSTANT)
#undef PODWAIT_METRIC_CONSTANT
}  // namespace metric

#define PODWAIT_METRIC_ROW(constant, name, type, help, labels) metric::constant,
inline constexpr MetricInfo kMetricFamilies[] = {PODWAIT_METRICS(PODWAIT_METRIC_ROW)};
#undef PODWAIT_METRIC_ROW

// The labels of a family, split.
std::vector<std::string_view> LabelsOf(const MetricInfo& metric);

// The same at compile time, for the writers: a sample of family M takes exactly
// LabelCount(M.labels) values, in the order of kLabelNames<M> (TextWriter::Sample, PromLabels).
constexpr size_t LabelCount(std::string_view labels) {
  if (labels.empty()) return 0;
  size_t n = 1;
  for (char c : labels) n += c == ',' ? 1 : 0;
  return n;
}
template <const MetricInfo& M>
inline constexpr auto kLabelNames = [] {
  std::array<std::string_view, LabelCount(M.labels)> out{};
  std::string_view rest = M.labels;
  for (auto& name : out) {
    const size_t comma = rest.find(',');
    name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}();

}  // namespace podwait
