#include "exporter/common/selector.h"

#include <algorithm>

namespace podwait {
namespace {

std::string_view Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Splits at commas outside parentheses.
std::vector<std::string_view> SplitRequirements(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      out.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return out;
}

// A label key or value: letters, digits, '-', '_', '.', and '/' in a key's prefix (at most 253
// characters, a '/' and 63).
bool ValidToken(std::string_view s, bool key) {
  if (s.empty()) return !key;
  if (s.size() > 317) return false;
  return std::all_of(s.begin(), s.end(), [key](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           (key && c == '/');
  });
}

}  // namespace

Result<Selector> Selector::ParseLabels(std::string_view text) { return Parse(text, false); }

Result<Selector> Selector::ParseFields(std::string_view text) { return Parse(text, true); }

Result<Selector> Selector::Parse(std::string_view text, bool fields) {
  using R = Result<Selector>;
  Selector selector;
  if (Trim(text).empty()) return R::Ok(std::move(selector));
  for (std::string_view req : SplitRequirements(text)) {
    const auto bad = [&req, fields](const std::string& why) {
      return R::Fail((fields ? "field selector: \"" : "label selector: \"") + std::string(req) +
                     "\": " + why);
    };
    if (req.empty()) return bad("empty requirement");
    Requirement r;
    size_t paren = req.find('(');
    size_t op_at = std::string_view::npos;
    if (fields && (paren != std::string_view::npos || req.find('=') == std::string_view::npos)) {
      return bad("a field selector takes only =, == and !=");
    }
    if (paren != std::string_view::npos) {
      if (req.back() != ')') return bad("a set must end with ')'");
      std::string_view head = Trim(req.substr(0, paren));
      const size_t space = head.find_last_of(" \t");
      if (space == std::string_view::npos) return bad("expected \"key in (a,b)\"");
      std::string_view op = head.substr(space + 1);
      if (op != "in" && op != "notin") return bad("expected in or notin");
      r.op = op == "in" ? Op::kIn : Op::kNotIn;
      r.key = std::string(Trim(head.substr(0, space)));
      for (std::string_view v : SplitRequirements(req.substr(paren + 1, req.size() - paren - 2))) {
        if (!ValidToken(v, false)) return bad("invalid value \"" + std::string(v) + "\"");
        r.values.emplace_back(v);
      }
    } else if ((op_at = req.find("!=")) != std::string_view::npos) {
      r.op = Op::kNotIn;
      r.key = std::string(Trim(req.substr(0, op_at)));
      r.values.emplace_back(Trim(req.substr(op_at + 2)));
    } else if ((op_at = req.find('=')) != std::string_view::npos) {
      r.op = Op::kIn;
      r.key = std::string(Trim(req.substr(0, op_at)));
      const size_t skip = req.substr(op_at).rfind("==", 0) == 0 ? 2 : 1;
      r.values.emplace_back(Trim(req.substr(op_at + skip)));
    } else if (req.front() == '!') {
      r.op = Op::kNotExists;
      r.key = std::string(Trim(req.substr(1)));
    } else {
      r.op = Op::kExists;
      r.key = std::string(req);
    }
    if (!ValidToken(r.key, true)) return bad("invalid key \"" + r.key + "\"");
    // A field's value is any text (a fieldPath, a UID); a label's value is a token.
    for (const std::string& v : r.values) {
      if (!fields && !ValidToken(v, false)) return bad("invalid value \"" + v + "\"");
    }
    selector.requirements_.push_back(std::move(r));
  }
  return R::Ok(std::move(selector));
}

std::vector<std::string_view> Selector::keys() const {
  std::vector<std::string_view> out;
  for (const Requirement& r : requirements_) out.push_back(r.key);
  return out;
}

bool Selector::Requirement::Satisfied(const std::string* value) const {
  const bool in = value && std::find(values.begin(), values.end(), *value) != values.end();
  switch (op) {
    case Op::kIn:
      return in;
    case Op::kNotIn:
      return !in;
    case Op::kExists:
      return value != nullptr;
    case Op::kNotExists:
      return value == nullptr;
  }
  return false;
}

bool Selector::Matches(const std::map<std::string, std::string>& labels) const {
  return MatchesWith([&labels](const std::string& key) -> const std::string* {
    auto it = labels.find(key);
    return it == labels.end() ? nullptr : &it->second;
  });
}

}  // namespace podwait
