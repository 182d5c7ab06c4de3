#include "exporter/common/log.h"

#include <atomic>
#include <mutex>

#include "exporter/common/clock.h"
#include "exporter/common/json_escape.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::atomic<int> g_format{static_cast<int>(LogFormat::kLogfmt)};
std::atomic<std::FILE*> g_out{nullptr};
std::mutex g_write_mu;

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

bool NeedsQuoting(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void AppendLogfmt(std::string& out, std::string_view key, std::string_view value) {
  if (!out.empty()) out += ' ';
  out += key;
  out += '=';
  if (NeedsQuoting(value)) {
    out += '"';
    AppendJsonEscaped(out, value);
    out += '"';
  } else {
    out += value;
  }
}

void AppendJson(std::string& out, std::string_view key, std::string_view value) {
  out += out.size() > 1 ? ",\"" : "\"";
  AppendJsonEscaped(out, key);
  out += "\":\"";
  AppendJsonEscaped(out, value);
  out += '"';
}

}  // namespace

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  if (text == "debug") return LogLevel::kDebug;
  if (text == "info") return LogLevel::kInfo;
  if (text == "warn") return LogLevel::kWarn;
  if (text == "error") return LogLevel::kError;
  return std::nullopt;
}

std::optional<LogFormat> ParseLogFormat(std::string_view text) {
  if (text == "logfmt") return LogFormat::kLogfmt;
  if (text == "json") return LogFormat::kJson;
  return std::nullopt;
}

void ConfigureLogging(LogLevel level, LogFormat format, std::FILE* out) {
  g_level = static_cast<int>(level);
  g_format = static_cast<int>(format);
  g_out = out;
}

bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= g_level.load(); }

std::string FormatLogLine(LogFormat format, std::string_view ts, LogLevel level,
                          std::string_view msg, std::initializer_list<LogField> fields) {
  std::string line;
  line.reserve(128);
  if (format == LogFormat::kJson) {
    line += '{';
    AppendJson(line, "ts", ts);
    AppendJson(line, "level", LevelName(level));
    AppendJson(line, "msg", msg);
    for (const auto& f : fields) AppendJson(line, f.key, f.value);
    line += "}\n";
  } else {
    AppendLogfmt(line, "ts", ts);
    AppendLogfmt(line, "level", LevelName(level));
    AppendLogfmt(line, "msg", msg);
    for (const auto& f : fields) AppendLogfmt(line, f.key, f.value);
    line += '\n';
  }
  return line;
}

void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields) {
  if (!LogEnabled(level)) return;
  const std::string ts = FormatRfc3339(SystemClock::Instance().Now());
  const std::string line =
      FormatLogLine(static_cast<LogFormat>(g_format.load()), ts, level, msg, fields);
  std::FILE* out = g_out.load();
  if (out == nullptr) out = stderr;
  std::lock_guard<std::mutex> lock(g_write_mu);
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

}  // namespace podwait
