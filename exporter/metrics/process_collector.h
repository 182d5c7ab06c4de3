#pragma once

#include <prometheus/collectable.h>

namespace podwait {

// process_* metrics as the Go and Python clients publish them, read from /proc/self:
// process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
// process_start_time_seconds, process_open_fds, process_max_fds.
class ProcessCollector final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace podwait
