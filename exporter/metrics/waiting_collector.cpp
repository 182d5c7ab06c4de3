#include "exporter/metrics/waiting_collector.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "exporter/metrics/text_writer.h"

namespace podwait {
namespace {

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

void WaitingCollector::AppendText(std::string* out) const {
  std::shared_ptr<const WaitingSnapshot> snap = snapshot_();
  const Timestamp now = clock_.Now();
  TextWriter w(out);
  if (pod_series_) out->reserve(out->size() + snap->pods.size() * 200 + 4096);

  if (pod_series_) {
    w.Family(metric::kPodWaitingSeconds);
  }
  std::map<GroupKey, Group> groups;
  for (const WaitingPod& p : snap->pods) {
    const Classification& c = p.classification;
    const double seconds =
        static_cast<double>(std::max<Timestamp>(0, now - c.stage_start)) / 1000.0;
    if (pod_series_) {
      w.Sample(metric::kPodWaitingSeconds.name,
               {{"namespace", p.namespace_},
                {"tidb_cluster", p.tidb_cluster},
                {"component", p.component},
                {"pod", p.pod},
                {"stage", StageName(c.stage)},
                {"class", WaitClassName(c.wait_class)},
                {"reason", c.reason}},
               seconds);
    }
    Group& g = groups[{&p.namespace_, &p.tidb_cluster, &p.component, c.stage, c.wait_class}];
    ++g.count;
    g.oldest = std::max(g.oldest, seconds);
  }

  w.Family(metric::kWaitingPods);
  for (const auto& [k, g] : groups) {
    w.Sample(metric::kWaitingPods.name,
             {{"namespace", *k.ns},
              {"tidb_cluster", *k.tidb_cluster},
              {"component", *k.component},
              {"stage", StageName(k.stage)},
              {"class", WaitClassName(k.wait_class)}},
             g.count);
  }
  w.Family(metric::kWaitingOldestSeconds);
  for (const auto& [k, g] : groups) {
    w.Sample(metric::kWaitingOldestSeconds.name,
             {{"namespace", *k.ns},
              {"tidb_cluster", *k.tidb_cluster},
              {"component", *k.component},
              {"stage", StageName(k.stage)},
              {"class", WaitClassName(k.wait_class)}},
             g.oldest);
  }

  w.Family(metric::kStageDurationSeconds);
  const std::string base(metric::kStageDurationSeconds.name);
  const std::string bucket = base + "_bucket", sum = base + "_sum", count = base + "_count";
  std::array<std::string, kStageBuckets.size()> bucket_labels;
  for (size_t i = 0; i < kStageBuckets.size(); ++i) {
    TextWriter::AppendValue(&bucket_labels[i], kStageBuckets[i]);
  }
  for (const auto& [k, h] : snap->stage_durations) {
    const std::string_view stage = StageName(k.stage);
    const std::string_view wait_class = WaitClassName(k.wait_class);
    uint64_t running = 0;
    for (size_t i = 0; i < h.buckets.size(); ++i) {
      running += h.buckets[i];
      w.Sample(bucket, {{"component", k.component}, {"stage", stage}, {"class", wait_class}},
               {"le", bucket_labels[i]}, static_cast<double>(running));
    }
    w.Sample(bucket, {{"component", k.component}, {"stage", stage}, {"class", wait_class}},
             {"le", "+Inf"}, static_cast<double>(h.count));
    w.Sample(sum, {{"component", k.component}, {"stage", stage}, {"class", wait_class}}, h.sum);
    w.Sample(count, {{"component", k.component}, {"stage", stage}, {"class", wait_class}},
             static_cast<double>(h.count));
  }

  w.Family(metric::kFailoverDuringDependencyWait);
  for (const auto& [k, fc] : snap->failover) {
    const auto& [ns, cluster, component] = k;
    const std::string tidb_cluster = TidbClusterLabel(ns, cluster);
    w.Sample(metric::kFailoverDuringDependencyWait.name,
             {{"namespace", ns}, {"tidb_cluster", tidb_cluster}, {"component", component}},
             static_cast<double>(fc.during_dependency_wait));
  }

  w.Family(metric::kAutoscalerDetected);
  const AutoscalerState& a = snap->autoscaler;
  w.Sample(metric::kAutoscalerDetected.name, {{"kind", "cluster-autoscaler"}},
           !a.forced_none && a.cluster_autoscaler ? 1 : 0);
  w.Sample(metric::kAutoscalerDetected.name, {{"kind", "karpenter"}},
           !a.forced_none && a.karpenter ? 1 : 0);
}

}  // namespace podwait
