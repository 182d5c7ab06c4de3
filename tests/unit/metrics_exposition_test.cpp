#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/metrics/exposition.h"
#include "exporter/metrics/family_builder.h"
#include "exporter/metrics/process_collector.h"
#include "exporter/metrics/self_metrics.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class FixedCollectable : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    FamilyBuilder("podwait_example", "An example.", prometheus::MetricType::Gauge)
        .Add({{"pod", "a\"b\\c\nd"}}, 1.5)
        .MoveTo(&out);
    FamilyBuilder("podwait_example_seconds", "A histogram.", prometheus::MetricType::Histogram)
        .AddHistogram({{"stage", "unscheduled"}}, {1, 10}, {2, 3}, 4, 42)
        .MoveTo(&out);
    return out;
  }
};

TEST(Exposition, RendersTextFormatWithEscapedLabels) {
  std::string text = RenderText({std::make_shared<FixedCollectable>()});
  EXPECT_THAT(text, HasSubstr("# TYPE podwait_example gauge\n"));
  EXPECT_THAT(text, HasSubstr("podwait_example{pod=\"a\\\"b\\\\c\\nd\"} 1.5\n"));
  EXPECT_THAT(text,
              HasSubstr("podwait_example_seconds_bucket{stage=\"unscheduled\",le=\"10\"} 3\n"));
  EXPECT_THAT(text,
              HasSubstr("podwait_example_seconds_bucket{stage=\"unscheduled\",le=\"+Inf\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("podwait_example_seconds_sum{stage=\"unscheduled\"} 42\n"));
}

TEST(Exposition, BuildInfoAndProcessMetrics) {
  SelfMetrics self;
  std::string text = RenderText({self.registry(), std::make_shared<ProcessCollector>()});
  EXPECT_THAT(text, HasSubstr("podwait_build_info{"));
  EXPECT_THAT(text, HasSubstr("version=\""));
  EXPECT_THAT(text, HasSubstr("process_resident_memory_bytes "));
  EXPECT_THAT(text, HasSubstr("process_cpu_seconds_total "));
  EXPECT_THAT(text, HasSubstr("process_start_time_seconds "));
  EXPECT_THAT(text, HasSubstr("process_open_fds "));
  EXPECT_THAT(text, Not(HasSubstr("nan")));
}

TEST(Exposition, SelfMetricsCount) {
  SelfMetrics self;
  self.WatchEvents("pods", "ADDED").Increment();
  self.WatchEvents("pods", "ADDED").Increment();
  self.ParseErrors("events").Increment();
  std::string text = RenderText({self.registry()});
  EXPECT_THAT(text, HasSubstr("podwait_watch_events_total{resource=\"pods\",type=\"ADDED\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("podwait_parse_errors_total{resource=\"events\"} 1\n"));
}

}  // namespace
}  // namespace podwait
