// The exporter against the simulator playing tests/scenarios/autoscalers.json: the autoscaler
// signals of issue 24 reach /metrics with their class and reason (the classifier table,
// tests/unit/classify_classifier_test.cpp, has the same shapes row by row).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

bool HasReason(const std::string& text, const char* pod, const char* wait_class,
               const char* reason) {
  return !FindSamples(text, "podwait_pod_waiting_seconds",
                      {{"pod", pod}, {"class", wait_class}, {"reason", reason}})
              .empty();
}

// cluster-autoscaler >= 1.30 names the group's backoff error: the pod's reason says it.
TEST(ExporterAutoscalers, NodeGroupBackoffCodeIsThePodsReason) {
  SimAndExporter stack("tests/scenarios/autoscalers.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return HasReason(t, "as-tikv-0", "capacity", "backoff_quota_exceeded");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

// Pods consuming ProvisioningRequests: the request's conditions are the pod's reason, and a
// request that changes (accepted -> provisioned) changes it, through list and watch.
TEST(ExporterAutoscalers, TheConsumedProvisioningRequestIsThePodsReason) {
  SimAndExporter stack("tests/scenarios/autoscalers.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return HasReason(t, "as-tikv-2", "capacity", "provisioning_request_failed") &&
               HasReason(t, "as-tikv-1", "scale_up", "provisioning_request_accepted");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=provreq-provisioned"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return HasReason(t, "as-tikv-1", "scale_up", "provisioning_request_provisioned");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

// A pod short of resources that the present cluster-autoscaler says nothing about past the
// silence grace: the autoscaler is silent, and reported unhealthy.
TEST(ExporterAutoscalers, ASilentAutoscalerIsThePodsReasonAndUnhealthy) {
  SimAndExporter stack("tests/scenarios/autoscalers.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return HasReason(t, "as-tikv-3", "capacity", "autoscaler_silent") &&
               SampleValue(t, "podwait_autoscaler_healthy", {{"kind", "cluster-autoscaler"}}) == 0;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  // Only detected kinds have a health.
  EXPECT_TRUE(FindSamples(text, "podwait_autoscaler_healthy", {{"kind", "karpenter"}}).empty());
}

}  // namespace
}  // namespace podwait::testing
