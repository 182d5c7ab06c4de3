#pragma once

// Feeds one tidb-operator v2 resource (core.pingcap.com/v1alpha1 clusters, one instance plural
// or one group plural) from a Reflector to the V2Store, as facts (sources/v2_objects.h). A 404 on
// the list (the CRD is not installed) disables that resource: the reflector logs it once and
// stops holding /readyz, so a v1-only cluster keeps working.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/kube/reflector.h"
#include "exporter/model/v2.h"
#include "exporter/state/v2_store.h"

namespace podwait {

// One watched v2 resource: a Cluster (kind "Cluster"), an instance kind or a group kind.
struct V2Resource {
  std::string kind;    // Cluster, PD, PDGroup, ...
  std::string plural;  // clusters, pds, pdgroups, ...
};
// Every v2 resource podwait watches: clusters, then each kind's instances and groups.
std::vector<V2Resource> V2Resources();

// Called only from its reflector's thread (ReflectorHandler contract); ObjectCount() from any.
class V2Source final : public ReflectorHandler {
 public:
  V2Source(V2Store& store, V2Resource resource, std::string namespace_scope = {});

  void OnListBegin() override;
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override;
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  bool OnNotFound() override { return true; }
  std::optional<size_t> ObjectCount() const override { return store_.Count(resource_.kind); }

 private:
  enum class What : uint8_t { kCluster, kInstance, kGroup };
  // Parses and stages (list) or upserts (watch) one object; false when it is malformed.
  bool Take(const rapidjson::Value& object, bool staging);

  V2Store& store_;
  const V2Resource resource_;
  const std::string scope_;
  What what_ = What::kCluster;
  std::vector<v2::Cluster> clusters_;
  std::vector<v2::Instance> instances_;
  std::vector<v2::Group> groups_;
};

}  // namespace podwait
