#include <gtest/gtest.h>

#include "exporter/common/log.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

TEST(Rfc3339, ParsesKubernetesTimestamps) {
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseRfc3339("2023-05-02T10:11:12Z"), 1683022272000);
  EXPECT_EQ(ParseRfc3339("2023-05-02T10:11:12.345678Z"), 1683022272345);
  EXPECT_EQ(ParseRfc3339("2023-05-02T12:11:12+02:00"), 1683022272000);
  EXPECT_EQ(ParseRfc3339("2024-02-29T00:00:00Z"), 1709164800000);
}

TEST(Rfc3339, RejectsMalformed) {
  EXPECT_FALSE(ParseRfc3339(""));
  EXPECT_FALSE(ParseRfc3339("2023-05-02"));
  EXPECT_FALSE(ParseRfc3339("2023-05-02T10:11:12"));
  EXPECT_FALSE(ParseRfc3339("2023-13-02T10:11:12Z"));
  EXPECT_FALSE(ParseRfc3339("2023-05-02T10:11:12Zjunk"));
  EXPECT_FALSE(ParseRfc3339("2023-05-02T10:11:12.Z"));
}

TEST(Rfc3339, RoundTrips) {
  EXPECT_EQ(FormatRfc3339(1683022272000), "2023-05-02T10:11:12Z");
  EXPECT_EQ(FormatRfc3339(1683022272345), "2023-05-02T10:11:12.345Z");
  EXPECT_EQ(ParseRfc3339(FormatRfc3339(1700000000123)), 1700000000123);
}

TEST(Duration, ParsesGoStyle) {
  EXPECT_EQ(ParseDuration("0"), 0);
  EXPECT_EQ(ParseDuration("90s"), 90000);
  EXPECT_EQ(ParseDuration("1h30m"), 5400000);
  EXPECT_EQ(ParseDuration("1.5m"), 90000);
  EXPECT_EQ(ParseDuration("250ms"), 250);
  EXPECT_FALSE(ParseDuration(""));
  EXPECT_FALSE(ParseDuration("10"));
  EXPECT_FALSE(ParseDuration("-5s"));
  EXPECT_FALSE(ParseDuration("5 s"));
  EXPECT_FALSE(ParseDuration("5x"));
}

// Found by the web_config fuzz target (a rate_limit interval of 1e106 ms): a duration beyond any
// use, and beyond an int64 of milliseconds, is not a duration (it was undefined behaviour).
TEST(Duration, TooLongIsRejectedNotOverflowed) {
  EXPECT_FALSE(ParseDuration(std::string(107, '9') + "ms"));
  EXPECT_FALSE(ParseDuration("9999999999999999999h"));
  EXPECT_FALSE(ParseDuration("1001.0.0s"));
  EXPECT_EQ(ParseDuration("8760h"), 8760LL * 3'600'000);
}

TEST(Duration, FormatsLikeKubectl) {
  EXPECT_EQ(FormatDuration(45 * kSecond), "45s");
  EXPECT_EQ(FormatDuration(192 * kSecond), "3m12s");
  EXPECT_EQ(FormatDuration(125 * kMinute), "2h5m");
  EXPECT_EQ(FormatDuration(76 * 60 * kMinute), "3d4h");
}

TEST(Log, LogfmtQuotesAndEscapes) {
  EXPECT_EQ(FormatLogLine(LogFormat::kLogfmt, "T", LogLevel::kWarn, "a b",
                          {{"k", "v"}, {"q", "say \"hi\"\n"}, {"e", ""}}),
            "ts=T level=warn msg=\"a b\" k=v q=\"say \\\"hi\\\"\\n\" e=\"\"\n");
}

TEST(Log, JsonIsOneObjectPerLine) {
  EXPECT_EQ(FormatLogLine(LogFormat::kJson, "T", LogLevel::kInfo, "m", {{"k", "a\"b"}}),
            "{\"ts\":\"T\",\"level\":\"info\",\"msg\":\"m\",\"k\":\"a\\\"b\"}\n");
}

TEST(Log, LevelsFilter) {
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_FALSE(ParseLogLevel("verbose"));
  ConfigureLogging(LogLevel::kWarn, LogFormat::kLogfmt);
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
  ConfigureLogging(LogLevel::kInfo, LogFormat::kLogfmt);
}

}  // namespace
}  // namespace podwait
