#pragma once

// A bounded record of which keys changed at which version of a store, so that a reader can ask
// what changed since the version it saw last (the incremental evaluation's change feed). Not
// thread-safe: the owning store's lock guards it.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>

namespace podwait {

// A pod by namespace and name: what the event and v2 stores record.
using PodName = std::pair<std::string, std::string>;

template <typename Key>
class ChangeJournal {
 public:
  explicit ChangeJournal(size_t capacity) : capacity_(capacity) {}

  // Records that `key` changed at `version` (versions only grow). The oldest record goes once the
  // journal is full: readers from before it must start over.
  void Record(uint64_t version, Key key) {
    records_.emplace_back(version, std::move(key));
    while (records_.size() > capacity_) {
      start_ = records_.front().first;
      records_.pop_front();
    }
  }
  // Forgets every record: readers from before `version` must start over (a change the journal
  // cannot name, e.g. a relist that replaced everything).
  void Reset(uint64_t version) {
    records_.clear();
    start_ = version;
  }
  // Whether the records reach back to `since`: every change after it is still recorded.
  bool Covers(uint64_t since) const { return since >= start_; }
  // Calls fn(key, version) for every change after `since`, newest first. REQUIRES: Covers(since).
  template <typename Fn>
  void Since(uint64_t since, Fn&& fn) const {
    for (auto it = records_.rbegin(); it != records_.rend() && it->first > since; ++it) {
      fn(it->second, it->first);
    }
  }
  size_t size() const { return records_.size(); }

 private:
  const size_t capacity_;
  std::deque<std::pair<uint64_t, Key>> records_;
  uint64_t start_ = 0;  // Covers(v) for v >= start_
};

}  // namespace podwait
