#pragma once

// Feeds TidbCluster objects from a Reflector (list + watch of pingcap.com/v1alpha1 tidbclusters)
// to the cluster registry and the dependency store, through callbacks.

#include <functional>
#include <set>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exporter/kube/reflector.h"
#include "exporter/sources/tidbcluster.h"

namespace podwait {

struct TidbClusterCallbacks {
  // The complete collection after a (re)list: everything not in it is gone.
  std::function<void(const std::vector<TidbClusterStatus>&)> replace;
  // One object added or modified.
  std::function<void(const TidbClusterStatus&)> upsert;
  // One object deleted.
  std::function<void(const ClusterKey&)> remove;
};

// A ReflectorHandler for TidbClusters. Keeps no copy of the objects beyond their keys (the
// dependency store holds the parsed status). A 404 on the list (the CRD is not installed)
// disables the source with one log line. Thread-compatible: the reflector calls it from its own
// thread; ObjectCount() may be called from any thread.
class TidbClusterSource final : public ReflectorHandler {
 public:
  explicit TidbClusterSource(TidbClusterCallbacks callbacks);

  void OnListBegin() override;
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override;
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  bool OnNotFound() override;
  std::optional<size_t> ObjectCount() const override;

 private:
  TidbClusterCallbacks callbacks_;
  std::vector<TidbClusterStatus> staged_;
  mutable std::mutex mu_;
  std::set<ClusterKey> keys_;  // objects currently known
};

}  // namespace podwait
