// What the status page's "no data is not good news" reads: which watches have not synced yet and
// which fell out of sync (SyncStatus), whether the API server answers (ApiServerLog), and when the
// watches last brought data (WatchFreshness, fed through the reflectors' observers).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/app/observers.h"
#include "exporter/common/clock.h"
#include "exporter/common/sync_status.h"
#include "exporter/kube/request_budget.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SyncStatus, TellsNotSyncedYetFromOutOfSync) {
  SyncStatus s;
  s.Register("pods");
  s.Register("events");
  s.Register("tidbclusters");
  SyncStatus::Unsynced u = s.NotSynced();
  EXPECT_THAT(u.not_yet, ElementsAre("events", "pods", "tidbclusters"));
  EXPECT_THAT(u.lost, IsEmpty());
  s.MarkSynced("pods");
  s.MarkSynced("events");
  s.MarkOutOfSync("pods");
  u = s.NotSynced();
  EXPECT_THAT(u.not_yet, ElementsAre("tidbclusters"));
  EXPECT_THAT(u.lost, ElementsAre("pods"));
  s.MarkSynced("pods");
  s.Unregister("tidbclusters");
  u = s.NotSynced();
  EXPECT_THAT(u.not_yet, IsEmpty());
  EXPECT_THAT(u.lost, IsEmpty());
}

TEST(ApiServerLog, UnreachableFromTheFirstTransportFailureToTheNextAnswer) {
  ApiServerLog log;
  EXPECT_TRUE(log.Current().reachable);
  log.OnTransportError("pods", "https://10.0.0.1:6443", "cannot connect: refused", 1'000);
  log.OnTransportError("events", "https://10.0.0.1:6443", "cannot connect: timed out", 2'500);
  ApiServerLog::Reach r = log.Current();
  EXPECT_FALSE(r.reachable);
  EXPECT_EQ(r.address, "https://10.0.0.1:6443");
  EXPECT_EQ(r.error, "cannot connect: timed out");  // the last one
  EXPECT_EQ(r.down_since_ms, 1'000);                // the first one
  log.OnAnswer("pods", "https://10.0.0.1:6443", 9'000);
  EXPECT_TRUE(log.Current().reachable);
}

// A reflector observer that records nothing: the inner one of the tee under test.
class Counting final : public ReflectorObserver {
 public:
  explicit Counting(int* events) : events_(events) {}
  void OnWatchEvent(WatchEventType, Timestamp) override { ++*events_; }
  void OnRestart(const std::string&) override {}
  void OnRelist() override {}
  void OnSynced(bool) override {}
  void OnObjects(size_t) override {}
  void OnParseError() override {}

 private:
  int* events_;
};

TEST(WatchFreshness, TheOldestReflectorOfAResourceSaysHowOldItsDataIs) {
  FakeClock clock(1'700'000'000'000);
  WatchFreshness freshness;
  int inner_events = 0;
  ReflectorObserverFactory factory = WithFreshness(
      [&inner_events](const std::string&) { return std::make_unique<Counting>(&inner_events); },
      freshness, clock);
  auto ns_a = factory("pods");
  auto ns_b = factory("pods");
  auto crd = factory("tidbclusters");
  EXPECT_EQ(freshness.Oldest("pods"), 0);  // none has listed yet
  ns_a->OnSynced(true);                    // listed now
  EXPECT_EQ(freshness.Oldest("pods"), 0);  // ns_b has not
  clock.Advance(5'000);
  ns_b->OnWatchEvent(WatchEventType::kBookmark, clock.Now());
  EXPECT_EQ(freshness.Oldest("pods"), 1'700'000'000'000);  // ns_a's list, the older
  clock.Advance(5'000);
  ns_a->OnWatchEvent(WatchEventType::kModified, clock.Now());
  EXPECT_EQ(freshness.Oldest("pods"), 1'700'000'005'000);  // now ns_b's bookmark
  ns_b->OnSynced(false);                                   // failing brings no data
  EXPECT_EQ(freshness.Oldest("pods"), 1'700'000'005'000);
  EXPECT_EQ(inner_events, 2);  // the inner observer still sees everything
  // A resource the API server does not serve never brings data, and need not.
  EXPECT_EQ(freshness.Oldest("tidbclusters"), 0);
  crd->OnDisabled();
  EXPECT_EQ(freshness.Oldest("tidbclusters"), 0);
  EXPECT_EQ(freshness.Oldest("pods"), 1'700'000'005'000);
}

}  // namespace
}  // namespace podwait
