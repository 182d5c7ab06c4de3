#include "exporter/common/json_escape.h"

#include <cstdio>

#include "exporter/common/utf8.h"

namespace podwait {

void AppendJsonEscaped(std::string& out, std::string_view value) {
  std::string repaired;
  value = ValidUtf8(value, &repaired, Utf8Output::kJson);
  for (char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
}

}  // namespace podwait
