#pragma once

#include <prometheus/metric_family.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "exporter/metrics/contract.h"

namespace podwait {

// Builds prometheus::MetricFamily values by hand, for collectors that render state at scrape time.
class FamilyBuilder {
 public:
  FamilyBuilder(std::string name, std::string help, prometheus::MetricType type);
  // A family of the metric contract.
  explicit FamilyBuilder(const MetricInfo& metric);

  // Adds a gauge or counter sample. Label values are copied.
  FamilyBuilder& Add(std::initializer_list<prometheus::ClientMetric::Label> labels, double value);
  FamilyBuilder& Add(std::vector<prometheus::ClientMetric::Label> labels, double value);
  // Adds a histogram sample with cumulative bucket counts (one per upper bound, +Inf implied).
  FamilyBuilder& AddHistogram(std::vector<prometheus::ClientMetric::Label> labels,
                              const std::vector<double>& upper_bounds,
                              const std::vector<uint64_t>& cumulative_counts, uint64_t count,
                              double sum);
  size_t size() const { return family_.metric.size(); }
  void Reserve(size_t n) { family_.metric.reserve(n); }
  // Moves the family into out (an empty family is still emitted so HELP/TYPE stay visible).
  void MoveTo(std::vector<prometheus::MetricFamily>* out);

 private:
  prometheus::MetricFamily family_;
};

}  // namespace podwait
