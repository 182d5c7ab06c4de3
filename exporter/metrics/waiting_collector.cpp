#include "exporter/metrics/waiting_collector.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "exporter/metrics/family_builder.h"

namespace podwait {
namespace {

using Label = prometheus::ClientMetric::Label;

struct GroupKey {
  const std::string* ns;
  const std::string* tidb_cluster;
  const std::string* component;
  Stage stage;
  WaitClass wait_class;
  bool operator<(const GroupKey& o) const {
    return std::tie(*ns, *tidb_cluster, *component, stage, wait_class) <
           std::tie(*o.ns, *o.tidb_cluster, *o.component, o.stage, o.wait_class);
  }
};

struct Group {
  int count = 0;
  double oldest = 0;
};

}  // namespace

WaitingCollector::WaitingCollector(SnapshotFn snapshot, const Clock& clock, bool pod_series)
    : snapshot_(std::move(snapshot)), clock_(clock), pod_series_(pod_series) {}

std::vector<prometheus::MetricFamily> WaitingCollector::Collect() const {
  std::shared_ptr<const WaitingSnapshot> snap = snapshot_();
  const Timestamp now = clock_.Now();
  std::vector<prometheus::MetricFamily> out;

  FamilyBuilder per_pod("podwait_pod_waiting_seconds",
                        "Seconds since the waiting pod's current stage began, with why it waits.",
                        prometheus::MetricType::Gauge);
  std::map<GroupKey, Group> groups;
  if (pod_series_) per_pod.Reserve(snap->pods.size());
  for (const WaitingPod& p : snap->pods) {
    const Classification& c = p.classification;
    const double seconds =
        static_cast<double>(std::max<Timestamp>(0, now - c.stage_start)) / 1000.0;
    if (pod_series_) {
      per_pod.Add(std::vector<Label>{{"namespace", p.namespace_},
                                     {"tidb_cluster", p.tidb_cluster},
                                     {"component", p.component},
                                     {"pod", p.pod},
                                     {"stage", std::string(StageName(c.stage))},
                                     {"class", std::string(WaitClassName(c.wait_class))},
                                     {"reason", c.reason}},
                  seconds);
    }
    Group& g = groups[{&p.namespace_, &p.tidb_cluster, &p.component, c.stage, c.wait_class}];
    ++g.count;
    g.oldest = std::max(g.oldest, seconds);
  }
  if (pod_series_) per_pod.MoveTo(&out);

  FamilyBuilder count("podwait_waiting_pods", "Number of waiting pods.",
                      prometheus::MetricType::Gauge);
  FamilyBuilder oldest("podwait_waiting_oldest_seconds", "The longest current wait in the group.",
                       prometheus::MetricType::Gauge);
  for (const auto& [k, g] : groups) {
    std::vector<Label> labels{{"namespace", *k.ns},
                              {"tidb_cluster", *k.tidb_cluster},
                              {"component", *k.component},
                              {"stage", std::string(StageName(k.stage))},
                              {"class", std::string(WaitClassName(k.wait_class))}};
    count.Add(labels, g.count);
    oldest.Add(std::move(labels), g.oldest);
  }
  count.MoveTo(&out);
  oldest.MoveTo(&out);

  FamilyBuilder durations("podwait_stage_duration_seconds",
                          "Completed stages (time to schedule, time in init, time to start), by "
                          "the class the pod had when it left the stage.",
                          prometheus::MetricType::Histogram);
  const std::vector<double> bounds(kStageBuckets.begin(), kStageBuckets.end());
  for (const auto& [k, h] : snap->stage_durations) {
    std::vector<uint64_t> cumulative(h.buckets.size());
    uint64_t running = 0;
    for (size_t i = 0; i < h.buckets.size(); ++i) cumulative[i] = running += h.buckets[i];
    durations.AddHistogram({{"component", k.component},
                            {"stage", std::string(StageName(k.stage))},
                            {"class", std::string(WaitClassName(k.wait_class))}},
                           bounds, cumulative, h.count, h.sum);
  }
  durations.MoveTo(&out);

  FamilyBuilder failover("podwait_failover_during_dependency_wait",
                         "Failover members or stores that tidb-operator recorded while that pod "
                         "was waiting on a dependency.",
                         prometheus::MetricType::Gauge);
  for (const auto& [k, fc] : snap->failover) {
    const auto& [ns, cluster, component] = k;
    failover.Add({{"namespace", ns},
                  {"tidb_cluster", TidbClusterLabel(ns, cluster)},
                  {"component", component}},
                 static_cast<double>(fc.during_dependency_wait));
  }
  failover.MoveTo(&out);

  FamilyBuilder detected("podwait_autoscaler_detected",
                         "1 when the autoscaler of that kind is detected (or set by flag).",
                         prometheus::MetricType::Gauge);
  const AutoscalerState& a = snap->autoscaler;
  detected.Add({{"kind", "cluster-autoscaler"}}, !a.forced_none && a.cluster_autoscaler ? 1 : 0);
  detected.Add({{"kind", "karpenter"}}, !a.forced_none && a.karpenter ? 1 : 0);
  detected.MoveTo(&out);
  return out;
}

}  // namespace podwait
