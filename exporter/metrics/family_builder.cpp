#include "exporter/metrics/family_builder.h"

#include <limits>

namespace podwait {

FamilyBuilder::FamilyBuilder(std::string name, std::string help, prometheus::MetricType type) {
  family_.name = std::move(name);
  family_.help = std::move(help);
  family_.type = type;
}

FamilyBuilder::FamilyBuilder(const MetricInfo& metric)
    : FamilyBuilder(std::string(metric.name), std::string(metric.help),
                    metric.type == "counter"     ? prometheus::MetricType::Counter
                    : metric.type == "histogram" ? prometheus::MetricType::Histogram
                                                 : prometheus::MetricType::Gauge) {}

FamilyBuilder& FamilyBuilder::Add(std::initializer_list<prometheus::ClientMetric::Label> labels,
                                  double value) {
  return Add(std::vector<prometheus::ClientMetric::Label>(labels), value);
}

FamilyBuilder& FamilyBuilder::Add(std::vector<prometheus::ClientMetric::Label> labels,
                                  double value) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  switch (family_.type) {
    case prometheus::MetricType::Counter:
      m.counter.value = value;
      break;
    case prometheus::MetricType::Untyped:
      m.untyped.value = value;
      break;
    default:
      m.gauge.value = value;
      break;
  }
  family_.metric.push_back(std::move(m));
  return *this;
}

FamilyBuilder& FamilyBuilder::AddHistogram(std::vector<prometheus::ClientMetric::Label> labels,
                                           const std::vector<double>& upper_bounds,
                                           const std::vector<uint64_t>& cumulative_counts,
                                           uint64_t count, double sum) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.histogram.sample_count = count;
  m.histogram.sample_sum = sum;
  for (size_t i = 0; i < upper_bounds.size() && i < cumulative_counts.size(); ++i) {
    m.histogram.bucket.push_back({cumulative_counts[i], upper_bounds[i]});
  }
  m.histogram.bucket.push_back({count, std::numeric_limits<double>::infinity()});
  family_.metric.push_back(std::move(m));
  return *this;
}

void FamilyBuilder::MoveTo(std::vector<prometheus::MetricFamily>* out) {
  out->push_back(std::move(family_));
}

}  // namespace podwait
