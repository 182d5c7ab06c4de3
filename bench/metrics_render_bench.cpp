// Rendering /metrics from a snapshot of N waiting pods (docs/DESIGN.md §8: 10,000 pods in < 50 ms),
// and one evaluation of the WaitingTracker over N pods with a trivial classifier (the tracker's own
// cost).

#include <benchmark/benchmark.h>

#include <cstdio>

#include "exporter/config/config.h"
#include "exporter/evaluate/waiting_tracker.h"
#include "exporter/metrics/dependency_collector.h"
#include "exporter/metrics/exposition.h"
#include "exporter/metrics/waiting_collector.h"
#include "exporter/state/dependency_store.h"

namespace podwait {
namespace {

constexpr Timestamp kNow = 1'700'000'000'000;
constexpr const char* kComponents[] = {"pd", "tikv", "tidb", "tiflash"};
constexpr WaitClass kClasses[] = {WaitClass::kDependency, WaitClass::kScaleUp, WaitClass::kCapacity,
                                  WaitClass::kStarting};

std::shared_ptr<WaitingSnapshot> MakeSnapshot(int pods) {
  auto s = std::make_shared<WaitingSnapshot>();
  for (int i = 0; i < pods; ++i) {
    WaitingPod p;
    const int cluster = i / 10;
    p.namespace_ = "ns-" + std::to_string(cluster % 100);
    p.cluster = "tc-" + std::to_string(cluster);
    p.tidb_cluster = p.namespace_ + "-" + p.cluster;
    p.component = kComponents[i % 4];
    p.pod = p.cluster + "-" + p.component + "-" + std::to_string(i % 10);
    p.classification = {true,           Stage::kInitializing,    kClasses[i % 4],
                        "pd_not_ready", kNow - (i % 600) * 1000, "PD has no leader"};
    s->pods.push_back(std::move(p));
  }
  for (const char* c : kComponents) {
    StageHistogram h;
    h.buckets[4] = 10;
    h.count = 10;
    h.sum = 400;
    s->stage_durations[{c, Stage::kInitializing, WaitClass::kDependency}] = h;
  }
  return s;
}

void BM_RenderMetrics(benchmark::State& state) {
  auto snap = MakeSnapshot(static_cast<int>(state.range(0)));
  FakeClock clock(kNow);
  WaitingCollector collector([snap] { return snap; }, clock, true);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text;
    collector.AppendText(&text);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes_per_pod"] =
      static_cast<double>(bytes) / static_cast<double>(state.range(0));
}
BENCHMARK(BM_RenderMetrics)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// The pod-count-dependent part of a whole scrape: the waiting families for N waiting pods in
// N/20 clusters (sorted, as the tracker publishes them) and the dependency families of 1,000
// clusters probed healthy (~14,000 series), into one buffer as the /metrics handler does.
void BM_RenderScrape(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto snap = std::make_shared<WaitingSnapshot>();
  for (int i = 0; i < n; ++i) {
    WaitingPod p;
    char ns[32], cluster[32];
    std::snprintf(ns, sizeof(ns), "load-%04d", i / 20);
    std::snprintf(cluster, sizeof(cluster), "tc-%04d", i / 20);
    p.namespace_ = ns;
    p.cluster = cluster;
    p.tidb_cluster = p.namespace_ + "-" + p.cluster;
    p.component = kComponents[(i % 20) / 5];
    p.pod = p.cluster + "-" + p.component + "-" + std::to_string(i % 20);
    p.classification = {true,           Stage::kInitializing,    kClasses[i % 4],
                        "pd_not_ready", kNow - (i % 600) * 1000, "PD has no leader"};
    snap->pods.push_back(std::move(p));
  }
  FakeClock clock(kNow);
  Config config;
  DependencyStore deps(config, clock);
  std::map<ClusterKey, ClusterInfo> clusters;
  for (int c = 0; c < 1000; ++c) {
    char ns[32], name[32];
    std::snprintf(ns, sizeof(ns), "load-%04d", c);
    std::snprintf(name, sizeof(name), "tc-%04d", c);
    ClusterInfo info;
    info.from_pods = true;
    info.ready_pd_pods = 3;
    clusters[ClusterKey{ns, name}] = info;
  }
  deps.SyncClusters(clusters);
  for (const auto& [key, info] : clusters) {
    PdFacts f;
    f.reachable = f.success = true;
    f.health_known = true;
    f.members_healthy = 3;
    f.leader_known = f.has_leader = true;
    f.cluster_status_known = true;
    f.is_initialized = true;
    f.stores_known = true;
    f.tikv_stores = {{"Up", 48}, {"Offline", 1}};
    deps.OnPdProbe(key, f);
  }
  WaitingCollector waiting([snap] { return snap; }, clock, true);
  DependencyCollector dependency(deps);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text;
    dependency.AppendText(&text);
    waiting.AppendText(&text);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderScrape)->Arg(10000)->Arg(20000)->Unit(benchmark::kMillisecond);

// n pods in clusters of 100, 90% Ready (compact, as ParsePod keeps them) and 10% waiting: the
// shape of a healthy fleet.
std::vector<std::shared_ptr<const PodRecord>> MakeFleet(int n) {
  std::vector<std::shared_ptr<const PodRecord>> pods;
  for (int i = 0; i < n; ++i) {
    auto p = std::make_shared<PodRecord>();
    p->uid = "uid-" + std::to_string(i);
    p->namespace_ = "ns-" + std::to_string(i / 100);
    p->name = "pod-" + std::to_string(i);
    p->cluster = "tc-" + std::to_string(i / 100);
    p->component = kComponents[i % 4];
    if (i % 10 != 0) {
      p->compact_ready = true;
      p->compact_ready_since = kNow;
    }
    pods.push_back(std::move(p));
  }
  return pods;
}

// A classifier doing no work of its own: the tracker's cost alone is measured.
Classification TrivialClassify(const PodRecord& pod, std::span<const EventRecord>,
                               const ClusterDependencies*, const AutoscalerState&, Timestamp now,
                               const InstanceReadiness*) {
  Classification c;
  c.waiting = !pod.IsReady();
  c.stage = Stage::kInitializing;
  c.wait_class = WaitClass::kDependency;
  c.reason = "pd_not_ready";
  c.stage_start = now - 1000;
  return c;
}

void BM_TrackerEvaluate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::vector<std::shared_ptr<const PodRecord>> pods = MakeFleet(n);
  WaitingTracker tracker(TrivialClassify);
  EvaluationInput in;
  in.pods = pods;
  for (auto _ : state) {
    in.now += 1000;
    tracker.Evaluate(in);
    benchmark::DoNotOptimize(tracker.Snapshot());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_TrackerEvaluate)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// One incremental evaluation of 100,000 pods (10% waiting) with the real classifier's shape of
// work replaced by a trivial one: range(0) pods changed since the last evaluation (0: the idle
// second of a fleet where nothing happens).
void BM_TrackerIncremental(benchmark::State& state) {
  const int n = 100'000;
  const int changed = static_cast<int>(state.range(0));
  const std::vector<std::shared_ptr<const PodRecord>> pods = MakeFleet(n);
  WaitingTracker tracker(TrivialClassify);
  EvaluationInput in;
  in.pods = pods;
  in.now = kNow;
  tracker.Evaluate(in);  // the first evaluation is a full one
  PodChangeSet changes;
  for (int i = 0; i < changed; ++i) changes.upserted.push_back(pods[(i * 7919) % n]);
  in.changes = &changes;
  for (auto _ : state) {
    in.now += 1000;
    tracker.Evaluate(in);
    benchmark::DoNotOptimize(tracker.Snapshot());
  }
  state.counters["classified"] = static_cast<double>(tracker.LastClassified());
}
BENCHMARK(BM_TrackerIncremental)->Arg(0)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace podwait

BENCHMARK_MAIN();
