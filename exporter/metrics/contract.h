#pragma once

// The metric contract (docs/DESIGN.md, "Metric contract"): every family podwait-exporter serves,
// with its type, help and labels, and for each label where its values come from and what bounds
// them, written once. Every writer (the waiting and dependency
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

// What bounds a label's values, so that no series outlives what it is about.
enum class LabelBound {
  kFixed,   // podwait's own words: a set its tables or code define
  kMapped,  // a value from the cluster or PD, mapped onto a fixed set plus "other"
  kObject,  // a value from an object: its series goes when the object does
};
// "fixed", "mapped", "object" (as `podwait-exporter contract` prints them).
std::string_view LabelBoundName(LabelBound bound);

// Where one label's values come from and what bounds them.
struct LabelSource {
  LabelBound bound;
  std::string_view from;        // where the values come from
  std::string_view bounded_by;  // the set (a section of the contract), or the object
};

struct MetricInfo {
  std::string_view name;
  std::string_view type;  // counter, gauge, histogram (the exposition's TYPE)
  std::string_view help;
  std::string_view labels;               // comma-separated, in the order they are written
  std::span<const LabelSource> sources;  // one per label, in the same order
};

// The label sources the rows below name.
namespace label {
using enum LabelBound;
// A waiting pod's own: its series goes when the pod stops waiting or is gone.
inline constexpr LabelSource kPodNamespace{kObject, "the pod's metadata.namespace",
                                           "its waiting pod"};
inline constexpr LabelSource kPodTidbCluster{
    kObject, "<namespace>-<the pod's cluster label (--label.cluster, --label.v2-cluster)>",
    "its waiting pod"};
inline constexpr LabelSource kPodComponent{
    kObject, "the pod's component label (--label.component, --label.v2-component)",
    "its waiting pod"};
inline constexpr LabelSource kPodName{kObject, "the pod's metadata.name", "its waiting pod"};
inline constexpr LabelSource kPodV2Instance{
    kObject, "the tidb-operator v2 instance the pod's name belongs to", "its waiting pod"};
// A group of waiting pods: the series goes with the group's last waiting pod.
inline constexpr LabelSource kGroupNamespace{kObject, "the pods' metadata.namespace",
                                             "the group's waiting pods"};
inline constexpr LabelSource kGroupTidbCluster{kObject, "<namespace>-<the pods' cluster label>",
                                               "the group's waiting pods"};
inline constexpr LabelSource kGroupComponent{kObject, "the pods' component label",
                                             "the group's waiting pods"};
// Completed stages outlive their pods: the component is mapped.
inline constexpr LabelSource kStageComponent{kMapped, "the pod's component label",
                                             "components (tidb-operator's), else \"other\""};
// A TiDB cluster's: the series go when the cluster has no watched pod and no TidbCluster left.
inline constexpr LabelSource kClusterNamespace{kObject, "the TiDB cluster's namespace",
                                               "its TiDB cluster"};
inline constexpr LabelSource kClusterTidbCluster{kObject, "<namespace>-<the TiDB cluster's name>",
                                                 "its TiDB cluster"};
inline constexpr LabelSource kStoreState{
    kMapped, "PD's store state, the TidbCluster's or a v2 TiKV instance's",
    "storeStates (PD's, tidb-operator v1's and v2's), else \"other\""};
// Failure members recorded in a TidbCluster's status (recounted at every evaluation).
inline constexpr LabelSource kFailoverNamespace{kObject, "the TidbCluster's namespace",
                                                "its TidbCluster's failure members"};
inline constexpr LabelSource kFailoverTidbCluster{kObject, "<namespace>-<the TidbCluster's name>",
                                                  "its TidbCluster's failure members"};
inline constexpr LabelSource kFailoverComponent{kFixed, "the TidbCluster status section",
                                                "pd, tidb, tikv, tiflash"};
// podwait's own words.
inline constexpr LabelSource kStage{kFixed, "the classification", "stages"};
inline constexpr LabelSource kClass{kFixed, "the classification", "classes"};
inline constexpr LabelSource kReason{kFixed, "the classification", "reasons"};
inline constexpr LabelSource kDependency{kFixed, "the dependency map", "dependencies"};
inline constexpr LabelSource kAutoscalerKind{kFixed, "the autoscaler table", "autoscalers"};
inline constexpr LabelSource kPdHealth{kFixed, "PD's member health", "healthy, unhealthy"};
inline constexpr LabelSource kHold{kFixed, "the v2 Cluster's spec and status",
                                   "paused, suspending, suspended, pd_mode_switch"};
inline constexpr LabelSource kResource{kFixed, "the Kubernetes inputs",
                                       "the resources podwait watches"};
inline constexpr LabelSource kInput{
    kFixed, "the input table (sources/inputs.h)",
    "tidbclusters, v2, ca_status, volumes, nodeclaims, provisioningrequests, dmclusters"};
inline constexpr LabelSource kWatchEventType{kFixed, "the watch protocol",
                                             "ADDED, MODIFIED, DELETED, BOOKMARK, ERROR"};
inline constexpr LabelSource kRestartReason{kFixed, "the reflector",
                                            "its restart reasons (docs/DESIGN.md §8)"};
inline constexpr LabelSource kPdEndpoint{kFixed, "the PD prober", "the PD endpoints it reads"};
inline constexpr LabelSource kPdErrorKind{kFixed, "the PD prober",
                                          "timeout, connect, http_status, parse, tls, too_large"};
inline constexpr LabelSource kEventResult{kFixed, "the Event writer",
                                          "created, series_updated, failed"};
inline constexpr LabelSource kEventDropReason{kFixed, "the Event writer",
                                              "pod_rate_limited, queue_full"};
inline constexpr LabelSource kUtf8Output{kFixed, "the writers", "metrics, json"};
inline constexpr LabelSource kBuildVersion{kFixed, "the build", "one value per binary"};
inline constexpr LabelSource kBuildRevision{kFixed, "the build", "one value per binary"};
}  // namespace label

template <typename... Sources>
constexpr std::array<LabelSource, sizeof...(Sources)> LabelSources(const Sources&... sources) {
  return {sources...};
}

// The number of labels of a comma-separated list.
constexpr size_t LabelCount(std::string_view labels) {
  if (labels.empty()) return 0;
  size_t n = 1;
  for (char c : labels) n += c == ',' ? 1 : 0;
  return n;
}

// PODWAIT_METRICS(X) calls X(constant, name, type, help, labels, sources) once per family;
// `sources` is a parenthesized list of label:: sources, one per label.
#define PODWAIT_METRICS(X)                                                                         \
  /* Waiting pods (WaitingCollector) */                                                            \
  X(kPodWaitingSeconds, "podwait_pod_waiting_seconds", "gauge",                                    \
    "Seconds since the waiting pod's current stage began, with why it waits.",                     \
    "namespace,tidb_cluster,component,pod,v2_instance,stage,class,reason",                         \
    (kPodNamespace, kPodTidbCluster, kPodComponent, kPodName, kPodV2Instance, kStage, kClass,      \
     kReason))                                                                                     \
  X(kWaitingPods, "podwait_waiting_pods", "gauge", "Number of waiting pods.",                      \
    "namespace,tidb_cluster,component,stage,class",                                                \
    (kGroupNamespace, kGroupTidbCluster, kGroupComponent, kStage, kClass))                         \
  X(kWaitingOldestSeconds, "podwait_waiting_oldest_seconds", "gauge",                              \
    "The longest current wait in the group.", "namespace,tidb_cluster,component,stage,class",      \
    (kGroupNamespace, kGroupTidbCluster, kGroupComponent, kStage, kClass))                         \
  X(kStageDurationSeconds, "podwait_stage_duration_seconds", "histogram",                          \
    "Completed stages (time to schedule, time in init, time to start), by the class the pod "      \
    "had when it left the stage.",                                                                 \
    "component,stage,class", (kStageComponent, kStage, kClass))                                    \
  X(kFailoverDuringDependencyWait, "podwait_failover_during_dependency_wait", "gauge",             \
    "Failover members or stores that tidb-operator recorded while that pod was waiting on a "      \
    "dependency.",                                                                                 \
    "namespace,tidb_cluster,component",                                                            \
    (kFailoverNamespace, kFailoverTidbCluster, kFailoverComponent))                                \
  X(kAutoscalerDetected, "podwait_autoscaler_detected", "gauge",                                   \
    "1 when the autoscaler of that kind is detected (or set by flag).", "kind", (kAutoscalerKind)) \
  X(kAutoscalerHealthy, "podwait_autoscaler_healthy", "gauge",                                     \
    "For a detected autoscaler: 1 when healthy, 0 when its status stopped updating or a pod "      \
    "waits with reason autoscaler_silent.",                                                        \
    "kind", (kAutoscalerKind))                                                                     \
  /* Dependencies and PD (DependencyCollector) */                                                  \
  X(kDependencyReady, "podwait_dependency_ready", "gauge",                                         \
    "Whether a TiDB cluster's dependency is ready (1) or not (0); absent while unknown.",          \
    "namespace,tidb_cluster,dependency", (kClusterNamespace, kClusterTidbCluster, kDependency))    \
  X(kDependencyReadySince, "podwait_dependency_ready_since_timestamp_seconds", "gauge",            \
    "When the dependency last became ready (Unix seconds); only while ready.",                     \
    "namespace,tidb_cluster,dependency", (kClusterNamespace, kClusterTidbCluster, kDependency))    \
  X(kPdProbeSuccess, "podwait_pd_probe_success", "gauge",                                          \
    "Whether the last PD API probe of the cluster answered and parsed.", "namespace,tidb_cluster", \
    (kClusterNamespace, kClusterTidbCluster))                                                      \
  X(kPdMembers, "podwait_pd_members", "gauge", "PD members by health.",                            \
    "namespace,tidb_cluster,health", (kClusterNamespace, kClusterTidbCluster, kPdHealth))          \
  X(kPdLeader, "podwait_pd_leader", "gauge", "1 when PD has a leader.", "namespace,tidb_cluster",  \
    (kClusterNamespace, kClusterTidbCluster))                                                      \
  X(kClusterInitialized, "podwait_cluster_initialized", "gauge",                                   \
    "PD's cluster/status is_initialized (absent when PD does not say).", "namespace,tidb_cluster", \
    (kClusterNamespace, kClusterTidbCluster))                                                      \
  X(kTikvStores, "podwait_tikv_stores", "gauge", "TiKV stores by state (TiFlash excluded).",       \
    "namespace,tidb_cluster,state", (kClusterNamespace, kClusterTidbCluster, kStoreState))         \
  X(kFailoverMembers, "podwait_failover_members", "gauge",                                         \
    "Failover members/stores tidb-operator recorded in the TidbCluster status.",                   \
    "namespace,tidb_cluster,component",                                                            \
    (kClusterNamespace, kClusterTidbCluster, kFailoverComponent))                                  \
  X(kClusterHold, "podwait_cluster_hold", "gauge",                                                 \
    "1 while tidb-operator v2 holds the cluster on purpose: paused, suspending, suspended, or a "  \
    "PD mode switch.",                                                                             \
    "namespace,tidb_cluster,hold", (kClusterNamespace, kClusterTidbCluster, kHold))                \
  /* Self-monitoring (SelfMetrics) */                                                              \
  X(kWatchEvents, "podwait_watch_events_total", "counter",                                         \
    "Watch events received, by resource and event type.", "resource,type",                         \
    (kResource, kWatchEventType))                                                                  \
  X(kWatchRestarts, "podwait_watch_restarts_total", "counter",                                     \
    "Watch streams restarted, by resource and reason.", "resource,reason",                         \
    (kResource, kRestartReason))                                                                   \
  X(kWatchRelists, "podwait_watch_relists_total", "counter",                                       \
    "Full lists done after the initial one (410 Gone, expired).", "resource", (kResource))         \
  X(kWatchSynced, "podwait_watch_synced", "gauge",                                                 \
    "1 when the resource's list is synced and its watch is running.", "resource", (kResource))     \
  X(kInputEnabled, "podwait_input_enabled", "gauge",                                               \
    "1 when the optional input is read; 0 when it is off by configuration, not served by the "     \
    "API server (its CRD is not installed) or forbidden.",                                         \
    "input", (kInput))                                                                             \
  X(kObjects, "podwait_objects", "gauge", "Objects currently held, by resource.", "resource",      \
    (kResource))                                                                                   \
  X(kParseErrors, "podwait_parse_errors_total", "counter",                                         \
    "Malformed documents or lines counted and skipped, by resource.", "resource", (kResource))     \
  X(kWatchLastEventTimestamp, "podwait_watch_last_event_timestamp_seconds", "gauge",               \
    "When the resource's watch last delivered an event or bookmark.", "resource", (kResource))     \
  X(kProbeDuration, "podwait_probe_duration_seconds", "histogram",                                 \
    "Duration of PD API requests, by endpoint.", "endpoint", (kPdEndpoint))                        \
  X(kProbeErrors, "podwait_probe_errors_total", "counter",                                         \
    "Failed PD API requests, by endpoint and kind of failure.", "endpoint,kind",                   \
    (kPdEndpoint, kPdErrorKind))                                                                   \
  X(kProbeRoundSeconds, "podwait_probe_round_seconds", "gauge",                                    \
    "Duration of the last round of PD probes over all clusters.", "", ())                          \
  X(kScrapeDuration, "podwait_scrape_duration_seconds", "histogram", "Time to render /metrics.",   \
    "", ())                                                                                        \
  X(kWebConfigLastReloadSuccessful, "podwait_web_config_last_reload_successful", "gauge",          \
    "Whether the last reload of --web.config.file succeeded (0: serving with the last good one).", \
    "", ())                                                                                        \
  X(kWebConfigLastReloadSuccessTimestamp,                                                          \
    "podwait_web_config_last_reload_success_timestamp_seconds", "gauge",                           \
    "When the web config in use was loaded (Unix seconds).", "", ())                               \
  X(kEventsWritten, "podwait_events_written_total", "counter",                                     \
    "Events written on pods (--events.write), by result: created, series_updated, failed.",        \
    "result", (kEventResult))                                                                      \
  X(kEventsDropped, "podwait_events_dropped_total", "counter",                                     \
    "Events not written (--events.write), by reason: pod_rate_limited, queue_full.", "reason",     \
    (kEventDropReason))                                                                            \
  X(kInvalidUtf8, "podwait_invalid_utf8_total", "counter",                                         \
    "Strings written with invalid UTF-8, each ill-formed sequence replaced by U+FFFD (output: "    \
    "metrics label values, json strings).",                                                        \
    "output", (kUtf8Output))                                                                       \
  X(kBuildInfo, "podwait_build_info", "gauge",                                                     \
    "A metric with a constant '1' value labeled by version and revision of podwait.",              \
    "version,revision", (kBuildVersion, kBuildRevision))                                           \
  /* The process (ProcessCollector), as every Prometheus client library names them */              \
  X(kProcessCpuSeconds, "process_cpu_seconds_total", "counter",                                    \
    "Total user and system CPU time spent in seconds.", "", ())                                    \
  X(kProcessResidentMemory, "process_resident_memory_bytes", "gauge",                              \
    "Resident memory size in bytes.", "", ())                                                      \
  X(kProcessVirtualMemory, "process_virtual_memory_bytes", "gauge",                                \
    "Virtual memory size in bytes.", "", ())                                                       \
  X(kProcessStartTime, "process_start_time_seconds", "gauge",                                      \
    "Start time of the process since unix epoch in seconds.", "", ())                              \
  X(kProcessOpenFds, "process_open_fds", "gauge", "Number of open file descriptors.", "", ())      \
  X(kProcessMaxFds, "process_max_fds", "gauge", "Maximum number of open file descriptors.", "", ())

namespace metric {
#define PODWAIT_UNPAREN(...) __VA_ARGS__
#define PODWAIT_METRIC_CONSTANT(constant, name, type, help, labels, sources)                    \
  inline constexpr auto constant##Sources = [] {                                                \
    using namespace ::podwait::label;                                                           \
    return LabelSources(PODWAIT_UNPAREN sources);                                               \
  }();                                                                                          \
  static_assert(constant##Sources.size() == LabelCount(labels), "one source per label: " name); \
  inline constexpr MetricInfo constant{name, type, help, labels, constant##Sources};
PODWAIT_METRICS(PODWAIT_METRIC_CONSTANT)
#undef PODWAIT_METRIC_CONSTANT
#undef PODWAIT_UNPAREN
}  // namespace metric

#define PODWAIT_METRIC_ROW(constant, name, type, help, labels, sources) metric::constant,
inline constexpr MetricInfo kMetricFamilies[] = {PODWAIT_METRICS(PODWAIT_METRIC_ROW)};
#undef PODWAIT_METRIC_ROW

// The labels of a family, split.
std::vector<std::string_view> LabelsOf(const MetricInfo& metric);

// The same at compile time, for the writers: a sample of family M takes exactly
// LabelCount(M.labels) values, in the order of kLabelNames<M> (TextWriter::Sample, PromLabels).
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
