// The exporter against the simulator playing tests/scenarios/real-shapes.json: each real-shaped
// wait of issue 22 (an aggregated autoscaler verdict, the scheduler's filter order with a local PV,
// volume and sandbox waits, DRA) reaches /metrics with its class and reason. The classifier table
// (tests/unit/classify_classifier_test.cpp) has the same shapes row by row; this shows the
// simulator plays them and the whole pipeline keeps them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

bool Is(const std::string& text, const std::string& pod, const std::string& wait_class,
        const std::string& reason) {
  return !FindSamples(text, "podwait_pod_waiting_seconds",
                      {{"pod", pod}, {"class", wait_class}, {"reason", reason}})
              .empty();
}

TEST(ExporterRealShapes, EveryShapeIsClassified) {
  // The scenario's pods are shapes, not one autoscaler's story: the cluster-autoscaler present
  // for real-tikv-1 would have written a verdict on each of them. Silence past the grace (reason
  // autoscaler_silent, tests/integration/exporter_autoscalers_test.cpp) is not what this shows.
  SimAndExporter stack("tests/scenarios/real-shapes.json", {"--autoscaler.silence-grace=24h"});
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return Is(t, "real-tikv-1", "capacity", "scale_up_backoff") &&
               Is(t, "real-tikv-5", "capacity", "insufficient_cpu") &&
               Is(t, "real-tikv-2", "volume", "volume_multi_attach") &&
               Is(t, "real-tidb-0", "volume", "sandbox_creation");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  // The scheduler's volume filter beside Insufficient cpu: the pod's volume decides (read from the
  // simulator's PersistentVolumeClaims and PersistentVolumes). Pinned to one node (a local PV): no
  // added node can host it; zonal: a node with room in its zone would.
  EXPECT_TRUE(Is(text, "real-tikv-0", "constraints", "volume_node_affinity"));
  EXPECT_TRUE(Is(text, "real-tikv-5", "capacity", "insufficient_cpu"));
  EXPECT_TRUE(Is(text, "real-tikv-3", "volume", "volume_mount_timeout"));
  EXPECT_TRUE(Is(text, "real-tikv-4", "capacity", "dra_claims_unallocatable"));
  EXPECT_TRUE(Is(text, "real-tidb-1", "scheduling", "dra_claim_pending"));
}

}  // namespace
}  // namespace podwait::testing
