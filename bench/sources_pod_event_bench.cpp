// A pod watch event, from the bytes of its line to the compact record in the pod store
// (ParseWatchEvent + PodSource::OnEvent: DOM parse, ParsePod, PodStore::Upsert), next to
// RapidJSON's bare parse of the same bytes (docs/DESIGN.md §8: event processing >= 50% of the bare
// parse rate). BM_EventVsBareParse measures both in one run, interleaved, and reports the ratio.
//
// Shapes (simulator pod shorthand, bench_support.h): a Ready TiKV pod (the common event: kept
// compact), a TiKV pod in Init on wait-for-pd and an unschedulable one (kept whole). Second
// argument: 0 = the shorthand document (~2.9 KB), 1 = with managedFields (~5 KB, a real event),
// 2 = the whole pod as the simulator's load generation serves it (shorthand "full": containers,
// probes, volumes, managedFields; ~7.5 KB), parsed as the reflector does (without
// PodSkippedFields()), 3 = the same pod with nothing skipped (as before the skip).

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "bench/bench_support.h"
#include "exporter/kube/watch_protocol.h"
#include "exporter/sources/pods.h"

namespace podwait::bench {
namespace {

constexpr const char* kShapes[] = {
    R"({"namespace":"load-0001","name":"tc-0001-tikv-3","waitForPd":true,"created":"-30m"})",
    R"({"namespace":"load-0000","name":"tc-0000-tikv-3","waitForPd":true,"stage":"init","created":"-30m"})",
    R"({"namespace":"load-0002","name":"tc-0002-tikv-3","waitForPd":true,"stage":"unschedulable",
        "since":"-20m","created":"-30m","message":"0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."})",
};
constexpr const char* kShapeNames[] = {"ready", "init", "unschedulable"};

// Two watch lines of the same pod with different resourceVersions, so every event is a change.
struct Lines {
  std::string a, b;
};

Lines MakeLines(int shape, int64_t variant) {
  Lines l;
  for (auto [out, rv] : {std::pair{&l.a, "1001"}, std::pair{&l.b, "1002"}}) {
    std::string shorthand = kShapes[shape];
    if (variant >= 2) shorthand.insert(1, R"("full":true,)");
    rapidjson::Document doc = ShorthandPod(shorthand, "7d3c-uid-" + std::to_string(shape), rv);
    if (variant == 1) WithManagedFields(&doc);
    *out = WatchLine("MODIFIED", doc);
  }
  return l;
}

// 100,000 pods in the store (as in docs/DESIGN.md §8), so upserts hit a table of realistic size.
PodStore& FullStore() {
  static PodStore* store = [] {
    auto* s = new PodStore();
    std::vector<PodPtr> pods;
    pods.reserve(100'000);
    for (int i = 0; i < 100'000; ++i) {
      auto p = std::make_shared<PodRecord>();
      p->uid = "00000000-0000-4000-8000-" + std::to_string(100'000'000'000 + i);
      p->namespace_ = "load-" + std::to_string(i / 100);
      p->name = "tc-" + std::to_string(i / 100) + "-tikv-" + std::to_string(i % 100);
      p->cluster = "tc-" + std::to_string(i / 100);
      p->component = "tikv";
      p->resource_version = std::to_string(i + 1);
      p->compact_ready = true;  // a Ready pod, as ParsePod keeps it
      p->compact_ready_since = kNow;
      pods.push_back(std::move(p));
    }
    s->Replace(std::move(pods));
    return s;
  }();
  return *store;
}

void SetLabel(benchmark::State& state) {
  static const char* const kVariants[] = {"", "+managedFields", " full pod, skipping", " full pod"};
  state.SetLabel(std::string(kShapeNames[state.range(0)]) + kVariants[state.range(1)]);
}

// What the reflector leaves out of a pod watch event (variant 2).
json::SkipPaths EventSkip(benchmark::State& state) {
  return state.range(1) == 2 ? json::SkipPaths(PodSkippedFields(), "object") : json::SkipPaths();
}

void BM_BareParse(benchmark::State& state) {
  const Lines l = MakeLines(static_cast<int>(state.range(0)), state.range(1));
  rapidjson::Document doc;
  bool flip = false;
  for (auto _ : state) {
    const std::string& line = (flip = !flip) ? l.a : l.b;
    doc.SetNull();
    doc.GetAllocator().Clear();
    doc.Parse(line.data(), line.size());
    benchmark::DoNotOptimize(doc.IsObject());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * l.a.size()));
  state.counters["event_bytes"] = static_cast<double>(l.a.size());
  SetLabel(state);
}

void BM_WatchEvent(benchmark::State& state) {
  const Lines l = MakeLines(static_cast<int>(state.range(0)), state.range(1));
  PodSource source(FullStore(), PodParseOptions{});
  const json::SkipPaths skip = EventSkip(state);
  rapidjson::Document doc;
  bool flip = false;
  for (auto _ : state) {
    const std::string& line = (flip = !flip) ? l.a : l.b;
    const Result<WatchEvent> ev = ParseWatchEvent(line, &doc, skip);
    if (!ev.ok() || !source.OnEvent(ev->type, *ev->object)) {
      state.SkipWithError(ev.ok() ? "OnEvent failed" : ev.error.c_str());
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * l.a.size()));
  state.counters["event_bytes"] = static_cast<double>(l.a.size());
  SetLabel(state);
}

// Both in one run: batches of bare parses and of full event processing alternate, each timed on
// its own, so frequency changes and noisy neighbours hit both sides alike.
void BM_EventVsBareParse(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  const Lines l = MakeLines(static_cast<int>(state.range(0)), state.range(1));
  PodSource source(FullStore(), PodParseOptions{});
  const json::SkipPaths skip = EventSkip(state);
  rapidjson::Document bare, doc;
  constexpr int kBatch = 64;
  Clock::duration bare_time{}, event_time{};
  int64_t batches = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (int i = 0; i < kBatch; ++i) {
      const std::string& line = (i & 1) ? l.a : l.b;
      bare.SetNull();
      bare.GetAllocator().Clear();
      bare.Parse(line.data(), line.size());
      benchmark::DoNotOptimize(bare.IsObject());
    }
    auto t1 = Clock::now();
    for (int i = 0; i < kBatch; ++i) {
      const std::string& line = (i & 1) ? l.a : l.b;
      const Result<WatchEvent> ev = ParseWatchEvent(line, &doc, skip);
      if (!ev.ok()) {
        state.SkipWithError(ev.error.c_str());
        return;
      }
      source.OnEvent(ev->type, *ev->object);
    }
    auto t2 = Clock::now();
    bare_time += t1 - t0;
    event_time += t2 - t1;
    ++batches;
  }
  const double n = static_cast<double>(batches * kBatch);
  const double bare_s = std::chrono::duration<double>(bare_time).count();
  const double event_s = std::chrono::duration<double>(event_time).count();
  const double mb = static_cast<double>(l.a.size()) * n / 1e6;
  state.counters["bare_MBps"] = mb / bare_s;
  state.counters["event_MBps"] = mb / event_s;
  state.counters["events_per_s"] = n / event_s;
  state.counters["ratio"] = bare_s / event_s;  // event rate / bare parse rate; bar: >= 0.5
  state.counters["event_bytes"] = static_cast<double>(l.a.size());
  SetLabel(state);
}

void Shapes(benchmark::internal::Benchmark* b) {
  for (int shape = 0; shape < 3; ++shape) {
    for (int variant : {1, 0, 2, 3}) b->Args({shape, variant});
  }
}

BENCHMARK(BM_BareParse)->Apply(Shapes);
BENCHMARK(BM_WatchEvent)->Apply(Shapes);
BENCHMARK(BM_EventVsBareParse)->Apply(Shapes);

}  // namespace
}  // namespace podwait::bench

BENCHMARK_MAIN();
