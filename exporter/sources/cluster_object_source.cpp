#include "exporter/sources/cluster_object_source.h"

namespace podwait {

std::optional<ClusterKey> ClusterObjectKeyOf(const rapidjson::Value& object) {
  if (!object.IsObject()) return std::nullopt;
  auto meta = object.FindMember("metadata");
  if (meta == object.MemberEnd() || !meta->value.IsObject()) return std::nullopt;
  auto ns = meta->value.FindMember("namespace");
  auto name = meta->value.FindMember("name");
  if (ns == meta->value.MemberEnd() || name == meta->value.MemberEnd() || !ns->value.IsString() ||
      !name->value.IsString()) {
    return std::nullopt;
  }
  return ClusterKey{ns->value.GetString(), name->value.GetString()};
}

}  // namespace podwait
