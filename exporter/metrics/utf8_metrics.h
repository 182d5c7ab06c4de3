#pragma once

#include <string>

namespace podwait {

// Appends podwait_invalid_utf8_total{output="metrics"|"json"}: strings written with invalid
// UTF-8 (replaced by U+FFFD) since the start, per output. Written last in a scrape, so it
// includes the label values of the same scrape.
void AppendInvalidUtf8Metrics(std::string* out);

}  // namespace podwait
