#include "exporter/metrics/exposition.h"

#include <prometheus/text_serializer.h>

#include <sstream>

namespace podwait {

std::string RenderText(const std::vector<std::shared_ptr<const prometheus::Collectable>>& sources) {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& s : sources) {
    auto f = s->Collect();
    std::move(f.begin(), f.end(), std::back_inserter(families));
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace podwait
