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

void TextWriter::Labels(std::initializer_list<Label> labels, const Label* extra) {
  if (labels.size() == 0 && extra == nullptr) return;
  // Plain labels (nearly all) are written in one go into space made for them at once.
  size_t size = 2;
  bool plain = true;
  auto measure = [&](const Label& l) {
    size += l.first.size() + l.second.size() + 4;  // k="v",
    plain = plain && IsPlain(l.second);
  };
  for (const Label& l : labels) measure(l);
  if (extra != nullptr) measure(*extra);
  if (plain) {
    const size_t at = out_->size();
    out_->resize(at + size - 1);  // one comma fewer than labels
    char* p = out_->data() + at;
    *p++ = '{';
    bool first = true;
    auto put = [&](const Label& l) {
      if (!first) *p++ = ',';
      first = false;
      std::memcpy(p, l.first.data(), l.first.size());
      p += l.first.size();
      *p++ = '=';
      *p++ = '"';
      std::memcpy(p, l.second.data(), l.second.size());
      p += l.second.size();
      *p++ = '"';
    };
    for (const Label& l : labels) put(l);
    if (extra != nullptr) put(*extra);
    *p++ = '}';
    return;
  }
  out_->push_back('{');
  bool first = true;
  auto one = [&](const Label& l) {
    if (!first) out_->push_back(',');
    first = false;
    out_->append(l.first).append("=\"");
    AppendEscaped(out_, l.second);
    out_->push_back('"');
  };
  for (const Label& l : labels) one(l);
  if (extra != nullptr) one(*extra);
  out_->push_back('}');
}

void TextWriter::Sample(std::string_view name, std::initializer_list<Label> labels, double value) {
  out_->append(name);
  Labels(labels, nullptr);
  out_->push_back(' ');
  AppendValue(out_, value);
  out_->push_back('\n');
}

void TextWriter::Sample(std::string_view name, std::initializer_list<Label> labels, Label extra,
                        double value) {
  out_->append(name);
  Labels(labels, &extra);
  out_->push_back(' ');
  AppendValue(out_, value);
  out_->push_back('\n');
}

}  // namespace podwait
