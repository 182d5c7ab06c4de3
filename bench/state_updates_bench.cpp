// The state at docs/DESIGN.md §8 scale: 100,000 pods in 1,000 TiDB clusters, 90% Ready and 10%
// waiting (the simulator's fleet: every tenth cluster waits on PD).
//
// BM_ApplyUpdates: 10,000 pod updates applied to the PodStore (readiness flips, as the
//   simulator's churn writes them), then one evaluation (store snapshot + WaitingTracker with the
//   real classifier), i.e. what the exporter does for 10,000 watch events and its next
//   once-a-second evaluation.
// BM_StoreBytesPerPod: heap bytes per pod held by the store after a list of real-sized pod
//   documents through PodSource (malloc's own count, so it includes allocator overhead).
// Documents: simulator pod shorthand + managedFields (bench_support.h).

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "bench/bench_support.h"
#include "exporter/classify/classifier.h"
#include "exporter/evaluate/waiting_tracker.h"
#include "exporter/sources/pods.h"

namespace podwait::bench {
namespace {

constexpr int kClusters = 1000;
constexpr int kPodsPerCluster = 100;
constexpr int kUpdates = 10'000;

const char* const kReady =
    R"({"namespace":"ns","name":"tc-tikv-0","waitForPd":true,"created":"-30m"})";
const char* const kInit =
    R"({"namespace":"ns","name":"tc-tikv-0","waitForPd":true,"stage":"init","created":"-30m"})";
const char* const kRunning =
    R"({"namespace":"ns","name":"tc-tikv-0","waitForPd":true,"stage":"running","created":"-30m"})";

std::string Printf(const char* format, int value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// Parses the template with this pod's identity written into the document first, so every record
// owns its own strings exactly as when parsed from the API server.
PodPtr Parse(rapidjson::Document& doc, int cluster, int index, int rv) {
  auto& a = doc.GetAllocator();
  char ns[32], name[48], tc[32], uid[48];
  std::snprintf(ns, sizeof ns, "load-%04d", cluster);
  std::snprintf(tc, sizeof tc, "tc-%04d", cluster);
  std::snprintf(name, sizeof name, "tc-%04d-tikv-%d", cluster, index);
  std::snprintf(uid, sizeof uid, "6c5a536b-8e8f-48fc-%04d-%012d", cluster, index);
  rapidjson::Value& meta = doc["metadata"];
  meta["namespace"].SetString(ns, a);
  meta["name"].SetString(name, a);
  meta["uid"].SetString(uid, a);
  meta["resourceVersion"].SetString(std::to_string(rv).c_str(), a);
  meta["labels"]["app.kubernetes.io/instance"].SetString(tc, a);
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  if (!r.ok()) throw std::runtime_error(r.error);
  return std::make_shared<const PodRecord>(std::move(*r));
}

rapidjson::Document Template(const char* shorthand) {
  rapidjson::Document doc = ShorthandPod(shorthand, "u", "1");
  WithManagedFields(&doc);
  return doc;
}

struct Fleet {
  std::vector<PodPtr> pods;            // the initial state
  std::vector<PodPtr> flip_a, flip_b;  // kUpdates pods: not Ready, then Ready again
  std::map<ClusterKey, ClusterDependencies> deps;
};

const Fleet& TheFleet() {
  static const Fleet* fleet = [] {
    auto* f = new Fleet();
    rapidjson::Document ready = Template(kReady), init = Template(kInit),
                        running = Template(kRunning);
    int rv = 1;
    for (int c = 0; c < kClusters; ++c) {
      const bool pd_down = c % 10 == 0;
      for (int i = 0; i < kPodsPerCluster; ++i) {
        f->pods.push_back(Parse(pd_down ? init : ready, c, i, rv++));
      }
      ClusterDependencies& d = f->deps[ClusterKey{Printf("load-%04d", c), Printf("tc-%04d", c)}];
      d.pd.readiness = pd_down ? Readiness::kNotReady : Readiness::kReady;
      d.tikv.readiness = pd_down ? Readiness::kNotReady : Readiness::kReady;
      d.pd.ready_since = d.tikv.ready_since = pd_down ? 0 : kNow - 3600'000;
      if (pd_down) d.pd.reason = d.tikv.reason = DependencyReason::kNoPdLeader;
    }
    // The churn: healthy pods spread over the clusters lose readiness, then get it back.
    for (int u = 0; u < kUpdates; ++u) {
      const int c = 1 + (u % (kClusters - 1));
      if (c % 10 == 0) continue;
      const int i = (u / kClusters) % kPodsPerCluster;
      f->flip_a.push_back(Parse(running, c, i, rv++));
      f->flip_b.push_back(Parse(ready, c, i, rv++));
    }
    return f;
  }();
  return *fleet;
}

void BM_ApplyUpdates(benchmark::State& state) {
  const Fleet& fleet = TheFleet();
  PodStore store;
  store.Replace(fleet.pods);
  const ClassifierOptions options;
  WaitingTracker tracker(options);
  EvaluationInput in;
  in.dependencies = &fleet.deps;
  in.now = kNow;
  std::vector<PodPtr> snap = store.Snapshot();
  in.pods = snap;
  tracker.Evaluate(in);  // first sight of every pod

  using Clock = std::chrono::steady_clock;
  Clock::duration upsert_time{}, eval_time{};
  bool flip = false;
  size_t waiting = 0;
  for (auto _ : state) {
    const auto& batch = (flip = !flip) ? fleet.flip_a : fleet.flip_b;
    auto t0 = Clock::now();
    for (const PodPtr& p : batch) store.Upsert(p);
    auto t1 = Clock::now();
    snap = store.Snapshot();
    in.pods = snap;
    in.now += 1000;
    tracker.Evaluate(in);
    auto t2 = Clock::now();
    upsert_time += t1 - t0;
    eval_time += t2 - t1;
    waiting = std::max(waiting, tracker.Snapshot()->pods.size());
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["updates"] = static_cast<double>(fleet.flip_a.size());
  state.counters["upserts_ms"] = std::chrono::duration<double, std::milli>(upsert_time).count() / n;
  state.counters["evaluate_ms"] = std::chrono::duration<double, std::milli>(eval_time).count() / n;
  state.counters["pods"] = static_cast<double>(store.Size());
  state.counters["waiting_max"] = static_cast<double>(waiting);
}
BENCHMARK(BM_ApplyUpdates)->Unit(benchmark::kMillisecond);

size_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Arg: percentage of waiting (not Ready, kept whole) pods.
void BM_StoreBytesPerPod(benchmark::State& state) {
  const int waiting_percent = static_cast<int>(state.range(0));
  const int n = 20'000;
  rapidjson::Document ready = Template(kReady), init = Template(kInit);
  double per_pod = 0;
  for (auto _ : state) {
    const size_t before = HeapInUse();
    {
      PodStore store;
      PodSource source(store, PodParseOptions{});
      source.OnListBegin();
      for (int i = 0; i < n; ++i) {
        rapidjson::Document& doc = (i % 100) < waiting_percent ? init : ready;
        auto& a = doc.GetAllocator();
        rapidjson::Value& meta = doc["metadata"];
        const std::string name =
            "tc-" + std::to_string(i / 100) + "-tikv-" + std::to_string(i % 100);
        meta["name"].SetString(name.c_str(), a);
        meta["namespace"].SetString(("load-" + std::to_string(i / 100)).c_str(), a);
        meta["uid"].SetString(
            ("6c5a536b-8e8f-48fc-bd56-" + std::to_string(100'000'000'000 + i)).c_str(), a);
        source.OnListItem(doc);
      }
      source.OnListEnd("1");
      per_pod = static_cast<double>(HeapInUse() - before) / n;
      benchmark::DoNotOptimize(store.Size());
    }
  }
  state.counters["heap_bytes_per_pod"] = per_pod;
  state.counters["heap_MiB_per_100k_pods"] = per_pod * 100'000 / (1 << 20);
}
BENCHMARK(BM_StoreBytesPerPod)
    ->Arg(0)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace podwait::bench

BENCHMARK_MAIN();
