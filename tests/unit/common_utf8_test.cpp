// Repairing invalid UTF-8 on output: what is replaced, what is kept, and the count.

#include <gtest/gtest.h>

#include "exporter/common/json_escape.h"
#include "exporter/common/utf8.h"

namespace podwait {
namespace {

constexpr const char* kReplacement = "\xef\xbf\xbd";

std::string Repaired(std::string_view s) {
  std::string out;
  AppendValidUtf8(&out, s, Utf8Output::kMetrics);
  return out;
}

TEST(Utf8, ValidTextIsKeptByteForByte) {
  for (std::string_view s : {"", "demo-tikv-0", "Grüße", "東京-pd-0", "\xf0\x9f\x98\x80"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
    EXPECT_EQ(Repaired(s), s);
  }
}

TEST(Utf8, InvalidSequencesBecomeTheReplacementCharacter) {
  EXPECT_FALSE(IsValidUtf8("Up\xff\xfe"));
  EXPECT_EQ(Repaired("Up\xff\xfe"), std::string("Up") + kReplacement + kReplacement);
  // A lead byte cut off by truncation, an overlong '/', a UTF-16 surrogate.
  EXPECT_EQ(Repaired("ab\xe6\x9d"), std::string("ab") + kReplacement);
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));
  // The byte after a broken sequence is read again: quotes and newlines survive as themselves.
  EXPECT_EQ(Repaired("\xe6\"x"), std::string(kReplacement) + "\"x");
}

TEST(Utf8, CountsEachRepairedStringPerOutput) {
  const uint64_t metrics = InvalidUtf8Strings(Utf8Output::kMetrics);
  const uint64_t json = InvalidUtf8Strings(Utf8Output::kJson);
  std::string scratch;
  EXPECT_EQ(ValidUtf8("fine", &scratch, Utf8Output::kMetrics), "fine");
  EXPECT_EQ(InvalidUtf8Strings(Utf8Output::kMetrics), metrics);
  EXPECT_EQ(ValidUtf8("\xff", &scratch, Utf8Output::kMetrics), kReplacement);
  EXPECT_EQ(InvalidUtf8Strings(Utf8Output::kMetrics), metrics + 1);
  EXPECT_EQ(JsonEscaped("a\xfe\"b"), std::string("a") + kReplacement + "\\\"b");
  EXPECT_EQ(InvalidUtf8Strings(Utf8Output::kJson), json + 1);
}

}  // namespace
}  // namespace podwait
