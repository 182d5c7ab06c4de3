#include "exporter/model/types.h"

#include "exporter/common/time_format.h"
#include "exporter/model/v2.h"

namespace podwait {
const DependencyMap& DefaultDependencyMap() {
  static const DependencyMap map = [] {
    // tidb-operator v1's Pump (no v2 kind), then every v2 kind's own row (model/v2.cpp): v1's
    // components are the same processes under the same component names.
    DependencyMap m = {{"pump", {Dependency::kPd}}};
    for (const v2::Kind& k : v2::Kinds()) {
      if (!k.needs.empty()) m[std::string(k.component)] = k.needs;
    }
    return m;
  }();
  return map;
}

std::string EvidenceText(const Classification& c, Timestamp now) {
  const size_t at = c.evidence.find(kEvidenceAgo);
  if (at == std::string::npos) return c.evidence;
  std::string out = c.evidence.substr(0, at);
  out += FormatDuration(now > c.evidence_since ? now - c.evidence_since : 0) + " ago";
  for (size_t i = at + 1; i < c.evidence.size(); ++i) {
    if (c.evidence[i] != kEvidenceAgo) out += c.evidence[i];
  }
  return out;
}

std::vector<std::string_view> HoldNames(const OperatorHold& hold) {
  std::vector<std::string_view> out;
  if (hold.paused) out.push_back("paused");
  if (hold.suspending) out.push_back("suspending");
  if (hold.suspended) out.push_back("suspended");
  if (!hold.mode_switch.empty()) out.push_back("pd_mode_switch");
  return out;
}

}  // namespace podwait
