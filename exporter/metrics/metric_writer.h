#pragma once

// One interface for everything /metrics serves (docs/DESIGN.md §7, "add a metric"): each writer
// appends its families of the metric contract in the text exposition format 0.0.4, and the
// handler runs the writers in order. The waiting and dependency collectors write their many
// series with TextWriter; the self-metrics and the process collector keep prometheus-cpp (atomic
// counters and histograms updated from every thread), behind CollectableWriter.

#include <prometheus/collectable.h>
#include <prometheus/labels.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/metrics/contract.h"

namespace podwait {

class MetricWriter {
 public:
  virtual ~MetricWriter() = default;
  // Appends its families (HELP, TYPE and samples) to `out`. Called from any thread.
  virtual void AppendText(std::string* out) const = 0;
};

// prometheus-cpp registries and collectables, rendered with RenderText (exposition.h).
class CollectableWriter final : public MetricWriter {
 public:
  explicit CollectableWriter(std::vector<std::shared_ptr<const prometheus::Collectable>> sources)
      : sources_(std::move(sources)) {}
  void AppendText(std::string* out) const override;

 private:
  const std::vector<std::shared_ptr<const prometheus::Collectable>> sources_;
};

// podwait_invalid_utf8_total (utf8_metrics.h). Runs last: it counts what the others wrote.
class InvalidUtf8Writer final : public MetricWriter {
 public:
  void AppendText(std::string* out) const override;
};

// Runs every writer in order.
void AppendAll(const std::vector<std::unique_ptr<MetricWriter>>& writers, std::string* out);

// The labels of a prometheus-cpp series of family M: the values in M's label order, the names
// from the contract row (a wrong number of values does not compile).
template <const MetricInfo& M, size_t N>
prometheus::Labels PromLabels(const std::string_view (&values)[N]) {
  static_assert(N == LabelCount(M.labels), "one value per label of the family, in its order");
  prometheus::Labels out;
  for (size_t i = 0; i < N; ++i) {
    out.emplace(std::string(kLabelNames<M>[i]), std::string(values[i]));
  }
  return out;
}

}  // namespace podwait
