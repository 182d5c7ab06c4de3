// The self-metrics adapters of the PD prober and the reflectors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/app/observers.h"
#include "exporter/metrics/exposition.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SelfMetricsProbeObserverTest, CountsErrorsByEndpointAndKind) {
  SelfMetrics metrics;
  SelfMetricsProbeObserver obs(metrics);
  obs.OnRequest(PdEndpoint::kHealth, 0.01, PdErrorKind::kNone);
  obs.OnRequest(PdEndpoint::kStores, 3.0, PdErrorKind::kTimeout);
  obs.OnRequest(PdEndpoint::kStores, 0.1, PdErrorKind::kCancelled);  // shutdown: not an error
  obs.OnRound(1.5);
  const std::string text = RenderText({metrics.registry()});
  EXPECT_THAT(text,
              HasSubstr("podwait_probe_errors_total{endpoint=\"stores\",kind=\"timeout\"} 1"));
  EXPECT_THAT(text, Not(HasSubstr("kind=\"cancelled\"")));
  EXPECT_THAT(text, HasSubstr("podwait_probe_duration_seconds_count{endpoint=\"health\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_probe_round_seconds 1.5"));
}

TEST(SelfMetricsReflectorObserverTest, UpdatesTheWatchFamiliesOfItsResource) {
  SelfMetrics metrics;
  auto obs = MakeSelfMetricsReflectorObservers(metrics)("events");
  obs->OnWatchEvent(WatchEventType::kAdded, 1'700'000'000'000);
  obs->OnWatchEvent(WatchEventType::kBookmark, 1'700'000'001'000);
  obs->OnRestart("gone");
  obs->OnRelist();
  obs->OnSynced(true);
  obs->OnObjects(7);
  obs->OnParseError();
  EXPECT_EQ(metrics.WatchEvents("events", "ADDED").Value(), 1);
  EXPECT_EQ(metrics.WatchEvents("events", "BOOKMARK").Value(), 1);
  EXPECT_EQ(metrics.WatchRestarts("events", "gone").Value(), 1);
  EXPECT_EQ(metrics.WatchRelists("events").Value(), 1);
  EXPECT_EQ(metrics.WatchSynced("events").Value(), 1);
  EXPECT_EQ(metrics.Objects("events").Value(), 7);
  EXPECT_EQ(metrics.ParseErrors("events").Value(), 1);
  EXPECT_EQ(metrics.WatchLastEventTimestamp("events").Value(), 1'700'000'001);
  EXPECT_EQ(metrics.WatchEvents("pods", "ADDED").Value(), 0);
}

TEST(SelfMetricsReflectorObserverTest, ADisabledResourceHasNoSyncedSeries) {
  SelfMetrics metrics;
  auto obs = MakeSelfMetricsReflectorObservers(metrics)("tsos");
  auto pods = MakeSelfMetricsReflectorObservers(metrics)("pods");
  obs->OnSynced(false);
  pods->OnSynced(false);
  EXPECT_THAT(RenderText({metrics.registry()}),
              HasSubstr("podwait_watch_synced{resource=\"tsos\"} 0"));
  obs->OnDisabled();
  const std::string text = RenderText({metrics.registry()});
  EXPECT_THAT(text, Not(HasSubstr("podwait_watch_synced{resource=\"tsos\"}")));
  EXPECT_THAT(text, HasSubstr("podwait_watch_synced{resource=\"pods\"} 0"));
}

}  // namespace
}  // namespace podwait
