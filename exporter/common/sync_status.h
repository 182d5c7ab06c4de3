#pragma once

#include <map>
#include <mutex>
#include <string>

namespace podwait {

// Which sources have completed their first sync. /readyz is ready when every registered source
// has synced at least once. Thread-safe.
class SyncStatus {
 public:
  // Adds a source that must sync before the process is ready.
  void Register(const std::string& name);
  // Marks a source as having synced once (it stays counted as synced after that).
  void MarkSynced(const std::string& name);
  // Removes a source that turned out not to exist (e.g. a CRD that is not installed).
  void Unregister(const std::string& name);
  bool AllSynced() const;
  // name -> synced
  std::map<std::string, bool> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, bool> synced_;
};

}  // namespace podwait
