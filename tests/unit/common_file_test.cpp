// Bounded reads of whole inputs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "exporter/common/file.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

TEST(ReadStreamLimited, ReadsUpToTheLimitAndRefusesMore) {
  std::string text, error;
  std::istringstream exact(std::string(3 << 20, 'a'));
  ASSERT_TRUE(ReadStreamLimited(exact, 3 << 20, &text, &error)) << error;
  EXPECT_EQ(text.size(), size_t{3} << 20);

  std::istringstream over(std::string((3 << 20) + 1, 'a'));
  EXPECT_FALSE(ReadStreamLimited(over, 3 << 20, &text, &error));
  EXPECT_EQ(error, "larger than the limit of 3 MiB");
  EXPECT_TRUE(text.empty());

  std::istringstream empty("");
  EXPECT_TRUE(ReadStreamLimited(empty, 10, &text, &error));
  EXPECT_EQ(text, "");
}

TEST(ReadFileLimited, AnEndlessDeviceStopsAtTheLimit) {
  std::string text, error;
  EXPECT_FALSE(ReadFileLimited("/dev/zero", 2 << 20, &text, &error));
  EXPECT_THAT(error, HasSubstr("larger than the limit of 2 MiB"));
  EXPECT_FALSE(ReadFileLimited("/nonexistent/x", 2 << 20, &text, &error));
  EXPECT_EQ(error, "No such file or directory");
}

}  // namespace
}  // namespace podwait
