#pragma once

// What the on-call reads in the log when things work (issue: logs silent when working): what is
// watched, at start; one summary line once synced ("synced: N clusters, M pods, K waiting by
// class"), and again whenever sync comes back; a line when a pod changes class, at most
// `max_class_lines` a minute (the rest counted in the next line).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "exporter/config/config.h"
#include "exporter/model/waiting.h"

namespace podwait {

// One line: selectors, namespaces, the autoscaler mode and which optional sources are on.
void LogWatchScope(const Config& config);

// Fed after every evaluation, from the evaluation thread only.
class StatusLog {
 public:
  explicit StatusLog(int max_class_lines = 20);

  // `synced`: every source in sync; `counts()` gives (clusters, pods), asked only when the
  // summary is written; now_ms is monotonic.
  void Observe(bool synced, const std::shared_ptr<const WaitingSnapshot>& snapshot,
               const std::function<std::pair<size_t, size_t>()>& counts, int64_t now_ms);
  uint64_t lines() const { return lines_; }

 private:
  void ClassChanges(const WaitingSnapshot& snapshot, int64_t now_ms);
  bool TakeLine(int64_t now_ms);

  const int max_class_lines_;
  bool synced_ = false;
  bool baseline_ = false;                        // last_ holds the classes of a snapshot
  std::shared_ptr<const WaitingSnapshot> seen_;  // the snapshot last_ was made from
  std::map<std::string, std::string> last_;      // namespace/pod -> class
  int64_t window_start_ms_ = 0;
  int window_lines_ = 0;
  uint64_t suppressed_ = 0;
  uint64_t lines_ = 0;
};

}  // namespace podwait
