#pragma once

// Label and field selectors as the API server reads them (kubectl's -l and --field-selector),
// matched against an object's labels or fields. The exporter's `explain` and the simulator share
// them.

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/result.h"

namespace podwait {

class Selector {
 public:
  // "a=b,a==b,c!=d,e,!f,g in (x,y),h notin (z)"; "" selects everything. The error names the
  // requirement that does not parse.
  static Result<Selector> ParseLabels(std::string_view text);
  // "a=b,a==b,c!=d": equality only, as the API server accepts for fields.
  static Result<Selector> ParseFields(std::string_view text);

  bool Matches(const std::map<std::string, std::string>& labels) const;
  // value_of(key) is the object's value for key, or nullptr when it has none.
  template <typename ValueOf>
  bool MatchesWith(const ValueOf& value_of) const {
    return std::all_of(requirements_.begin(), requirements_.end(),
                       [&](const Requirement& r) { return r.Satisfied(value_of(r.key)); });
  }
  bool empty() const { return requirements_.empty(); }
  // The keys the requirements name, in order (the API server rejects unsupported field keys).
  std::vector<std::string_view> keys() const;

 private:
  enum class Op { kIn, kNotIn, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
    bool Satisfied(const std::string* value) const;
  };
  static Result<Selector> Parse(std::string_view text, bool fields);
  std::vector<Requirement> requirements_;
};

}  // namespace podwait
