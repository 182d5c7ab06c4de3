// The exporter against the simulator playing tests/scenarios/karpenter-nodeclaims.json: a pod
// nominated to a Karpenter NodeClaim waits with the NodeClaim's stage as its reason, and the
// reason follows the NodeClaim through list and watch (launching, registering, initializing).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

bool StageIs(const std::string& text, const char* reason) {
  return !FindSamples(text, "podwait_pod_waiting_seconds",
                      {{"pod", "kp-tikv-0"}, {"class", "scale_up"}, {"reason", reason}})
              .empty();
}

TEST(ExporterKarpenter, TheNominatedNodeClaimsStageIsThePodsReason) {
  SimAndExporter stack("tests/scenarios/karpenter-nodeclaims.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return StageIs(t, "karpenter_launching") &&
               SampleValue(t, "podwait_autoscaler_detected", {{"kind", "karpenter"}}) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=registering"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) { return StageIs(t, "karpenter_registering"); }, 20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=initializing"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) { return StageIs(t, "karpenter_initializing"); }, 20, &text))
      << text << stack.exporter().ReadLog();
}

}  // namespace
}  // namespace podwait::testing
