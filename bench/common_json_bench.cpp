// What the nesting limit and the UTF-8 repair cost.
//
// JSON: one list page of 750 pods with managedFields (~2.4 MB, what the reflector parses in place
// per page) and one watch line (~5 KB), parsed by RapidJSON's recursive parser (what podwait used
// before), by its iterative parser, and by json::ParseInsitu / json::ParseInto (the recursive
// parser with the depth-counting handler in front of the document).
//
// UTF-8: IsValidUtf8 on a typical label value (ASCII), a non-ASCII one, and a whole /metrics body
// of 10,000 waiting pods, as TextWriter and RenderText now check every label value.

#include <benchmark/benchmark.h>

#include <cstring>

#include "bench/bench_support.h"
#include "exporter/common/json.h"
#include "exporter/common/utf8.h"

namespace podwait::bench {
namespace {

constexpr const char* kPod =
    R"({"namespace":"load-0002","name":"tc-0002-tikv-3","waitForPd":true,"stage":"unschedulable",
        "since":"-20m","created":"-30m","message":"0/3 nodes are available: 3 Insufficient memory."})";

rapidjson::Document ManagedPod(int i) {
  rapidjson::Document doc = ShorthandPod(kPod, "7d3c-uid-" + std::to_string(i), "1001");
  WithManagedFields(&doc);
  return doc;
}

const std::string& ListPage() {
  static const std::string page = [] {
    std::string s = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9",)"
                    R"("continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},"items":[)";
    for (int i = 0; i < 750; ++i) {
      if (i > 0) s += ",";
      s += ToJson(ManagedPod(i));
    }
    return s + "]}";
  }();
  return page;
}

const std::string& WatchLineText() {
  static const std::string line = WatchLine("MODIFIED", ManagedPod(1));
  return line;
}

enum Parser { kRecursive, kIterative, kHelper };
const char* kParserNames[] = {"rapidjson_recursive", "rapidjson_iterative", "json_helper"};

// The page is copied into the buffer before every parse (in-situ parsing consumes it), outside
// the timing.
void BM_ListPageInsitu(benchmark::State& state) {
  const std::string& page = ListPage();
  const auto parser = static_cast<Parser>(state.range(0));
  std::string buf;
  rapidjson::Document doc;
  for (auto _ : state) {
    state.PauseTiming();
    buf = page;
    doc.SetNull();  // every path starts from an empty pool, as json::ParseInsitu does
    doc.GetAllocator().Clear();
    state.ResumeTiming();
    bool ok = false;
    if (parser == kRecursive) {
      doc.ParseInsitu(buf.data());
      ok = !doc.HasParseError();
    } else if (parser == kIterative) {
      doc.ParseInsitu<rapidjson::kParseIterativeFlag>(buf.data());
      ok = !doc.HasParseError();
    } else {
      ok = json::ParseInsitu(buf.data(), &doc).empty();
    }
    if (!ok) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(doc.IsObject());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * page.size()));
  state.counters["page_MB"] = static_cast<double>(page.size()) / 1e6;
  const rapidjson::Value* items = json::Array(&doc, "items");
  state.counters["items"] = items == nullptr ? 0 : static_cast<double>(items->Size());
  state.SetLabel(kParserNames[parser]);
}
BENCHMARK(BM_ListPageInsitu)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

void BM_WatchLine(benchmark::State& state) {
  const std::string& line = WatchLineText();
  const auto parser = static_cast<Parser>(state.range(0));
  rapidjson::Document doc;
  for (auto _ : state) {
    if (parser == kHelper) {
      benchmark::DoNotOptimize(json::ParseInto(line, &doc));
      continue;
    }
    doc.SetNull();
    doc.GetAllocator().Clear();
    if (parser == kRecursive) {
      doc.Parse(line.data(), line.size());
    } else {
      doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
    }
    benchmark::DoNotOptimize(doc.IsObject());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * line.size()));
  state.SetLabel(kParserNames[parser]);
}
BENCHMARK(BM_WatchLine)->DenseRange(0, 2);

void BM_IsValidUtf8(benchmark::State& state) {
  static const std::string kMetricsBody = [] {
    std::string s;
    for (int i = 0; i < 10'000; ++i) {
      s += "podwait_pod_waiting_seconds{namespace=\"ns-" + std::to_string(i % 100) +
           "\",tidb_cluster=\"ns-" + std::to_string(i % 100) + "-tc-" + std::to_string(i / 10) +
           "\",component=\"tikv\",pod=\"tc-" + std::to_string(i / 10) + "-tikv-" +
           std::to_string(i % 10) +
           "\",stage=\"initializing\",class=\"dependency\",reason=\"pd_not_ready\"} 125\n";
    }
    return s;
  }();
  const std::string inputs[] = {"tc-0042-tikv-3", "東京-tidb-0-ßüö", kMetricsBody};
  const std::string& s = inputs[state.range(0)];
  for (auto _ : state) benchmark::DoNotOptimize(IsValidUtf8(s));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size()));
  const char* names[] = {"ascii_label", "non_ascii_label", "metrics_body_10k_pods"};
  state.SetLabel(names[state.range(0)]);
}
BENCHMARK(BM_IsValidUtf8)->DenseRange(0, 2);

}  // namespace
}  // namespace podwait::bench

BENCHMARK_MAIN();
