// The pod list path: one list page of 500 pods, from its bytes to the staged pod records (the
// reflector's in-situ parse of the page without PodSkippedFields(), then PodSource::OnListItem:
// ParsePod of every item), next to RapidJSON's bare in-situ parse of the same bytes, in one run
// (as BM_EventVsBareParse in sources_pod_event_bench.cpp does for watch events).
//
// The page is what podwait-sim's load generation serves (tests/sim/generate.cpp): the first 500
// pods of `--generate-clusters 5 --pods-per-cluster 100`, real-shaped tidb-operator pods with
// managedFields, containers, probes, volumes, tolerations and affinity; argument 0 = the v1
// shape, 1 = the v2 shape (--generate-shape). The page also goes through the parse without the
// skip (every subtree built, the list path before json::SkipPaths) for comparison.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "bench/bench_support.h"
#include "exporter/common/json.h"
#include "exporter/sources/pods.h"
#include "tests/sim/simulator.h"

namespace podwait::bench {
namespace {

// The PodList page as the simulator serves it.
std::string MakePage(bool v2) {
  sim::Simulator simulator(sim::SimOptions{}, SystemClock::Instance());
  std::string error;
  if (!simulator.Generate(5, 100, &error,
                          v2 ? sim::Simulator::Shape::kV2 : sim::Simulator::Shape::kV1)) {
    throw std::runtime_error(error);
  }
  std::string page =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100000","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAwMDAwLCJzdGFydCI6ImxvYWQtMDAwNS90Yy0wMDA1LXBkLTBcdTAwMDAifQ","remainingItemCount":99500},"items":[)";
  bool first = true;
  for (const auto& o : simulator.store().Snapshot(sim::Resource::kPods)) {
    if (!first) page += ",";
    first = false;
    o->AppendListItem(&page);
  }
  page += "]}";
  return page;
}

struct Page {
  std::string text;
  size_t pods = 0;
};

const Page& GetPage(bool v2) {
  static Page pages[2];
  Page& p = pages[v2 ? 1 : 0];
  if (p.text.empty()) {
    p.text = MakePage(v2);
    auto doc = json::Parse(p.text);
    if (!doc.ok()) throw std::runtime_error(doc.error);
    p.pods = (*doc.value)["items"].Size();
  }
  return p;
}

// What the reflector does with a page (Reflector::List): parse in place, hand every item to the
// source. Returns the items handed over.
size_t ListPath(char* buffer, const json::SkipPaths& skip, PodSource* source) {
  rapidjson::Document doc;
  if (!json::ParseInsitu(buffer, &doc, skip).empty()) return 0;
  size_t n = 0;
  source->OnListBegin();
  for (const auto& item : doc["items"].GetArray()) n += source->OnListItem(item);
  source->OnListAbort();  // drops the staged records (a store replace is not the list parse)
  return n;
}

// Batches of the three alternate, each timed on its own; the in-situ buffers are refilled
// outside the timed parts.
void BM_ListPageVsBareParse(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  const bool v2 = state.range(0) != 0;
  const Page& page = GetPage(v2);
  const json::SkipPaths skip(PodSkippedFields(), "items.[]");
  const json::SkipPaths none;
  PodStore store;
  PodSource source(store, PodParseOptions{});
  std::string buffer = page.text;
  Clock::duration bare_time{}, list_time{}, full_time{}, parse_time{};
  int64_t rounds = 0;
  for (auto _ : state) {
    std::memcpy(buffer.data(), page.text.data(), page.text.size());
    auto t0 = Clock::now();
    {
      rapidjson::Document bare;
      bare.ParseInsitu(buffer.data());
      benchmark::DoNotOptimize(bare.IsObject());
    }
    auto t1 = Clock::now();
    std::memcpy(buffer.data(), page.text.data(), page.text.size());
    auto t2 = Clock::now();
    if (ListPath(buffer.data(), skip, &source) != page.pods) state.SkipWithError("list path");
    auto t3 = Clock::now();
    std::memcpy(buffer.data(), page.text.data(), page.text.size());
    auto t4 = Clock::now();
    if (ListPath(buffer.data(), none, &source) != page.pods) state.SkipWithError("full parse");
    auto t5 = Clock::now();
    // The parse alone (no ParsePod), with the skip.
    std::memcpy(buffer.data(), page.text.data(), page.text.size());
    auto t6 = Clock::now();
    {
      rapidjson::Document doc;
      if (!json::ParseInsitu(buffer.data(), &doc, skip).empty()) state.SkipWithError("parse");
    }
    auto t7 = Clock::now();
    bare_time += t1 - t0;
    list_time += t3 - t2;
    full_time += t5 - t4;
    parse_time += t7 - t6;
    ++rounds;
  }
  const double n = static_cast<double>(rounds);
  const double mb = static_cast<double>(page.text.size()) * n / 1e6;
  const double bare_s = std::chrono::duration<double>(bare_time).count();
  const double list_s = std::chrono::duration<double>(list_time).count();
  const double full_s = std::chrono::duration<double>(full_time).count();
  const double parse_s = std::chrono::duration<double>(parse_time).count();
  state.counters["bare_MBps"] = mb / bare_s;
  state.counters["list_MBps"] = mb / list_s;         // with the skip (the reflector now)
  state.counters["noskip_list_MBps"] = mb / full_s;  // every subtree built (before)
  state.counters["ratio"] = bare_s / list_s;         // list path rate / bare parse rate
  state.counters["noskip_ratio"] = bare_s / full_s;
  state.counters["skip_parse_MBps"] = mb / parse_s;  // the parse alone, with the skip
  state.counters["page_ms"] = list_s * 1e3 / n;
  state.counters["page_bytes"] = static_cast<double>(page.text.size());
  state.counters["pod_bytes"] = static_cast<double>(page.text.size()) / page.pods;
  state.SetLabel(v2 ? "v2" : "v1");
}

BENCHMARK(BM_ListPageVsBareParse)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace podwait::bench

BENCHMARK_MAIN();
