#include "exporter/metrics/metric_writer.h"

#include "exporter/metrics/exposition.h"
#include "exporter/metrics/utf8_metrics.h"

namespace podwait {

void CollectableWriter::AppendText(std::string* out) const { out->append(RenderText(sources_)); }

void InvalidUtf8Writer::AppendText(std::string* out) const { AppendInvalidUtf8Metrics(out); }

void AppendAll(const std::vector<std::unique_ptr<MetricWriter>>& writers, std::string* out) {
  for (const auto& w : writers) w->AppendText(out);
}

}  // namespace podwait
