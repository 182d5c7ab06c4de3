#include "exporter/model/types.h"

#include "exporter/common/time_format.h"

namespace podwait {
const DependencyMap& DefaultDependencyMap() {
  static const DependencyMap map = {
      {"tikv", {Dependency::kPd}},
      {"tidb", {Dependency::kPd, Dependency::kTikv}},
      {"tiflash", {Dependency::kPd, Dependency::kTikv}},
      {"ticdc", {Dependency::kPd, Dependency::kTikv}},
      {"pump", {Dependency::kPd}},
      // PD microservices (tidb-operator v1 pdms and v2 TSO/Scheduling groups): their config's
      // backend-endpoints is the PD service (v2: pkg/configs/{tso,scheduling}/config.go).
      {"tso", {Dependency::kPd}},
      {"scheduling", {Dependency::kPd}},
      {"scheduler", {Dependency::kPd}},
  };
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
