#include "exporter/sources/volumes.h"

#include <set>
#include <utility>

#include "exporter/common/json.h"
#include "exporter/sources/reflector_options.h"

namespace podwait {
namespace {

using json::Array;
using json::Object;
using json::Str;

constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

// The nodes one node selector term allows by hostname, or false when it does not restrict the
// hostname (it may match any node of a zone, or every node).
bool TermHosts(const rapidjson::Value& term, std::set<std::string>* hosts) {
  bool restricted = false;
  auto read = [&](const rapidjson::Value* requirements, std::string_view key) {
    if (requirements == nullptr) return;
    for (const auto& r : requirements->GetArray()) {
      if (Str(&r, "key") != key || Str(&r, "operator") != "In") continue;
      const rapidjson::Value* values = Array(&r, "values");
      if (values == nullptr) continue;
      std::set<std::string> these;
      for (const auto& v : values->GetArray()) {
        if (v.IsString()) these.emplace(v.GetString(), v.GetStringLength());
      }
      // Several requirements on the hostname in one term are ANDed: the term allows their
      // intersection; keep it simple and safe by taking the smallest.
      if (!restricted || these.size() < hosts->size()) *hosts = std::move(these);
      restricted = true;
    }
  };
  read(Array(&term, "matchExpressions"), kHostnameLabel);
  read(Array(&term, "matchFields"), "metadata.name");
  return restricted;
}

}  // namespace

std::optional<ClaimRecord> ParseClaim(const rapidjson::Value& object) {
  if (!object.IsObject()) return std::nullopt;
  const rapidjson::Value* meta = Object(&object, "metadata");
  ClaimRecord c;
  c.namespace_ = std::string(Str(meta, "namespace"));
  c.name = std::string(Str(meta, "name"));
  if (c.namespace_.empty() || c.name.empty()) return std::nullopt;
  if (Str(Object(&object, "status"), "phase") == "Bound") {
    c.volume = std::string(Str(Object(&object, "spec"), "volumeName"));
  }
  return c;
}

std::optional<VolumeRecord> ParseVolume(const rapidjson::Value& object) {
  if (!object.IsObject()) return std::nullopt;
  VolumeRecord v;
  v.name = std::string(Str(Object(&object, "metadata"), "name"));
  if (v.name.empty()) return std::nullopt;
  const rapidjson::Value* spec = Object(&object, "spec");
  if (const rapidjson::Value* ref = Object(spec, "claimRef")) {
    v.claim_namespace = std::string(Str(ref, "namespace"));
    v.claim_name = std::string(Str(ref, "name"));
  }
  const rapidjson::Value* terms =
      Array(Object(Object(spec, "nodeAffinity"), "required"), "nodeSelectorTerms");
  if (terms == nullptr || terms->Empty()) return v;
  std::set<std::string> all;
  for (const auto& term : terms->GetArray()) {
    std::set<std::string> hosts;
    if (!TermHosts(term, &hosts)) return v;  // one term allows nodes by other labels: not pinned
    all.insert(hosts.begin(), hosts.end());
  }
  if (all.size() == 1) v.pinned_node = *all.begin();
  return v;
}

std::vector<ReflectorOptions> ClaimReflectorOptions(const Config& config) {
  return ReflectorOptionsPerNamespace(config, "persistentvolumeclaims", "/api/v1");
}

std::vector<ReflectorOptions> VolumeReflectorOptions(const Config& config) {
  return {ReflectorOptionsFromConfig(config, "persistentvolumes", "/api/v1/persistentvolumes")};
}

}  // namespace podwait
