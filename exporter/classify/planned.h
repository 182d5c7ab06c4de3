#pragma once

// Rule family: planned waits of tidb-operator v2 (README.md, "Planned waits"), decided last over
// whatever the pod's wait would be.

#include <optional>
#include <string>
#include <string_view>

#include "exporter/classify/classifier_input.h"

namespace podwait::rules {

// The plan that holds a waiting pod, most sweeping first: the cluster's, then its instance's.
struct Plan {
  std::string_view reason;
  std::string evidence;
  Timestamp since = 0;
  Timestamp grace = 0;  // 0: no grace (paused, suspended)
  // The plan waits for the pod rather than holding it (a PD mode switch and a TSO or Scheduling
  // pod, which the switch needs up: pkg/controllers/pdgroup/tasks/mode_switch.go
  // checkTSODependency): the pod's own problem (capacity, constraints, image, config, a crash loop
  // past its grace, a volume past its grace) stays its class, the plan in its evidence.
  bool waits_for_pod = false;
};
std::optional<Plan> PlanOf(const Context& ctx, const InstanceReadiness* instance);

// `c` becomes `planned` (or `planned_stuck` past the plan's grace) with the plan's reason, the
// wait it would be otherwise kept in the evidence; unless the plan waits for the pod and the pod
// has a problem of its own (Plan::waits_for_pod): then `c` keeps its class and the plan is added
// to its evidence.
void ApplyPlan(const Context& ctx, const Plan& plan, Classification* c);

}  // namespace podwait::rules
