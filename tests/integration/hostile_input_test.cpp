// Hostile input against the real binaries and the simulator: a PD that answers 1,000,000 nested
// arrays, a PD body over the size limit, and bytes that are not UTF-8 in a PD store's state and
// in a pod's name. None may take a process down or break a scrape.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <chrono>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

constexpr const char* kBad = "\xff\xfe";  // never valid in UTF-8

std::string PdOp(const std::string& spec) {
  return R"({"pd":{"namespace":"demo","cluster":"demo",)" + spec + "}}";
}

// Defect 2: a recursive parser overflowed its stack on this answer and killed the exporter
// through its prober thread.
TEST(HostileInput, DeeplyNestedPdAnswerIsAParseErrorNotACrash) {
  SimAndExporter stack("tests/scenarios/demo.json");
  ASSERT_EQ(stack.SimPost("/_sim/apply", PdOp(R"("fault":"deep")")), 200);
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_probe_errors_total",
                           {{"endpoint", "health"}, {"kind", "parse"}}) >= 2;
      },
      30, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_TRUE(stack.exporter().Running());
  EXPECT_EQ(HttpGet(stack.exporter_port(), "/healthz").status, 200);
  EXPECT_THAT(stack.exporter().ReadLog(), HasSubstr("nesting deeper than 64 levels"));
}

// The same answer against wait-for-pd: exit 1 with a reason, not 139 (SIGSEGV). The deadline is
// generous: under a sanitizer on a loaded machine one 2 MB answer can take more than a second.
TEST(HostileInput, WaitForPdSurvivesADeeplyNestedAnswer) {
  SimAndExporter stack("tests/scenarios/demo.json", {}, /*start_exporter=*/false);
  ASSERT_EQ(stack.SimPost("/_sim/apply", PdOp(R"("fault":"deep")")), 200);
  const std::string log = MakeTempDir() + "/termination-log";
  std::string out;
  EXPECT_EQ(RunCommand(
                {BinaryPath("wait-for-pd"), "--leader", "--timeout=10s", "--pd.interval=500ms",
                 "--termination-log=" + log,
                 "--pd.url=http://127.0.0.1:" + std::to_string(stack.sim_port()) + "/pd/demo/demo"},
                &out),
            1)
      << out;
  EXPECT_THAT(ReadFile(log), HasSubstr("nesting deeper than 64 levels")) << out;
}

// Defect 5: a body over the PD client's 8 MiB limit was counted as kind="connect".
TEST(HostileInput, PdBodyOverTheLimitCountsAsTooLarge) {
  SimAndExporter stack("tests/scenarios/demo.json");
  ASSERT_EQ(stack.SimPost("/_sim/apply", PdOp(R"("fault":"huge")")), 200);
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_probe_errors_total",
                           {{"endpoint", "health"}, {"kind", "too_large"}}) >= 1;
      },
      30, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_TRUE(FindSamples(text, "podwait_probe_errors_total", {{"kind", "connect"}}).empty())
      << text;
}

// Defect 4: raw 0xFF 0xFE in a PD store's state_name and in a pod's name were copied into
// /metrics (promtool and Prometheus reject the whole exposition) and into the JSON view.
TEST(HostileInput, InvalidUtf8NeverReachesTheScrapeOrTheJsonView) {
  SimAndExporter stack("tests/scenarios/demo.json");
  const std::string bad_state = std::string("Up") + kBad;
  ASSERT_EQ(
      stack.SimPost("/_sim/apply",
                    PdOp(R"("state":"initialized","stores":[{"id":1,"state":"Up","stateName":")" +
                         bad_state + R"(","pod":"demo-tikv-0"}])")),
      200)
      << stack.sim().ReadLog();
  const std::string bad_pod = std::string("demo-tikv-") + kBad;
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"({"pod":{"namespace":"demo","name":")" + bad_pod +
                                             R"(","stage":"unschedulable","created":"-1m"}})"),
            200)
      << stack.sim().ReadLog();
  const std::string replaced = "\xef\xbf\xbd";  // U+FFFD
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        // A state PD never names (here with bytes that are not UTF-8) is "other".
        return !FindSamples(t, "podwait_tikv_stores", {{"state", "other"}}).empty() &&
               !FindSamples(t, "podwait_pod_waiting_seconds",
                            {{"pod", "demo-tikv-" + replaced + replaced}})
                    .empty();
      },
      30, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_THAT(text, Not(HasSubstr(kBad)));
  EXPECT_GT(SampleValue(text, "podwait_invalid_utf8_total", {{"output", "metrics"}}), 0);
  std::string out;
  EXPECT_EQ(RunCommand({"promtool", "check", "metrics"}, &out, text), 0) << out;

  HttpResult pods = HttpGet(stack.exporter_port(), "/api/v1/pods");
  ASSERT_EQ(pods.status, 200);
  EXPECT_THAT(pods.body, Not(HasSubstr(kBad)));
  EXPECT_THAT(pods.body, HasSubstr("demo-tikv-" + replaced + replaced));
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(pods.body.c_str(), pods.body.size());
  EXPECT_FALSE(doc.HasParseError()) << rapidjson::GetParseError_En(doc.GetParseError());
  EXPECT_GT(SampleValue(stack.Scrape(), "podwait_invalid_utf8_total", {{"output", "json"}}), 0);
}

}  // namespace
}  // namespace podwait::testing
