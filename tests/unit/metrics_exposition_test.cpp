#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/utf8.h"
#include "exporter/metrics/exposition.h"
#include "exporter/metrics/family_builder.h"
#include "exporter/metrics/process_collector.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/metrics/text_writer.h"
#include "exporter/metrics/utf8_metrics.h"

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

// Defect 4: bytes that are not UTF-8 in one label value made Prometheus reject the whole scrape.
TEST(Exposition, InvalidUtf8InLabelValuesIsReplaced) {
  class BadLabel : public prometheus::Collectable {
   public:
    std::vector<prometheus::MetricFamily> Collect() const override {
      std::vector<prometheus::MetricFamily> out;
      FamilyBuilder("podwait_tikv_stores", "Stores.", prometheus::MetricType::Gauge)
          .Add({{"state", "Up\xff\xfe"}}, 1)
          .MoveTo(&out);
      return out;
    }
  };
  const uint64_t before = InvalidUtf8Strings(Utf8Output::kMetrics);
  std::string text = RenderText({std::make_shared<BadLabel>()});
  EXPECT_THAT(text, HasSubstr("podwait_tikv_stores{state=\"Up\xef\xbf\xbd\xef\xbf\xbd\"} 1\n"));
  EXPECT_EQ(InvalidUtf8Strings(Utf8Output::kMetrics), before + 1);

  std::string direct;
  TextWriter(&direct).Sample<metric::kAutoscalerDetected>({"demo-\xfe"}, 3);
  EXPECT_EQ(direct, "podwait_autoscaler_detected{kind=\"demo-\xef\xbf\xbd\"} 3\n");
  EXPECT_EQ(InvalidUtf8Strings(Utf8Output::kMetrics), before + 2);

  std::string self;
  AppendInvalidUtf8Metrics(&self);
  EXPECT_THAT(self, HasSubstr("# TYPE podwait_invalid_utf8_total counter\n"));
  EXPECT_THAT(self, HasSubstr("podwait_invalid_utf8_total{output=\"metrics\"} " +
                              std::to_string(before + 2) + "\n"));
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
