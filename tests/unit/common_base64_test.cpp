// base64 as the kubeconfig's *-data fields and the simulator's continue tokens use it.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "exporter/common/base64.h"

namespace podwait {
namespace {

// RFC 4648 §10.
const std::pair<const char*, const char*> kVectors[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

TEST(Base64, EncodesAndDecodesTheRfc4648Vectors) {
  for (const auto& [plain, encoded] : kVectors) {
    EXPECT_EQ(Base64Encode(plain), encoded) << plain;
    EXPECT_EQ(Base64Decode(encoded), plain) << encoded;
  }
}

TEST(Base64, RoundTripsEveryByteValue) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t len : {0u, 1u, 2u, 3u, 254u, 255u, 256u}) {
    const std::string data = all.substr(0, len);
    EXPECT_EQ(Base64Decode(Base64Encode(data)), data) << len;
  }
  EXPECT_EQ(Base64Encode("\xfb\xff"), "+/8=");
}

TEST(Base64, SkipsLineBreaksAndSpaces) {
  // As a certificate folded at 64 columns, or a value pasted with a trailing newline.
  EXPECT_EQ(Base64Decode("Zm9v\nYmFy\n"), "foobar");
  EXPECT_EQ(Base64Decode(" Zm9v\r\n\tYmE= "), "fooba");
}

TEST(Base64, RejectsWhatIsNotPaddedStandardBase64) {
  EXPECT_EQ(Base64Decode("Zm9vYmE"), std::nullopt);   // missing padding
  EXPECT_EQ(Base64Decode("Zg="), std::nullopt);       // short padding
  EXPECT_EQ(Base64Decode("Z==="), std::nullopt);      // too much padding
  EXPECT_EQ(Base64Decode("Zg==Zg=="), std::nullopt);  // data after the padding
  EXPECT_EQ(Base64Decode("Zm=v"), std::nullopt);      // padding inside a group
  EXPECT_EQ(Base64Decode("Zm9v!mFy"), std::nullopt);  // outside the alphabet
  EXPECT_EQ(Base64Decode("-_8="), std::nullopt);      // the URL alphabet
  EXPECT_EQ(Base64Decode(std::string("Zm9v\0", 5)), std::nullopt);
  EXPECT_EQ(Base64Decode("not base64 at all"), std::nullopt);
}

}  // namespace
}  // namespace podwait
