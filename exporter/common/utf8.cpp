#include "exporter/common/utf8.h"

#include <utf8.h>

#include <iterator>

namespace podwait {
namespace {

std::atomic<uint64_t> g_invalid[static_cast<int>(Utf8Output::kCount)];

// ASCII needs no decoding: most label values are ASCII, so this is the fast path.
bool IsAscii(std::string_view s) {
  unsigned char any = 0;
  for (char c : s) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

}  // namespace

const char* Utf8OutputName(Utf8Output output) {
  switch (output) {
    case Utf8Output::kMetrics:
      return "metrics";
    case Utf8Output::kJson:
      return "json";
    case Utf8Output::kCount:
      break;
  }
  return "unknown";
}

bool IsValidUtf8(std::string_view s) {
  return IsAscii(s) || utf8::find_invalid(s.begin(), s.end()) == s.end();
}

bool AppendValidUtf8(std::string* out, std::string_view s, Utf8Output output) {
  if (IsValidUtf8(s)) {
    out->append(s);
    return true;
  }
  utf8::replace_invalid(s.begin(), s.end(), std::back_inserter(*out));
  g_invalid[static_cast<int>(output)].fetch_add(1, std::memory_order_relaxed);
  return false;
}

std::string_view ValidUtf8(std::string_view s, std::string* scratch, Utf8Output output) {
  if (IsValidUtf8(s)) return s;
  scratch->clear();
  AppendValidUtf8(scratch, s, output);
  return *scratch;
}

uint64_t InvalidUtf8Strings(Utf8Output output) {
  return g_invalid[static_cast<int>(output)].load(std::memory_order_relaxed);
}

}  // namespace podwait
