#include "exporter/common/time_format.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace podwait {
namespace {

bool ReadDigits(std::string_view text, size_t pos, size_t count, int* out) {
  if (pos + count > text.size()) return false;
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

namespace {
std::atomic<uint64_t> g_implausible{0};
}  // namespace

Timestamp PlausibleTime(Timestamp t) {
  if (t == 0 || t >= kEarliestPlausibleTime) return t;
  g_implausible.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

Timestamp NotInTheFuture(Timestamp t, Timestamp now, Timestamp max_skew) {
  if (t == 0 || now == 0 || t <= now + max_skew) return t;
  g_implausible.fetch_add(1, std::memory_order_relaxed);
  return now;
}

uint64_t ImplausibleTimestamps() { return g_implausible.load(std::memory_order_relaxed); }

std::optional<Timestamp> ParseRfc3339(std::string_view text) {
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || !ReadDigits(text, 0, 4, &year) || text[4] != '-' ||
      !ReadDigits(text, 5, 2, &month) || text[7] != '-' || !ReadDigits(text, 8, 2, &day) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !ReadDigits(text, 11, 2, &hour) ||
      text[13] != ':' || !ReadDigits(text, 14, 2, &minute) || text[16] != ':' ||
      !ReadDigits(text, 17, 2, &second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (digits < 3) millis = millis * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i) millis *= 10;
  }
  int64_t offset_seconds = 0;
  if (pos >= text.size()) return std::nullopt;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    int oh, om;
    if (!ReadDigits(text, pos + 1, 2, &oh) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !ReadDigits(text, pos + 4, 2, &om)) {
      return std::nullopt;
    }
    offset_seconds = (oh * 3600 + om * 60) * (text[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  const int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  return seconds * 1000 + millis;
}

std::string FormatRfc3339(Timestamp t) {
  const int64_t secs = t >= 0 ? t / 1000 : (t - 999) / 1000;
  const int64_t millis = t - secs * 1000;
  std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[96];
  if (millis == 0) {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  } else {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(millis));
  }
  return buf;
}

namespace {
// 1000 years in milliseconds.
constexpr double kMaxDurationMs = 1000.0 * 365 * 86'400'000;
}  // namespace

std::optional<Timestamp> ParseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text == "0") return 0;
  double total = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t start = pos;
    while (pos < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) {
      ++pos;
    }
    if (pos == start) return std::nullopt;
    std::string number(text.substr(start, pos - start));
    char* end = nullptr;
    double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return std::nullopt;
    size_t unit_start = pos;
    while (pos < text.size() && std::isalpha(static_cast<unsigned char>(text[pos]))) ++pos;
    std::string_view unit = text.substr(unit_start, pos - unit_start);
    double scale;
    if (unit == "ms") {
      scale = 1;
    } else if (unit == "s") {
      scale = 1000;
    } else if (unit == "m") {
      scale = 60'000;
    } else if (unit == "h") {
      scale = 3'600'000;
    } else if (unit == "d") {
      scale = 86'400'000;
    } else {
      return std::nullopt;
    }
    total += value * scale;
    // Longer than any duration podwait has a use for (and than an int64 of milliseconds holds):
    // not a duration.
    if (!(total <= kMaxDurationMs)) return std::nullopt;
  }
  return static_cast<Timestamp>(total + 0.5);
}

std::string FormatDuration(Timestamp ms) {
  if (ms < 0) ms = 0;
  int64_t s = ms / 1000;
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof(buf), "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(buf, sizeof(buf), "%lldm%llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else if (s < 86400) {
    std::snprintf(buf, sizeof(buf), "%lldh%lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>((s % 3600) / 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%lldd%lldh", static_cast<long long>(s / 86400),
                  static_cast<long long>((s % 86400) / 3600));
  }
  return buf;
}

}  // namespace podwait
