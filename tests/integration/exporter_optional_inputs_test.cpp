// The optional inputs that are off, as an operator reads them at start (issue: "quiet at
// start"): against a v1-only cluster (no tidb-operator v2 CRDs, no Karpenter, no
// ProvisioningRequests: tests/scenarios/real-shapes.json) one line names them and why, where
// there was a line per resource (30), and podwait_input_enabled{input} says each; an input the
// account may not read is named forbidden.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The log's lines about optional inputs that are off (at the default level, info).
std::vector<std::string> OffLines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("not served") != std::string::npos ||
        line.find("forbidden") != std::string::npos ||
        line.find("not permitted") != std::string::npos ||
        line.find("optional input") != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

bool InputsReported(const std::string& text) {
  for (const char* input : {"tidbclusters", "v2", "ca_status", "volumes", "nodeclaims",
                            "provisioningrequests", "dmclusters"}) {
    if (FindSamples(text, "podwait_input_enabled", {{"input", input}}).size() != 1) return false;
  }
  return true;
}

TEST(ExporterOptionalInputs, OneLineForTheInputsOffInAV1OnlyCluster) {
  SimAndExporter stack("tests/scenarios/real-shapes.json", {"--log.level=info"});
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return InputsReported(t) && OffLines(stack.exporter().ReadLog()).size() >= 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  const std::string log = stack.exporter().ReadLog();
  const std::vector<std::string> lines = OffLines(log);
  ASSERT_EQ(lines.size(), 1u) << log;
  EXPECT_THAT(lines[0], HasSubstr("msg=\"optional inputs off; podwait classifies without them\""));
  EXPECT_THAT(lines[0], HasSubstr("off=\"v2 (not served), nodeclaims (not served), "
                                  "provisioningrequests (not served), dmclusters (not served)\""));
  EXPECT_THAT(log, Not(HasSubstr("level=debug")));
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "v2"}}), 0);
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "nodeclaims"}}), 0);
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "provisioningrequests"}}), 0);
  // The simulator's v1 world serves no DMCluster CRD (tidb-operator installs it with the others).
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "dmclusters"}}), 0);
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "tidbclusters"}}), 1);
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "volumes"}}), 1);
  EXPECT_EQ(SampleValue(text, "podwait_input_enabled", {{"input", "ca_status"}}), 1);
}

// The volumes are an input the account may be refused (the claims and the cluster-scoped
// PersistentVolumes): a 403 to their lists is named forbidden, in the same line.
TEST(ExporterOptionalInputs, AForbiddenInputIsNamedSo) {
  SimAndExporter stack("tests/scenarios/real-shapes.json", {"--log.level=info"},
                       /*start_exporter=*/false);
  for (const std::string resource : {"persistentvolumeclaims", "persistentvolumes"}) {
    const std::string fault =
        R"({"fault":"status","code":403,"count":1000,"resource":")" + resource + R"("})";
    ASSERT_EQ(stack.SimPost("/_sim/fault", fault), 200) << resource;
  }
  stack.StartExporter();
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_input_enabled", {{"input", "volumes"}}) == 0 &&
               OffLines(stack.exporter().ReadLog()).size() >= 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  const std::vector<std::string> lines = OffLines(stack.exporter().ReadLog());
  ASSERT_EQ(lines.size(), 1u) << stack.exporter().ReadLog();
  EXPECT_THAT(lines[0], HasSubstr("volumes (forbidden)"));
  EXPECT_THAT(lines[0], HasSubstr("v2 (not served)"));
}

}  // namespace
}  // namespace podwait::testing
