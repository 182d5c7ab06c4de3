// A sample names its contract row and gives the label values in the row's order: the label names
// written are the row's own, split at compile time (kLabelNames). A wrong number of values does
// not compile (tests/checks/metrics_labels_compile_test.sh).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exporter/metrics/metric_writer.h"
#include "exporter/metrics/text_writer.h"

namespace podwait {
namespace {

TEST(TextWriter, CompileTimeLabelNamesAreTheContractRows) {
#define PODWAIT_CHECK_ROW(constant, name, type, help, labels, sources)           \
  EXPECT_EQ(std::vector<std::string_view>(kLabelNames<metric::constant>.begin(), \
                                          kLabelNames<metric::constant>.end()),  \
            LabelsOf(metric::constant))                                          \
      << name;
  PODWAIT_METRICS(PODWAIT_CHECK_ROW)
#undef PODWAIT_CHECK_ROW
  EXPECT_EQ(LabelCount(""), 0u);
  EXPECT_EQ(LabelCount("a,b,c"), 3u);
}

TEST(TextWriter, SampleWritesTheRowsLabelsInOrder) {
  std::string out;
  TextWriter w(&out);
  w.Sample<metric::kWaitingPods>({"tidb", "tidb-basic", "tikv", "unscheduled", "capacity"}, 2);
  w.Sample<metric::kProbeRoundSeconds>(0.25);
  EXPECT_EQ(out,
            "podwait_waiting_pods{namespace=\"tidb\",tidb_cluster=\"tidb-basic\","
            "component=\"tikv\",stage=\"unscheduled\",class=\"capacity\"} 2\n"
            "podwait_probe_round_seconds 0.25\n");
}

// Label values are checked eight bytes at a time: a byte to escape or a UTF-8 sequence is found
// at every position of a word and in the tail after the last whole word.
TEST(TextWriter, EscapesAtEveryPositionOfALabelValue) {
  const std::vector<std::pair<std::string, std::string>> specials = {
      {"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}, {"\xc3\xa9", "\xc3\xa9"}};
  for (size_t length : {1u, 7u, 8u, 9u, 16u, 23u}) {
    for (size_t at = 0; at < length; ++at) {
      for (const auto& [special, written] : specials) {
        std::string value(length, 'a');
        value.replace(at, 1, special);
        std::string expected(length, 'a');
        expected.replace(at, 1, written);
        std::string out;
        TextWriter w(&out);
        w.Sample<metric::kAutoscalerDetected>({value}, 1);
        EXPECT_EQ(out, "podwait_autoscaler_detected{kind=\"" + expected + "\"} 1\n")
            << "length " << length << ", at " << at;
      }
    }
  }
}

TEST(TextWriter, HistogramSeries) {
  std::string out;
  TextWriter w(&out);
  const std::string_view labels[] = {"tikv", "initializing", "dependency"};
  w.Bucket<metric::kStageDurationSeconds>(labels, "10", 1);
  w.Bucket<metric::kStageDurationSeconds>(labels, "+Inf", 3);
  w.Sum<metric::kStageDurationSeconds>(labels, 42.5);
  w.Count<metric::kStageDurationSeconds>(labels, 3);
  const std::string l = "component=\"tikv\",stage=\"initializing\",class=\"dependency\"";
  EXPECT_EQ(out, "podwait_stage_duration_seconds_bucket{" + l + ",le=\"10\"} 1\n" +
                     "podwait_stage_duration_seconds_bucket{" + l + ",le=\"+Inf\"} 3\n" +
                     "podwait_stage_duration_seconds_sum{" + l + "} 42.5\n" +
                     "podwait_stage_duration_seconds_count{" + l + "} 3\n");
}

TEST(TextWriter, PromLabelsNameTheValuesByTheRow) {
  prometheus::Labels labels = PromLabels<metric::kWatchEvents>({"pods", "ADDED"});
  EXPECT_THAT(labels, ::testing::ElementsAre(::testing::Pair("resource", "pods"),
                                             ::testing::Pair("type", "ADDED")));
}

}  // namespace
}  // namespace podwait
