#include "exporter/common/markdown.h"

#include <cctype>
#include <vector>

namespace podwait {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsBlank(std::string_view line) { return Trim(line).empty(); }

// A link target that cannot run script: relative, #fragment, http(s) or mailto.
bool SafeUrl(std::string_view url) {
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos) return true;
  const size_t slash = url.find_first_of("/?#");
  if (slash != std::string_view::npos && slash < colon) return true;
  const std::string_view scheme = url.substr(0, colon);
  return scheme == "http" || scheme == "https" || scheme == "mailto";
}

// Inline markup of one block's text.
std::string Inline(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '`') {
      const size_t end = s.find('`', i + 1);
      if (end != std::string_view::npos) {
        out += "<code>" + HtmlEscape(s.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    } else if (c == '*' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t end = s.find("**", i + 2);
      if (end != std::string_view::npos && end > i + 2) {
        out += "<strong>" + Inline(s.substr(i + 2, end - i - 2)) + "</strong>";
        i = end + 2;
        continue;
      }
    } else if (c == '*' && i + 1 < s.size() && s[i + 1] != ' ') {
      const size_t end = s.find('*', i + 1);
      if (end != std::string_view::npos && end > i + 1 && s[end - 1] != ' ') {
        out += "<em>" + Inline(s.substr(i + 1, end - i - 1)) + "</em>";
        i = end + 1;
        continue;
      }
    } else if (c == '[') {
      const size_t close = s.find("](", i + 1);
      const size_t end = close == std::string_view::npos ? close : s.find(')', close + 2);
      if (end != std::string_view::npos &&
          s.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
        const std::string_view url = s.substr(close + 2, end - close - 2);
        const std::string text = Inline(s.substr(i + 1, close - i - 1));
        if (SafeUrl(url)) {
          out += "<a href=\"" + HtmlEscape(url) + "\">" + text + "</a>";
        } else {
          out += text;
        }
        i = end + 1;
        continue;
      }
    }
    out += HtmlEscape(s.substr(i, 1));
    ++i;
  }
  return out;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// "| a | `b` |" -> {"a", "`b`"}.
std::vector<std::string_view> Cells(std::string_view row) {
  row = Trim(row);
  if (StartsWith(row, "|")) row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') row.remove_suffix(1);
  std::vector<std::string_view> cells;
  size_t start = 0;
  bool in_code = false;
  for (size_t i = 0; i <= row.size(); ++i) {
    if (i < row.size() && row[i] == '`') in_code = !in_code;
    if (i == row.size() || (row[i] == '|' && !in_code)) {
      cells.push_back(Trim(row.substr(start, i - start)));
      start = i + 1;
    }
  }
  return cells;
}

bool IsTableSeparator(std::string_view line) {
  line = Trim(line);
  if (!StartsWith(line, "|")) return false;
  for (char c : line) {
    if (c != '|' && c != '-' && c != ':' && c != ' ') return false;
  }
  return line.find('-') != std::string_view::npos;
}

size_t HeadingLevel(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '#') ++n;
  return n >= 1 && n <= 6 && n < line.size() && line[n] == ' ' ? n : 0;
}

bool IsListItem(std::string_view line) { return StartsWith(line, "- ") || StartsWith(line, "* "); }

class Renderer {
 public:
  explicit Renderer(std::string_view markdown) : lines_(Lines(markdown)) {}

  std::string Run() {
    while (i_ < lines_.size()) {
      const std::string_view line = lines_[i_];
      if (IsBlank(line)) {
        ++i_;
      } else if (StartsWith(line, "```")) {
        CodeBlock();
      } else if (const size_t level = HeadingLevel(line)) {
        const std::string_view text = Trim(line.substr(level));
        const std::string h = "h" + std::to_string(level);
        out_ += "<" + h + " id=\"" + HtmlEscape(HeadingSlug(text)) + "\">" + Inline(text) + "</" +
                h + ">\n";
        ++i_;
      } else if (StartsWith(Trim(line), "|") && i_ + 1 < lines_.size() &&
                 IsTableSeparator(lines_[i_ + 1])) {
        Table();
      } else if (IsListItem(line)) {
        List();
      } else {
        Paragraph();
      }
    }
    return std::move(out_);
  }

 private:
  bool EndsParagraph(std::string_view line) const {
    return IsBlank(line) || StartsWith(line, "```") || HeadingLevel(line) > 0 || IsListItem(line) ||
           StartsWith(Trim(line), "|");
  }

  void CodeBlock() {
    const std::string_view lang = Trim(lines_[i_].substr(3));
    out_ +=
        lang.empty() ? "<pre><code>" : "<pre><code class=\"language-" + HtmlEscape(lang) + "\">";
    for (++i_; i_ < lines_.size() && !StartsWith(Trim(lines_[i_]), "```"); ++i_) {
      out_ += HtmlEscape(lines_[i_]) + "\n";
    }
    ++i_;  // the closing fence (or the end of the input)
    out_ += "</code></pre>\n";
  }

  void Table() {
    const std::vector<std::string_view> header = Cells(lines_[i_]);
    const std::string row_prefix = header.empty() ? "" : HeadingSlug(header[0]);
    out_ += "<table><thead><tr>";
    for (std::string_view cell : header) out_ += "<th>" + Inline(cell) + "</th>";
    out_ += "</tr></thead><tbody>\n";
    for (i_ += 2; i_ < lines_.size() && StartsWith(Trim(lines_[i_]), "|"); ++i_) {
      const std::vector<std::string_view> cells = Cells(lines_[i_]);
      out_ += "<tr";
      if (!cells.empty() && cells[0].size() > 2 && cells[0].front() == '`' &&
          cells[0].back() == '`' && cells[0].find('`', 1) == cells[0].size() - 1) {
        out_ +=
            " id=\"" +
            HtmlEscape(row_prefix + "-" + std::string(cells[0].substr(1, cells[0].size() - 2))) +
            "\"";
      }
      out_ += ">";
      for (std::string_view cell : cells) out_ += "<td>" + Inline(cell) + "</td>";
      out_ += "</tr>\n";
    }
    out_ += "</tbody></table>\n";
  }

  void List() {
    out_ += "<ul>\n";
    while (i_ < lines_.size() && IsListItem(lines_[i_])) {
      std::string item(Trim(lines_[i_].substr(2)));
      for (++i_; i_ < lines_.size() && !IsBlank(lines_[i_]) && StartsWith(lines_[i_], "  ") &&
                 !IsListItem(Trim(lines_[i_]));
           ++i_) {
        item += " " + std::string(Trim(lines_[i_]));
      }
      out_ += "<li>" + Inline(item) + "</li>\n";
    }
    out_ += "</ul>\n";
  }

  void Paragraph() {
    std::string text(Trim(lines_[i_]));
    for (++i_; i_ < lines_.size() && !EndsParagraph(lines_[i_]); ++i_) {
      text += " " + std::string(Trim(lines_[i_]));
    }
    out_ += "<p>" + Inline(text) + "</p>\n";
  }

  std::vector<std::string_view> lines_;
  size_t i_ = 0;
  std::string out_;
};

}  // namespace

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string HeadingSlug(std::string_view heading) {
  std::string slug;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      slug += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      slug += '-';
    } else if (c >= 0x80) {
      slug += static_cast<char>(c);  // GitHub keeps non-ASCII letters
    }
  }
  return slug;
}

std::string RenderMarkdown(std::string_view markdown) { return Renderer(markdown).Run(); }

}  // namespace podwait
