#include "exporter/metrics/utf8_metrics.h"

#include "exporter/common/utf8.h"
#include "exporter/metrics/text_writer.h"

namespace podwait {

void AppendInvalidUtf8Metrics(std::string* out) {
  TextWriter w(out);
  w.Family(metric::kInvalidUtf8);
  for (Utf8Output o : {Utf8Output::kMetrics, Utf8Output::kJson}) {
    w.Sample<metric::kInvalidUtf8>({Utf8OutputName(o)}, static_cast<double>(InvalidUtf8Strings(o)));
  }
}

}  // namespace podwait
