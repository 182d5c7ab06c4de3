// Bounded reads of whole inputs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "exporter/common/file.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

TEST(ReadStreamLimited, ReadsUpToTheLimitAndRefusesMore) {
  std::istringstream exact(std::string(3 << 20, 'a'));
  Result<std::string> text = ReadStreamLimited(exact, 3 << 20);
  ASSERT_TRUE(text.ok()) << text.error;
  EXPECT_EQ(text->size(), size_t{3} << 20);

  std::istringstream over(std::string((3 << 20) + 1, 'a'));
  text = ReadStreamLimited(over, 3 << 20);
  EXPECT_FALSE(text.ok());
  EXPECT_EQ(text.error, "larger than the limit of 3 MiB");

  std::istringstream empty("");
  text = ReadStreamLimited(empty, 10);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "");
}

TEST(ReadFileLimited, AnEndlessDeviceStopsAtTheLimit) {
  Result<std::string> text = ReadFileLimited("/dev/zero", 2 << 20);
  EXPECT_FALSE(text.ok());
  EXPECT_THAT(text.error, HasSubstr("larger than the limit of 2 MiB"));
  text = ReadFileLimited("/nonexistent/x", 2 << 20);
  EXPECT_FALSE(text.ok());
  EXPECT_EQ(text.error, "No such file or directory");
}

TEST(ReadWholeFile, ReadsAFileOrSaysWhyNot) {
  Result<std::string> text = ReadWholeFile("/nonexistent/x");
  EXPECT_FALSE(text.ok());
  EXPECT_EQ(text.error, "No such file or directory");
  text = ReadWholeFile("/proc/self/cmdline");
  EXPECT_TRUE(text.ok()) << text.error;
}

}  // namespace
}  // namespace podwait
