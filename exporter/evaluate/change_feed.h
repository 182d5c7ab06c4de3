#pragma once

#include <cstdint>
#include <vector>

#include "exporter/evaluate/waiting_tracker.h"
#include "exporter/model/types.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/v2_store.h"

namespace podwait {

// What changed in the stores since the previous Read(): the input of an incremental evaluation.
// Reads the pod store's changes and the pods named by the event and v2 stores' change records;
// when any of them no longer reaches back to the previous read (or on the first read), the
// answer is a full one: every pod.
class ChangeFeed {
 public:
  // `events` and `v2` may be nullptr; every store must outlive the feed.
  ChangeFeed(const PodStore& pods, const EventStore* events, const V2Store* v2);

  struct Changes {
    bool full = true;
    std::vector<PodPtr> all;  // every pod, when full
    PodChangeSet set;         // what changed, when not full
  };
  Changes Read();

 private:
  const PodStore& pods_;
  const EventStore* const events_;
  const V2Store* const v2_;
  uint64_t pod_version_ = 0, event_version_ = 0, v2_version_ = 0;
};

}  // namespace podwait
