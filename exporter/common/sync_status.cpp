#include "exporter/common/sync_status.h"

namespace podwait {

void SyncStatus::Register(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_.emplace(name, false);
}

void SyncStatus::MarkSynced(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_[name] = true;
  synced_once_.insert(name);
}

void SyncStatus::MarkOutOfSync(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = synced_.find(name);
  if (it != synced_.end()) it->second = false;
}

void SyncStatus::Unregister(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_.erase(name);
  synced_once_.erase(name);
}

bool SyncStatus::AllSynced() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, synced] : synced_) {
    if (!synced) return false;
  }
  return true;
}

std::map<std::string, bool> SyncStatus::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return synced_;
}

SyncStatus::Unsynced SyncStatus::NotSynced() const {
  std::lock_guard<std::mutex> lock(mu_);
  Unsynced out;
  for (const auto& [name, synced] : synced_) {
    if (!synced) (synced_once_.count(name) ? out.lost : out.not_yet).push_back(name);
  }
  return out;
}

}  // namespace podwait
