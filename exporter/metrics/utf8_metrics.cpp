#include "exporter/metrics/utf8_metrics.h"

#include "exporter/common/utf8.h"
#include "exporter/metrics/text_writer.h"

namespace podwait {

void AppendInvalidUtf8Metrics(std::string* out) {
  TextWriter w(out);
  w.Family("podwait_invalid_utf8_total",
           "Strings written with invalid UTF-8, each ill-formed sequence replaced by U+FFFD "
           "(output: metrics label values, json strings).",
           "counter");
  for (Utf8Output o : {Utf8Output::kMetrics, Utf8Output::kJson}) {
    w.Sample("podwait_invalid_utf8_total", {{"output", Utf8OutputName(o)}},
             static_cast<double>(InvalidUtf8Strings(o)));
  }
}

}  // namespace podwait
