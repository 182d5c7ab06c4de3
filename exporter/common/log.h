#pragma once

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace podwait {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
enum class LogFormat { kLogfmt, kJson };

std::optional<LogLevel> ParseLogLevel(std::string_view text);
std::optional<LogFormat> ParseLogFormat(std::string_view text);

// Process-wide logging setup; call once before threads start. Default: info, logfmt, stderr.
void ConfigureLogging(LogLevel level, LogFormat format, std::FILE* out = stderr);
bool LogEnabled(LogLevel level);

struct LogField {
  std::string_view key;
  std::string value;
};

// Writes one structured line (ts, level, msg, fields) if `level` is enabled. Thread-safe; one
// write per line so lines from different threads never interleave. Never log secrets.
void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {});

inline void LogDebug(std::string_view msg, std::initializer_list<LogField> fields = {}) {
  if (LogEnabled(LogLevel::kDebug)) Log(LogLevel::kDebug, msg, fields);
}
inline void LogInfo(std::string_view msg, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kInfo, msg, fields);
}
inline void LogWarn(std::string_view msg, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kWarn, msg, fields);
}
inline void LogError(std::string_view msg, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kError, msg, fields);
}

// Formats one line without writing it (exposed for tests).
std::string FormatLogLine(LogFormat format, std::string_view ts, LogLevel level,
                          std::string_view msg, std::initializer_list<LogField> fields);

}  // namespace podwait
