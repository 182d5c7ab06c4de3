#include "exporter/sources/provisioning_requests.h"

#include <utility>

#include "exporter/common/json.h"
#include "exporter/sources/object_conditions.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/reflector_options.h"

namespace podwait {

using json::Array;
using json::Object;
using json::Str;

namespace {
constexpr size_t kMaxMessage = 512;
}  // namespace

Result<ProvisioningRequestFacts> ParseProvisioningRequest(const rapidjson::Value& object) {
  using R = Result<ProvisioningRequestFacts>;
  const rapidjson::Value* meta = object.IsObject() ? Object(&object, "metadata") : nullptr;
  if (meta == nullptr) return R::Fail("ProvisioningRequest without metadata");
  ProvisioningRequestFacts pr;
  pr.namespace_ = std::string(Str(meta, "namespace"));
  pr.name = std::string(Str(meta, "name"));
  if (pr.namespace_.empty() || pr.name.empty()) {
    return R::Fail("ProvisioningRequest without a namespace or a name");
  }
  pr.provisioning_class =
      BoundedText(Str(Object(&object, "spec"), "provisioningClassName"), kMaxObjectName);
  ReadObjectConditions(Array(Object(&object, "status"), "conditions"), kProvReqConditions,
                       pr.conditions, kMaxObjectName, kMaxMessage);
  return R::Ok(std::move(pr));
}

bool ProvisioningRequestSource::OnListItem(const rapidjson::Value& object) {
  Result<ProvisioningRequestFacts> pr = ParseProvisioningRequest(object);
  if (!pr.ok()) return false;
  staged_.push_back(std::move(*pr.value));
  return true;
}

void ProvisioningRequestSource::OnListEnd(const std::string&) {
  store_.Replace(scope_, std::move(staged_));
  staged_ = {};
}

bool ProvisioningRequestSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  Result<ProvisioningRequestFacts> pr = ParseProvisioningRequest(object);
  if (!pr.ok()) return false;
  if (type == WatchEventType::kDeleted) {
    store_.Remove(pr.value->namespace_, pr.value->name);
  } else {
    store_.Upsert(std::move(*pr.value));
  }
  return true;
}

std::vector<ReflectorOptions> ProvisioningRequestReflectorOptions(const Config& config) {
  return ReflectorOptionsPerNamespace(config, "provisioningrequests", kProvisioningRequestApi);
}

}  // namespace podwait
