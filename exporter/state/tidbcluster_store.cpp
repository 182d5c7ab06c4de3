#include "exporter/state/tidbcluster_store.h"

namespace podwait {

void TidbClusterStore::SetListener(TidbClusterListener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

void TidbClusterStore::Replace(std::string_view namespace_scope,
                               const std::vector<TidbClusterStatus>& listed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(clusters_, [&](const auto& kv) {
    return namespace_scope.empty() || kv.first.namespace_ == namespace_scope;
  });
  for (const auto& tc : listed) {
    if (namespace_scope.empty() || tc.key.namespace_ == namespace_scope) clusters_[tc.key] = tc;
  }
  if (!listener_.replaced) return;
  std::vector<TidbClusterStatus> all;
  all.reserve(clusters_.size());
  for (const auto& [key, tc] : clusters_) all.push_back(tc);
  listener_.replaced(all);
}

void TidbClusterStore::Upsert(const TidbClusterStatus& status) {
  std::lock_guard<std::mutex> lock(mu_);
  clusters_[status.key] = status;
  if (listener_.upserted) listener_.upserted(status);
}

void TidbClusterStore::Remove(const ClusterKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  clusters_.erase(key);
  if (listener_.removed) listener_.removed(key);
}

std::vector<TidbClusterStatus> TidbClusterStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TidbClusterStatus> out;
  out.reserve(clusters_.size());
  for (const auto& [key, tc] : clusters_) out.push_back(tc);
  return out;
}

size_t TidbClusterStore::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clusters_.size();
}

}  // namespace podwait
