#include "exporter/common/base64.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace podwait {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Value of each byte in the alphabet; -1 for bytes outside it.
constexpr std::array<int8_t, 256> MakeValues() {
  std::array<int8_t, 256> values{};
  for (auto& v : values) v = -1;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  return values;
}
constexpr std::array<int8_t, 256> kValues = MakeValues();

bool IsSpace(char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; }

}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (size_t i = 0; i < data.size(); i += 3) {
    const size_t n = std::min<size_t>(3, data.size() - i);
    uint32_t group = 0;
    for (size_t j = 0; j < 3; ++j) {
      group <<= 8;
      if (j < n) group |= static_cast<unsigned char>(data[i + j]);
    }
    for (size_t j = 0; j < 4; ++j) {
      out += j <= n ? kAlphabet[(group >> (18 - 6 * j)) & 63] : '=';
    }
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t group = 0;
  size_t in_group = 0;  // characters of the current group of four, padding included
  size_t padding = 0;
  bool done = false;  // a padded group ended the data
  for (char c : text) {
    if (IsSpace(c)) continue;
    if (done || (padding > 0 && c != '=')) return std::nullopt;
    int value = 0;
    if (c == '=') {
      // Padding fills the last one or two characters of the final group.
      if (in_group < 2) return std::nullopt;
      ++padding;
    } else {
      value = kValues[static_cast<unsigned char>(c)];
      if (value < 0) return std::nullopt;
    }
    group = (group << 6) | static_cast<uint32_t>(value);
    if (++in_group < 4) continue;
    for (size_t j = 0; j < 3 - padding; ++j) {
      out += static_cast<char>((group >> (16 - 8 * j)) & 0xff);
    }
    group = 0;
    in_group = 0;
    done = padding > 0;
  }
  if (in_group != 0) return std::nullopt;
  return out;
}

}  // namespace podwait
