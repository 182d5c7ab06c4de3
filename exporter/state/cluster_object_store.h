#pragma once

// The tidb-operator v1 objects of one kind the exporter knows, by namespace/name (TidbClusters,
// DMClusters). Written by their sources (one reflector over all namespaces, or one per watched
// namespace), read through a listener, which always sees complete sets: a (re)list of one
// namespace replaces that namespace's objects only, and the listener gets every namespace's.

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/model/types.h"

namespace podwait {

template <typename T>
struct ClusterObjectListener {
  // The complete set after a (re)list.
  std::function<void(const std::vector<T>&)> replaced;
  // One object added or modified.
  std::function<void(const T&)> upserted;
  // One object deleted.
  std::function<void(const ClusterKey&)> removed;
};

// T has a `ClusterKey key`. Thread-safe. Listener calls are made in order, one at a time, under
// the store's lock (keep them short; they must not call back into the store).
template <typename T>
class ClusterObjectStore {
 public:
  ClusterObjectStore() = default;
  ClusterObjectStore(const ClusterObjectStore&) = delete;
  ClusterObjectStore& operator=(const ClusterObjectStore&) = delete;

  // REQUIRES: set before the first update.
  void SetListener(ClusterObjectListener<T> listener) {
    std::lock_guard<std::mutex> lock(mu_);
    listener_ = std::move(listener);
  }

  // Makes the objects of one namespace (namespace_scope; "" means every namespace) exactly
  // `listed`; those of other namespaces are kept.
  void Replace(std::string_view namespace_scope, const std::vector<T>& listed) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto in_scope = [namespace_scope](const ClusterKey& key) {
      return namespace_scope.empty() || key.namespace_ == namespace_scope;
    };
    std::erase_if(objects_, [&](const auto& kv) { return in_scope(kv.first); });
    for (const T& object : listed) {
      if (in_scope(object.key)) objects_[object.key] = object;
    }
    if (listener_.replaced) listener_.replaced(SnapshotLocked());
  }

  void Upsert(const T& object) {
    std::lock_guard<std::mutex> lock(mu_);
    objects_[object.key] = object;
    if (listener_.upserted) listener_.upserted(object);
  }

  void Remove(const ClusterKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    objects_.erase(key);
    if (listener_.removed) listener_.removed(key);
  }

  std::vector<T> Snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return SnapshotLocked();
  }

  size_t Size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_.size();
  }

 private:
  // REQUIRES: mu_ held.
  std::vector<T> SnapshotLocked() const {
    std::vector<T> all;
    all.reserve(objects_.size());
    for (const auto& [key, object] : objects_) all.push_back(object);
    return all;
  }

  mutable std::mutex mu_;
  std::map<ClusterKey, T> objects_;
  ClusterObjectListener<T> listener_;
};

}  // namespace podwait
