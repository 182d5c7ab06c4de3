// Label values that come from pods must come from bounded sets when their series outlive the pods
// (docs/DESIGN.md §5, "Where label values come from"): whoever can create a labelled pod in a
// watched namespace must not be able to grow every Prometheus that scrapes podwait. The real
// exporter against the simulator: 4,000 short-lived pods, each with a component label of its own.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <regex>
#include <thread>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

constexpr int kPods = 4000;

// One op of the simulator for `n` pods of cluster "churn" in stage `stage`, pod i with the
// component `component(i)`.
std::string PodsOp(int round, int n, const std::string& stage,
                   const std::function<std::string(int)>& component) {
  std::string op = R"({"pods":[)";
  for (int i = 0; i < n; ++i) {
    if (i > 0) op += ",";
    op += R"({"namespace":"demo","name":"churn-)" + std::to_string(round) + "-" +
          std::to_string(i) + R"(","cluster":"churn","component":")" + component(i) +
          R"(","stage":")" + stage + R"(","created":"-1m"})";
  }
  return op + "]}";
}

std::string DeleteOp(int round, int n) {
  std::string op = "[";
  for (int i = 0; i < n; ++i) {
    if (i > 0) op += ",";
    op += R"({"delete":{"namespace":"demo","name":"churn-)" + std::to_string(round) + "-" +
          std::to_string(i) + R"("}})";
  }
  return op + "]";
}

double WaitingInChurn(const std::string& text) {
  double n = 0;
  for (const Sample& s :
       FindSamples(text, "podwait_waiting_pods", {{"tidb_cluster", "demo-churn"}}))
    n += s.value;
  return n;
}

double CompletedStages(const std::string& text, const std::string& component) {
  double n = 0;
  for (const Sample& s :
       FindSamples(text, "podwait_stage_duration_seconds_count", {{"component", component}})) {
    n += s.value;
  }
  return n;
}

// `n` pods wait (unschedulable), then start (a completed stage each), then are deleted; returns
// the scrape once they are gone.
std::string Round(SimAndExporter& stack, int round, int n,
                  const std::function<std::string(int)>& component) {
  std::string text;
  EXPECT_EQ(stack.SimPost("/_sim/apply", PodsOp(round, n, "unschedulable", component)), 200);
  EXPECT_TRUE(
      stack.ScrapeUntil([n](const std::string& t) { return WaitingInChurn(t) == n; }, 60, &text))
      << "waiting pods: " << WaitingInChurn(text);
  EXPECT_EQ(stack.SimPost("/_sim/apply", PodsOp(round, n, "ready", component)), 200);
  EXPECT_TRUE(
      stack.ScrapeUntil([](const std::string& t) { return WaitingInChurn(t) == 0; }, 60, &text));
  const double before = SampleValue(text, "podwait_objects", {{"resource", "pods"}});
  EXPECT_EQ(stack.SimPost("/_sim/apply", DeleteOp(round, n)), 200);
  EXPECT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_objects", {{"resource", "pods"}}) == before - n;
      },
      60, &text));
  // One more evaluation after the last change.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  return stack.Scrape();
}

TEST(BoundedLabels, DistinctComponentValuesLeaveMetricsAtItsSteadySize) {
  // Without a series per waiting pod, a scrape of 4,000 waiting pods is quick to poll; the
  // families that stay after the pods are the same.
  SimAndExporter stack("tests/scenarios/demo.json", {"--metrics.pod-series=false"});
  // The steady state: pods of a component tidb-operator defines came and went.
  const std::string steady = Round(stack, 0, 100, [](int) { return "tikv"; });
  ASSERT_EQ(CompletedStages(steady, "tikv"), 100) << stack.exporter().ReadLog();

  const std::string first =
      Round(stack, 1, kPods, [](int i) { return "made-up-" + std::to_string(i); });
  EXPECT_EQ(CompletedStages(first, "other"), kPods);
  EXPECT_FALSE(std::regex_search(first, std::regex("component=\"made-up-")));
  // The "other" component adds one histogram per (stage, class) seen: a few KB, not 4,000.
  const size_t other_series =
      FindSamples(first, "podwait_stage_duration_seconds_count", {{"component", "other"}}).size();
  EXPECT_LE(other_series, 2u);
  EXPECT_LE(first.size(), steady.size() + other_series * 2000);
  std::cout << "/metrics: " << steady.size() << " bytes steady, " << first.size()
            << " after 4,000 pods with made-up components\n";

  // 4,000 more values leave it where it was (only the counts grow).
  const std::string second =
      Round(stack, 2, kPods, [](int i) { return "made-up-again-" + std::to_string(i); });
  EXPECT_EQ(CompletedStages(second, "other"), 2 * kPods);
  EXPECT_LE(second.size(), first.size() + 100);
  std::cout << "/metrics: " << second.size() << " bytes after 4,000 more\n";
}

}  // namespace
}  // namespace podwait::testing
