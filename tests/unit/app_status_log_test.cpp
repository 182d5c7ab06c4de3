// The status log: one summary line once synced (and again after sync came back), class changes
// at info, at most N a minute, none while a source is still listing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/app/status_log.h"

namespace podwait {
namespace {

std::shared_ptr<const WaitingSnapshot> Snapshot(
    const std::vector<std::pair<std::string, WaitClass>>& pods) {
  auto s = std::make_shared<WaitingSnapshot>();
  for (const auto& [name, cls] : pods) {
    WaitingPod p;
    p.namespace_ = "tidb";
    p.pod = name;
    p.classification.waiting = true;
    p.classification.wait_class = cls;
    p.classification.reason = "test";
    s->pods.push_back(std::move(p));
  }
  return s;
}

std::pair<size_t, size_t> Counts() { return {2, 10}; }

TEST(StatusLog, OneSummaryWhenSyncedThenClassChanges) {
  StatusLog log(/*max_class_lines=*/20);
  auto a = Snapshot({{"tikv-0", WaitClass::kDependency}, {"tikv-1", WaitClass::kCapacity}});
  log.Observe(false, a, Counts, 0);  // still listing: nothing
  EXPECT_EQ(log.lines(), 0u);
  log.Observe(true, a, Counts, 1000);  // the summary
  EXPECT_EQ(log.lines(), 1u);
  log.Observe(true, a, Counts, 2000);  // the same snapshot: nothing
  EXPECT_EQ(log.lines(), 1u);
  // tikv-0 becomes capacity, tikv-1 stops waiting, tikv-2 starts: three lines.
  log.Observe(true,
              Snapshot({{"tikv-0", WaitClass::kCapacity}, {"tikv-2", WaitClass::kScheduling}}),
              Counts, 3000);
  EXPECT_EQ(log.lines(), 4u);
  // Out of sync and back: a new summary.
  auto b = Snapshot({{"tikv-0", WaitClass::kCapacity}, {"tikv-2", WaitClass::kScheduling}});
  log.Observe(false, b, Counts, 4000);
  log.Observe(true, b, Counts, 5000);
  EXPECT_EQ(log.lines(), 5u);
}

TEST(StatusLog, ClassChangesAreRateLimited) {
  StatusLog log(/*max_class_lines=*/20);
  std::vector<std::pair<std::string, WaitClass>> pods;
  log.Observe(true, Snapshot(pods), Counts, 0);
  for (int i = 0; i < 500; ++i) pods.emplace_back("pod-" + std::to_string(i), WaitClass::kCapacity);
  log.Observe(true, Snapshot(pods), Counts, 1000);
  EXPECT_EQ(log.lines(), 1u + 20u);  // 500 new waiting pods: 20 lines in this minute
  for (auto& p : pods) p.second = WaitClass::kScheduling;
  log.Observe(true, Snapshot(pods), Counts, 61'000);  // the next minute: 20 more
  EXPECT_EQ(log.lines(), 41u);
}

}  // namespace
}  // namespace podwait
