#include "exporter/model/types.h"

namespace podwait {
namespace {

constexpr std::string_view kStageNames[] = {"unscheduled", "initializing", "starting"};
constexpr std::string_view kClassNames[] = {
    "dependency", "dependency_stuck", "scale_up", "capacity",   "constraints", "gated",
    "image",      "crashloop",        "config",   "scheduling", "starting",    "not_ready",
};
static_assert(std::size(kClassNames) == kWaitClassCount);
static_assert(std::size(kStageNames) == kStageCount);

}  // namespace

std::string_view DependencyName(Dependency d) { return d == Dependency::kPd ? "pd" : "tikv"; }

std::optional<Dependency> ParseDependency(std::string_view name) {
  if (name == "pd") return Dependency::kPd;
  if (name == "tikv") return Dependency::kTikv;
  return std::nullopt;
}

std::string_view ReadinessName(Readiness r) {
  switch (r) {
    case Readiness::kReady:
      return "ready";
    case Readiness::kNotReady:
      return "not_ready";
    case Readiness::kUnknown:
      break;
  }
  return "unknown";
}

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

std::string_view StageName(Stage s) { return kStageNames[static_cast<int>(s)]; }
std::string_view WaitClassName(WaitClass c) { return kClassNames[static_cast<int>(c)]; }

std::optional<Stage> ParseStage(std::string_view name) {
  for (int i = 0; i < kStageCount; ++i) {
    if (kStageNames[i] == name) return static_cast<Stage>(i);
  }
  return std::nullopt;
}

std::optional<WaitClass> ParseWaitClass(std::string_view name) {
  for (int i = 0; i < kWaitClassCount; ++i) {
    if (kClassNames[i] == name) return static_cast<WaitClass>(i);
  }
  return std::nullopt;
}

bool IsExpected(WaitClass c) {
  switch (c) {
    case WaitClass::kDependency:
    case WaitClass::kScaleUp:
    case WaitClass::kGated:
    case WaitClass::kScheduling:
    case WaitClass::kStarting:
      return true;
    default:
      return false;
  }
}

}  // namespace podwait
