#pragma once

// The ReflectorHandler of a tidb-operator v1 object kept whole by its namespace/name (the
// TidbClusters, the DMClusters): each list is staged and handed over complete, each watch event
// one object at a time, through callbacks. It keeps no copy of the objects beyond their keys (the
// stores and the dependency store hold the parsed status). A 404 on the list (the CRD is not
// installed) disables it; the start's line of inputs that are off says so (app/optional_inputs.h),
// so the handler itself logs it only at debug level. Thread-compatible: the reflector calls it
// from its own thread; ObjectCount() may be called from any thread.

#include <rapidjson/document.h>

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/log.h"
#include "exporter/common/result.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/types.h"

namespace podwait {

// The key of a deleted object: only its metadata is needed (a tombstone may be partial).
std::optional<ClusterKey> ClusterObjectKeyOf(const rapidjson::Value& object);

// The callbacks a ClusterObjectSource<T> hands its objects to.
template <typename T>
struct ClusterObjectCallbacks {
  // The complete collection (of the reflector's namespace scope) after a (re)list.
  std::function<void(const std::vector<T>&)> replace;
  // One object added or modified.
  std::function<void(const T&)> upsert;
  // One object deleted.
  std::function<void(const ClusterKey&)> remove;
};

// T has a `ClusterKey key`; Parse reads one object (an error skips it, counted by the reflector).
template <typename T, Result<T> (*Parse)(const rapidjson::Value&)>
class ClusterObjectSource : public ReflectorHandler {
 public:
  // kind: the object's kind, for the log ("TidbCluster").
  ClusterObjectSource(std::string_view kind, ClusterObjectCallbacks<T> callbacks)
      : kind_(kind), callbacks_(std::move(callbacks)) {}

  void OnListBegin() override { staged_.clear(); }

  bool OnListItem(const rapidjson::Value& object) override {
    Result<T> parsed = Parse(object);
    if (!parsed.ok()) return Skipped(parsed.error);
    staged_.push_back(std::move(*parsed.value));
    return true;
  }

  void OnListEnd(const std::string&) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      keys_.clear();
      for (const T& object : staged_) keys_.insert(object.key);
    }
    if (callbacks_.replace) callbacks_.replace(staged_);
    staged_.clear();
  }

  void OnListAbort() override { staged_.clear(); }

  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override {
    if (type == WatchEventType::kDeleted) {
      std::optional<ClusterKey> key = ClusterObjectKeyOf(object);
      if (!key) return false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        keys_.erase(*key);
      }
      if (callbacks_.remove) callbacks_.remove(*key);
      return true;
    }
    if (type != WatchEventType::kAdded && type != WatchEventType::kModified) return true;
    Result<T> parsed = Parse(object);
    if (!parsed.ok()) return Skipped(parsed.error);
    {
      std::lock_guard<std::mutex> lock(mu_);
      keys_.insert(parsed.value->key);
    }
    if (callbacks_.upsert) callbacks_.upsert(*parsed.value);
    return true;
  }

  bool OnNotFound() override {
    LogDebug("CRD not found; source disabled", {{"kind", kind_}});
    return true;
  }

  std::optional<size_t> ObjectCount() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return keys_.size();
  }

 private:
  bool Skipped(const std::string& error) const {
    LogDebug("bad object skipped", {{"kind", kind_}, {"error", error}});
    return false;
  }

  const std::string kind_;
  ClusterObjectCallbacks<T> callbacks_;
  std::vector<T> staged_;
  mutable std::mutex mu_;
  std::set<ClusterKey> keys_;  // objects currently known
};

}  // namespace podwait
