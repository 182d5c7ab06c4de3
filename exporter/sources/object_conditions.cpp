#include "exporter/sources/object_conditions.h"

#include "exporter/common/json.h"
#include "exporter/sources/pods.h"

namespace podwait {

void ReadObjectConditions(const rapidjson::Value* conditions,
                          std::span<const std::string_view> types,
                          std::span<NodeClaimCondition> out, size_t max_reason,
                          size_t max_message) {
  if (conditions == nullptr || !conditions->IsArray()) return;
  for (const rapidjson::Value& c : conditions->GetArray()) {
    if (!c.IsObject()) continue;
    const std::string_view type = json::Str(&c, "type");
    for (size_t i = 0; i < types.size() && i < out.size(); ++i) {
      if (type != types[i]) continue;
      NodeClaimCondition& o = out[i];
      o.status = ParseConditionStatus(json::Str(&c, "status"));
      o.reason = BoundedText(json::Str(&c, "reason"), max_reason);
      o.message = BoundedText(json::Str(&c, "message"), max_message);
      o.since = json::Time(&c, "lastTransitionTime");
    }
  }
}

}  // namespace podwait
