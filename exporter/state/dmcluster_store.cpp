#include "exporter/state/dmcluster_store.h"

namespace podwait {

void DmClusterStore::SetListener(DmClusterListener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

void DmClusterStore::Replace(std::string_view namespace_scope,
                             const std::vector<DmClusterStatus>& listed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(clusters_, [&](const auto& kv) {
    return namespace_scope.empty() || kv.first.namespace_ == namespace_scope;
  });
  for (const auto& dc : listed) {
    if (namespace_scope.empty() || dc.key.namespace_ == namespace_scope) clusters_[dc.key] = dc;
  }
  if (!listener_.replaced) return;
  std::vector<DmClusterStatus> all;
  all.reserve(clusters_.size());
  for (const auto& [key, dc] : clusters_) all.push_back(dc);
  listener_.replaced(all);
}

void DmClusterStore::Upsert(const DmClusterStatus& status) {
  std::lock_guard<std::mutex> lock(mu_);
  clusters_[status.key] = status;
  if (listener_.upserted) listener_.upserted(status);
}

void DmClusterStore::Remove(const ClusterKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  clusters_.erase(key);
  if (listener_.removed) listener_.removed(key);
}

size_t DmClusterStore::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clusters_.size();
}

}  // namespace podwait
