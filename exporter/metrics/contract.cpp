#include "exporter/metrics/contract.h"

namespace podwait {

std::string_view LabelBoundName(LabelBound bound) {
  switch (bound) {
    case LabelBound::kFixed:
      return "fixed";
    case LabelBound::kMapped:
      return "mapped";
    case LabelBound::kObject:
      return "object";
  }
  return "fixed";
}

std::vector<std::string_view> LabelsOf(const MetricInfo& metric) {
  std::vector<std::string_view> out;
  std::string_view rest = metric.labels;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    out.push_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace podwait
