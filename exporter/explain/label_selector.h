#pragma once

// kubectl's -l: a label selector as the API server reads it (equality- and set-based), matched
// against an object's labels.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/result.h"

namespace podwait {

class LabelSelector {
 public:
  // "a=b,a==b,c!=d,e,!f,g in (x,y),h notin (z)"; "" selects everything. The error names the
  // requirement that does not parse.
  static Result<LabelSelector> Parse(std::string_view text);

  bool Matches(const std::map<std::string, std::string>& labels) const;
  bool empty() const { return requirements_.empty(); }

 private:
  enum class Op { kIn, kNotIn, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace podwait
