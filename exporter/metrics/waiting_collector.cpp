#include "exporter/metrics/waiting_collector.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

#include "exporter/metrics/text_writer.h"
#include "exporter/model/autoscalers.h"

namespace podwait {
namespace {

// One (namespace, tidb_cluster, component, stage, class) group of waiting pods. The snapshot's
// pods are sorted by namespace and cluster, so the groups of one cluster are found among its own
// run of pods (a handful) and come out in the order a map of every group would give, without
// comparing strings for every pod.
struct Group {
  const WaitingPod* first;  // its namespace, tidb_cluster and component
  Stage stage;
  WaitClass wait_class;
  int count = 0;
  double oldest = 0;
  auto Key() const { return std::tie(first->component, stage, wait_class); }
};

// podwait_stage_duration_seconds: the histogram of every completed stage.
void AppendStageDurations(const WaitingSnapshot& snap, TextWriter& w) {
  constexpr const MetricInfo& kM = metric::kStageDurationSeconds;
  w.Family(kM);
  std::array<std::string, kStageBuckets.size()> bucket_labels;
  for (size_t i = 0; i < kStageBuckets.size(); ++i) {
    TextWriter::AppendValue(&bucket_labels[i], kStageBuckets[i]);
  }
  for (const auto& [k, h] : snap.stage_durations) {
    const std::string_view stage = StageName(k.stage);
    const std::string_view wait_class = WaitClassName(k.wait_class);
    const std::string_view labels[] = {k.component, stage, wait_class};
    uint64_t running = 0;
    for (size_t i = 0; i < h.buckets.size(); ++i) {
      running += h.buckets[i];
      w.Bucket<kM>(labels, bucket_labels[i], static_cast<double>(running));
    }
    w.Bucket<kM>(labels, "+Inf", static_cast<double>(h.count));
    w.Sum<kM>(labels, h.sum);
    w.Count<kM>(labels, static_cast<double>(h.count));
  }
}

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
  std::vector<Group> groups;
  size_t run_start = 0;  // this cluster's first group in `groups`
  const WaitingPod* run = nullptr;
  auto end_run = [&] {
    std::sort(groups.begin() + static_cast<std::ptrdiff_t>(run_start), groups.end(),
              [](const Group& a, const Group& b) { return a.Key() < b.Key(); });
    run_start = groups.size();
  };
  // The snapshot is sorted (WaitingTracker); a hand-made one may not be, and a cluster whose pods
  // are not together would be counted in two groups and written twice.
  std::vector<const WaitingPod*> order;
  order.reserve(snap->pods.size());
  for (const WaitingPod& p : snap->pods) order.push_back(&p);
  auto by_cluster = [](const WaitingPod* a, const WaitingPod* b) {
    return std::tie(a->namespace_, a->cluster) < std::tie(b->namespace_, b->cluster);
  };
  if (!std::is_sorted(order.begin(), order.end(), by_cluster)) {
    std::stable_sort(order.begin(), order.end(), by_cluster);
  }
  for (const WaitingPod* pod : order) {
    const WaitingPod& p = *pod;
    const Classification& c = p.classification;
    const double seconds =
        static_cast<double>(std::max<Timestamp>(0, now - c.stage_start)) / 1000.0;
    if (pod_series_) {
      w.Sample<metric::kPodWaitingSeconds>(
          {p.namespace_, p.tidb_cluster, p.component, p.pod, p.v2_instance, StageName(c.stage),
           WaitClassName(c.wait_class), c.reason},
          seconds);
    }
    if (run == nullptr || p.namespace_ != run->namespace_ || p.cluster != run->cluster) {
      end_run();
      run = &p;
    }
    Group* g = nullptr;
    for (size_t i = run_start; i < groups.size(); ++i) {
      Group& x = groups[i];
      if (x.stage == c.stage && x.wait_class == c.wait_class && x.first->component == p.component) {
        g = &x;
        break;
      }
    }
    if (g == nullptr) g = &groups.emplace_back(Group{&p, c.stage, c.wait_class});
    ++g->count;
    g->oldest = std::max(g->oldest, seconds);
  }
  end_run();

  auto group_family = [&]<const MetricInfo & M>(auto value) {
    w.Family(M);
    for (const Group& g : groups) {
      w.Sample<M>({g.first->namespace_, g.first->tidb_cluster, g.first->component,
                   StageName(g.stage), WaitClassName(g.wait_class)},
                  g.*value);
    }
  };
  group_family.operator()<metric::kWaitingPods>(&Group::count);
  group_family.operator()<metric::kWaitingOldestSeconds>(&Group::oldest);

  AppendStageDurations(*snap, w);

  w.Family(metric::kFailoverDuringDependencyWait);
  for (const auto& [k, fc] : snap->failover) {
    const auto& [ns, cluster, component] = k;
    const std::string tidb_cluster = TidbClusterLabel(ns, cluster);
    w.Sample<metric::kFailoverDuringDependencyWait>({ns, tidb_cluster, component},
                                                    static_cast<double>(fc.during_dependency_wait));
  }

  w.Family(metric::kAutoscalerDetected);
  const AutoscalerState& a = snap->autoscaler;
  for (const AutoscalerInfo& info : kAutoscalers) {
    w.Sample<metric::kAutoscalerDetected>({info.name}, a.Present(info.kind) ? 1 : 0);
  }
  // A silent pod has no verdict of any present autoscaler: it counts against each of them.
  bool silent = false;
  for (size_t i = 0; i < snap->pods.size() && !silent; ++i) {
    silent = snap->pods[i].classification.reason == reason::kAutoscalerSilent;
  }
  w.Family(metric::kAutoscalerHealthy);
  for (const AutoscalerInfo& info : kAutoscalers) {
    if (!a.Present(info.kind)) continue;
    w.Sample<metric::kAutoscalerHealthy>({info.name}, a.status_stale[info.kind] || silent ? 0 : 1);
  }
}

}  // namespace podwait
