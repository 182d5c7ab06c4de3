#include "exporter/metrics/text_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#include "exporter/common/utf8.h"

namespace podwait {

void TextWriter::Family(std::string_view name, std::string_view help, std::string_view type) {
  out_->append("# HELP ").append(name).append(" ");
  // HELP text escapes only backslash and newline.
  for (char c : help) {
    if (c == '\\') {
      out_->append("\\\\");
    } else if (c == '\n') {
      out_->append("\\n");
    } else {
      out_->push_back(c);
    }
  }
  out_->append("\n# TYPE ").append(name).append(" ").append(type).append("\n");
}

namespace {

// Bytes a label value cannot hold as they are: \, " and newline (escaped), and every byte of a
// multi-byte UTF-8 sequence (checked, and repaired when ill-formed).
constexpr auto kSpecial = [] {
  std::array<bool, 256> t{};
  for (int c = 0x80; c < 256; ++c) t[c] = true;
  t['\\'] = t['"'] = t['\n'] = true;
  return t;
}();

bool IsPlain(std::string_view value) {
  for (char c : value) {
    if (kSpecial[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

}  // namespace

void TextWriter::AppendEscaped(std::string* out, std::string_view value) {
  // The common case — ASCII without anything to escape (names, namespaces, reasons) — is one
  // append.
  if (IsPlain(value)) {
    out->append(value);
    return;
  }
  std::string repaired;
  value = ValidUtf8(value, &repaired, Utf8Output::kMetrics);
  for (char c : value) {
    switch (c) {
      case '\\':
        out->append("\\\\");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\n':
        out->append("\\n");
        break;
      default:
        out->push_back(c);
    }
  }
}

void TextWriter::AppendValue(std::string* out, double value) {
  if (std::isnan(value)) {
    out->append("NaN");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
  } else {
    char buf[32];
    // Whole numbers (counts, Unix seconds) as integers, like Prometheus' own clients; the shortest
    // round-trip form would write 1.7e+09 for a timestamp.
    const bool whole = value == std::trunc(value) && std::fabs(value) < 1e15;
    auto [end, ec] = whole ? std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(value))
                           : std::to_chars(buf, buf + sizeof(buf), value);
    out->append(buf, ec == std::errc() ? end : buf);
  }
}

void TextWriter::Labels(const std::string_view* names, const std::string_view* values, size_t n,
                        const Label* extra) {
  if (n == 0 && extra == nullptr) return;
  // Plain labels (nearly all) are written in one go into space made for them at once.
  size_t size = 2;
  bool plain = true;
  auto measure = [&](std::string_view name, std::string_view value) {
    size += name.size() + value.size() + 4;  // k="v",
    plain = plain && IsPlain(value);
  };
  for (size_t i = 0; i < n; ++i) measure(names[i], values[i]);
  if (extra != nullptr) measure(extra->first, extra->second);
  if (plain) {
    const size_t at = out_->size();
    out_->resize(at + size - 1);  // one comma fewer than labels
    char* p = out_->data() + at;
    *p++ = '{';
    bool first = true;
    auto put = [&](std::string_view name, std::string_view value) {
      if (!first) *p++ = ',';
      first = false;
      std::memcpy(p, name.data(), name.size());
      p += name.size();
      *p++ = '=';
      *p++ = '"';
      std::memcpy(p, value.data(), value.size());
      p += value.size();
      *p++ = '"';
    };
    for (size_t i = 0; i < n; ++i) put(names[i], values[i]);
    if (extra != nullptr) put(extra->first, extra->second);
    *p++ = '}';
    return;
  }
  out_->push_back('{');
  bool first = true;
  auto one = [&](std::string_view name, std::string_view value) {
    if (!first) out_->push_back(',');
    first = false;
    out_->append(name).append("=\"");
    AppendEscaped(out_, value);
    out_->push_back('"');
  };
  for (size_t i = 0; i < n; ++i) one(names[i], values[i]);
  if (extra != nullptr) one(extra->first, extra->second);
  out_->push_back('}');
}

void TextWriter::Write(std::string_view name, std::string_view suffix,
                       const std::string_view* names, const std::string_view* values, size_t n,
                       const Label* extra, double value) {
  out_->append(name).append(suffix);
  Labels(names, values, n, extra);
  out_->push_back(' ');
  AppendValue(out_, value);
  out_->push_back('\n');
}

}  // namespace podwait
