#include "exporter/explain/label_selector.h"

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

// A label key or value: letters, digits, '-', '_', '.', and '/' in a key's prefix.
bool ValidToken(std::string_view s, bool key) {
  if (s.empty()) return !key;
  return std::all_of(s.begin(), s.end(), [key](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           (key && c == '/');
  });
}

}  // namespace

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  using R = Result<LabelSelector>;
  LabelSelector selector;
  if (Trim(text).empty()) return R::Ok(std::move(selector));
  for (std::string_view req : SplitRequirements(text)) {
    const auto bad = [&req](const std::string& why) {
      return R::Fail("label selector: \"" + std::string(req) + "\": " + why);
    };
    Requirement r;
    size_t paren = req.find('(');
    size_t op_at = std::string_view::npos;
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
    for (const std::string& v : r.values) {
      if (!ValidToken(v, false)) return bad("invalid value \"" + v + "\"");
    }
    selector.requirements_.push_back(std::move(r));
  }
  return R::Ok(std::move(selector));
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const Requirement& r : requirements_) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    switch (r.op) {
      case Op::kIn:
        if (!in) return false;
        break;
      case Op::kNotIn:
        if (in) return false;
        break;
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kNotExists:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace podwait
