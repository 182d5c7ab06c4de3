// Classification of one pod (docs/DESIGN.md §4), for the typical shapes of a TiDB fleet. Pods and
// events come from the simulator's shorthand (real-shaped documents, bench_support.h) through the
// real parsers (ParsePod, ParseEvent), so the classifier sees exactly what the exporter keeps.

#include <benchmark/benchmark.h>

#include "bench/bench_support.h"
#include "exporter/classify/classifier.h"
#include "exporter/sources/events.h"
#include "exporter/sources/pods.h"

namespace podwait::bench {
namespace {

struct Case {
  const char* name;
  const char* pod;                   // pod shorthand
  std::vector<const char*> events;   // event shorthand
  Readiness pd = Readiness::kReady;  // the cluster's PD
  Readiness tikv = Readiness::kReady;
  bool autoscaler = true;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"ready", R"({"namespace":"ns","name":"tc-tikv-1","waitForPd":true,"created":"-30m"})", {}},
      {"dependency (init on wait-for-pd, PD has no leader)",
       R"({"namespace":"ns","name":"tc-tikv-1","waitForPd":true,"stage":"init","created":"-5m"})",
       {},
       Readiness::kNotReady,
       Readiness::kNotReady},
      {"scale_up (unschedulable, TriggeredScaleUp)",
       R"({"namespace":"ns","name":"tc-tikv-2","waitForPd":true,"stage":"unschedulable","since":"-3m","created":"-3m"})",
       {R"({"namespace":"ns","pod":"tc-tikv-2","reason":"FailedScheduling","first":"-3m","count":4})",
        R"({"namespace":"ns","pod":"tc-tikv-2","reason":"TriggeredScaleUp","first":"-2m"})"}},
      {"capacity (unschedulable, NotTriggerScaleUp)",
       R"({"namespace":"ns","name":"tc-tikv-2","waitForPd":true,"stage":"unschedulable","since":"-20m","created":"-20m",
           "message":"0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."})",
       {R"({"namespace":"ns","pod":"tc-tikv-2","reason":"FailedScheduling","first":"-20m","count":12,
            "message":"0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."})",
        R"({"namespace":"ns","pod":"tc-tikv-2","reason":"NotTriggerScaleUp","first":"-19m"})"}},
      {"crashloop",
       R"({"namespace":"ns","name":"tc-tidb-0","waitForPd":true,"stage":"waiting","reason":"CrashLoopBackOff","created":"-30m"})",
       {}},
      {"not_ready (running, dependencies ready)",
       R"({"namespace":"ns","name":"tc-tidb-1","waitForPd":true,"stage":"running","created":"-30m"})",
       {}},
  };
  return cases;
}

void BM_Classify(benchmark::State& state) {
  const Case& c = Cases()[static_cast<size_t>(state.range(0))];
  rapidjson::Document doc = ShorthandPod(c.pod, "uid-1", "10");
  Result<PodRecord> pod = ParsePod(doc, PodParseOptions{});
  if (!pod.ok()) {
    state.SkipWithError(pod.error.c_str());
    return;
  }
  std::vector<EventRecord> events;
  for (const char* e : c.events) {
    rapidjson::Document spec;
    spec.Parse(e);
    rapidjson::Document ev;
    std::string error;
    if (!sim::ExpandEvent(
            spec, kNow, [](const std::string&, const std::string&) { return std::string("uid-1"); },
            &ev, &error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    Result<ParsedEvent> parsed = ParseEvent(ev);
    if (parsed->relevant) events.push_back(parsed->event);
  }
  ClusterDependencies deps;
  deps.pd.readiness = c.pd;
  deps.tikv.readiness = c.tikv;
  if (c.pd == Readiness::kReady) deps.pd.ready_since = kNow - 3600'000;
  if (c.tikv == Readiness::kReady) deps.tikv.ready_since = kNow - 3600'000;
  if (c.pd != Readiness::kReady) deps.pd.reason = DependencyReason::kNoPdLeader;
  if (c.tikv != Readiness::kReady) deps.tikv.reason = DependencyReason::kNoTikvStoreUp;
  AutoscalerState autoscaler;
  autoscaler.detected[AutoscalerKind::kClusterAutoscaler] = c.autoscaler;
  const ClassifierOptions options;
  Classification result;
  for (auto _ : state) {
    result = Classify(*pod, events, &deps, autoscaler, options, kNow);
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel(std::string(c.name) + " -> " +
                 (result.waiting
                      ? std::string(WaitClassName(result.wait_class)) + "/" + result.reason
                      : std::string("not waiting")));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Classify)->DenseRange(0, 5);

}  // namespace
}  // namespace podwait::bench

BENCHMARK_MAIN();
