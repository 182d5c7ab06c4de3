#pragma once

// Valid UTF-8 on every output: label values in /metrics and strings in the JSON the exporter
// writes. Strings arrive from many places (PD, the API server, YAML, flags, truncated messages),
// so they are made valid where they are written, not where they enter: an ill-formed sequence
// becomes U+FFFD (utfcpp's replace_invalid), and every string that needed it is counted.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace podwait {

// Where a string with invalid UTF-8 was written (the `output` label of
// podwait_invalid_utf8_total).
enum class Utf8Output { kMetrics, kJson, kCount };
const char* Utf8OutputName(Utf8Output output);

// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool IsValidUtf8(std::string_view s);

// Appends `s` to *out with every ill-formed sequence replaced by U+FFFD. Returns false (and
// counts one string for `output`) when something was replaced.
bool AppendValidUtf8(std::string* out, std::string_view s, Utf8Output output);

// `s` itself when it is valid (no copy into *scratch), else a repaired copy held in *scratch.
std::string_view ValidUtf8(std::string_view s, std::string* scratch, Utf8Output output);

// Strings written with invalid UTF-8 since the start, per output. Thread-safe.
uint64_t InvalidUtf8Strings(Utf8Output output);

}  // namespace podwait
