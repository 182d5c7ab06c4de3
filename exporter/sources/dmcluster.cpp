#include "exporter/sources/dmcluster.h"

#include <rapidjson/document.h>

#include "exporter/common/json.h"
#include "exporter/common/log.h"

namespace podwait {
namespace {

using rapidjson::Value;

std::string StringOf(const Value* obj, const char* key) { return std::string(json::Str(obj, key)); }

}  // namespace

DmClusterParse ParseDmCluster(const Value& object) {
  DmClusterParse result;
  auto fail = [&](std::string e) {
    result.error = std::move(e);
    return result;
  };
  if (!object.IsObject()) return fail("DMCluster is not an object");
  DmClusterStatus dc;
  const Value* meta = json::Present(object, "metadata");
  if (meta == nullptr || !meta->IsObject()) return fail("DMCluster without metadata");
  dc.key = {StringOf(meta, "namespace"), StringOf(meta, "name")};
  if (dc.key.name.empty()) return fail("DMCluster without metadata.name");
  const Value* spec = json::Present(object, "spec");
  const Value* spec_master = spec == nullptr ? nullptr : json::Present(*spec, "master");
  if (const Value* r = spec_master == nullptr ? nullptr : json::Present(*spec_master, "replicas")) {
    if (!r->IsInt()) return fail("spec.master.replicas is not an integer");
    dc.master_replicas = r->GetInt();
  }
  const Value* status = json::Present(object, "status");
  const Value* master = status == nullptr ? nullptr : json::Present(*status, "master");
  if (master != nullptr && !master->IsObject()) return fail("status.master is not an object");
  if (const Value* members = master == nullptr ? nullptr : json::Present(*master, "members")) {
    if (!members->IsObject()) return fail("status.master.members is not an object");
    for (const auto& m : members->GetObject()) {
      if (!m.value.IsObject()) return fail("status.master.members entry is not an object");
      const Value* health = json::Present(m.value, "health");
      if (health != nullptr && !health->IsBool()) {
        return fail("status.master.members health is not a boolean");
      }
      dc.master_members[std::string(m.name.GetString(), m.name.GetStringLength())] =
          health != nullptr && health->GetBool();
    }
  }
  dc.master_leader =
      StringOf(master == nullptr ? nullptr : json::Present(*master, "leader"), "name");
  result.value = std::move(dc);
  return result;
}

DmClusterParse ParseDmCluster(std::string_view text) {
  auto doc = json::Parse(text);
  if (!doc.ok()) {
    DmClusterParse result;
    result.error = std::move(doc.error);
    return result;
  }
  return ParseDmCluster(static_cast<const Value&>(*doc.value));
}

}  // namespace podwait
