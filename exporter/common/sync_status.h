#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace podwait {

// Which sources are in sync. /readyz is ready when every registered source has synced and has
// not fallen out of sync since (a watch that cannot stay open). Thread-safe.
class SyncStatus {
 public:
  // Adds a source that must sync before the process is ready.
  void Register(const std::string& name);
  // Marks a source as synced (its first full list, or a watch working again).
  void MarkSynced(const std::string& name);
  // A source that had synced keeps failing: not ready until it is marked synced again.
  void MarkOutOfSync(const std::string& name);
  // Removes a source that turned out not to exist (e.g. a CRD that is not installed).
  void Unregister(const std::string& name);
  bool AllSynced() const;
  // name -> synced
  std::map<std::string, bool> Snapshot() const;
  // The sources not synced now: those still waiting for their first list, and those that had
  // synced and fell out of sync since (each in name order).
  struct Unsynced {
    std::vector<std::string> not_yet;
    std::vector<std::string> lost;
  };
  Unsynced NotSynced() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, bool> synced_;
  std::set<std::string> synced_once_;
};

}  // namespace podwait
