// The demo keeps playing: when the simulator starts the story again (what --loop does at the end of
// every cycle; here POST /_sim/restart, so the test needs no clock), the exporter sees the
// dependency and scale-up waits come back after they were gone, and the capacity wait throughout.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

// The five TiDB pods wait for PD and demo-tikv-0 for its node, as at the start of the demo.
bool StoryWaits(const std::string& t) {
  return FindSamples(t, "podwait_pod_waiting_seconds",
                     {{"namespace", "demo"}, {"component", "tidb"}, {"class", "dependency"}})
                 .size() == 5 &&
         !FindSamples(t, "podwait_pod_waiting_seconds",
                      {{"pod", "demo-tikv-0"}, {"class", "scale_up"}})
              .empty();
}

bool CapacityWait(const std::string& t) {
  return !FindSamples(t, "podwait_pod_waiting_seconds",
                      {{"namespace", "shop"}, {"class", "capacity"}})
              .empty();
}

TEST(DemoLoop, TheWaitsComeBackWhenTheStoryRestarts) {
  SimAndExporter stack("tests/scenarios/demo.json", {"--pd.interval=300ms"});
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) { return StoryWaits(t) && CapacityWait(t); }, 30, &text))
      << text << stack.exporter().ReadLog();

  // The story's end: no pod of demo waits on a dependency or a node any more.
  int code = 0;
  while ((code = stack.SimPost("/_sim/advance")) == 200) {
  }
  ASSERT_EQ(code, 409) << "the timeline ends";
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds",
                           {{"namespace", "demo"}, {"class", "dependency"}})
                   .empty() &&
               FindSamples(t, "podwait_pod_waiting_seconds", {{"class", "scale_up"}}).empty() &&
               CapacityWait(t);
      },
      30, &text))
      << text;

  // The replay: the same waits again, on the pods created anew, and PD without its leader again
  // (the pods' waits may come a probe before PD's answer: the TiDB pods in Init wait as
  // dependency_ready on the last answer until the fresh one says no leader).
  ASSERT_EQ(stack.SimPost("/_sim/restart"), 200) << stack.sim().ReadLog();
  const auto pd_ready = [](const std::string& t) {
    return SampleValue(t, "podwait_dependency_ready",
                       {{"tidb_cluster", "demo-demo"}, {"dependency", "pd"}});
  };
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) { return StoryWaits(t) && CapacityWait(t) && pd_ready(t) == 0; },
      30, &text))
      << "PD has no leader again: " << pd_ready(text) << "\n"
      << text << stack.sim().ReadLog();
}

}  // namespace
}  // namespace podwait::testing
