#pragma once

#include <string>
#include <string_view>

namespace podwait {

// Appends `value` escaped for the inside of a JSON string (quote, backslash, control characters
// as \n, \r, \t or \u00XX; invalid UTF-8 becomes U+FFFD and is counted). Logfmt's quoted
// values use the same rules.
void AppendJsonEscaped(std::string& out, std::string_view value);

inline std::string JsonEscaped(std::string_view value) {
  std::string out;
  out.reserve(value.size() + 2);
  AppendJsonEscaped(out, value);
  return out;
}

}  // namespace podwait
