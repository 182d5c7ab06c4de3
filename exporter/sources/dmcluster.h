#pragma once

// A pure parser for v1 DMCluster (pingcap.com/v1alpha1) documents into the DmClusterStatus of
// exporter/model/dmcluster_status.h, and the reflector handler of the dmclusters input.

#include <rapidjson/fwd.h>

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/dmcluster_status.h"

namespace podwait {

using DmClusterParse = Result<DmClusterStatus>;

DmClusterParse ParseDmCluster(std::string_view json);
DmClusterParse ParseDmCluster(const rapidjson::Value& object);

struct DmClusterCallbacks {
  // The complete collection (of the reflector's namespace scope) after a (re)list.
  std::function<void(const std::vector<DmClusterStatus>&)> replace;
  std::function<void(const DmClusterStatus&)> upsert;
  std::function<void(const ClusterKey&)> remove;
};

// A ReflectorHandler for DMClusters, as TidbClusterSource is for TidbClusters: a 404 on the list
// (the CRD is not installed) disables it with one log line. Called from its reflector's thread;
// ObjectCount() from any thread.
class DmClusterSource final : public ReflectorHandler {
 public:
  explicit DmClusterSource(DmClusterCallbacks callbacks);

  void OnListBegin() override;
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override;
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  bool OnNotFound() override;
  std::optional<size_t> ObjectCount() const override;

 private:
  DmClusterCallbacks callbacks_;
  std::vector<DmClusterStatus> staged_;
  mutable std::mutex mu_;
  std::set<ClusterKey> keys_;
};

}  // namespace podwait
