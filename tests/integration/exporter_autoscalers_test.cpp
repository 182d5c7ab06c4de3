// The exporter against the simulator playing tests/scenarios/autoscalers.json: the autoscaler
// signals of issue 24 reach /metrics with their class and reason (the classifier table,
// tests/unit/classify_classifier_test.cpp, has the same shapes row by row).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

// cluster-autoscaler >= 1.30 names the group's backoff error: the pod's reason says it.
TEST(ExporterAutoscalers, NodeGroupBackoffCodeIsThePodsReason) {
  SimAndExporter stack("tests/scenarios/autoscalers.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return !FindSamples(t, "podwait_pod_waiting_seconds",
                            {{"pod", "as-tikv-0"},
                             {"class", "capacity"},
                             {"reason", "backoff_quota_exceeded"}})
                    .empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

}  // namespace
}  // namespace podwait::testing
