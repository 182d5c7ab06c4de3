#include "exporter/metrics/exposition.h"

#include <prometheus/text_serializer.h>

#include <sstream>

#include "exporter/common/utf8.h"

namespace podwait {

std::string RenderText(const std::vector<std::shared_ptr<const prometheus::Collectable>>& sources) {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& s : sources) {
    auto f = s->Collect();
    std::move(f.begin(), f.end(), std::back_inserter(families));
  }
  // prometheus-cpp writes label values byte for byte; one invalid byte would make Prometheus
  // reject the whole scrape.
  for (auto& family : families) {
    for (auto& metric : family.metric) {
      for (auto& label : metric.label) {
        if (IsValidUtf8(label.value)) continue;
        std::string repaired;
        AppendValidUtf8(&repaired, label.value, Utf8Output::kMetrics);
        label.value = std::move(repaired);
      }
    }
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace podwait
