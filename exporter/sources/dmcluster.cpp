#include "exporter/sources/dmcluster.h"

#include <rapidjson/document.h>

#include "exporter/common/json.h"
#include "exporter/common/log.h"

namespace podwait {
namespace {

using rapidjson::Value;

const Value* Member(const Value& obj, const char* key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::string String(const Value* obj, const char* key) {
  const Value* v = obj == nullptr ? nullptr : Member(*obj, key);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                                       : std::string();
}

}  // namespace

DmClusterParse ParseDmCluster(const Value& object) {
  DmClusterParse result;
  auto fail = [&](std::string e) {
    result.error = std::move(e);
    return result;
  };
  if (!object.IsObject()) return fail("DMCluster is not an object");
  DmClusterStatus dc;
  const Value* meta = Member(object, "metadata");
  if (meta == nullptr || !meta->IsObject()) return fail("DMCluster without metadata");
  dc.key = {String(meta, "namespace"), String(meta, "name")};
  if (dc.key.name.empty()) return fail("DMCluster without metadata.name");
  const Value* spec = Member(object, "spec");
  const Value* spec_master = spec == nullptr ? nullptr : Member(*spec, "master");
  if (const Value* r = spec_master == nullptr ? nullptr : Member(*spec_master, "replicas")) {
    if (!r->IsInt()) return fail("spec.master.replicas is not an integer");
    dc.master_replicas = r->GetInt();
  }
  const Value* status = Member(object, "status");
  const Value* master = status == nullptr ? nullptr : Member(*status, "master");
  if (master != nullptr && !master->IsObject()) return fail("status.master is not an object");
  if (const Value* members = master == nullptr ? nullptr : Member(*master, "members")) {
    if (!members->IsObject()) return fail("status.master.members is not an object");
    for (const auto& m : members->GetObject()) {
      if (!m.value.IsObject()) return fail("status.master.members entry is not an object");
      const Value* health = Member(m.value, "health");
      if (health != nullptr && !health->IsBool()) {
        return fail("status.master.members health is not a boolean");
      }
      dc.master_members[std::string(m.name.GetString(), m.name.GetStringLength())] =
          health != nullptr && health->GetBool();
    }
  }
  dc.master_leader = String(master == nullptr ? nullptr : Member(*master, "leader"), "name");
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
