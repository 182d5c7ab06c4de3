#pragma once

// Rule family: waiting on a dependency (README.md, "dependency evaluation"): what the pod's
// component needs and whether that is ready, read by the initializing and starting rules.

#include <string>
#include <string_view>
#include <vector>

#include "exporter/classify/classifier_input.h"

namespace podwait::rules {

// The needed dependencies together: not ready (which one, why), unknown, or ready (since when).
struct DepVerdict {
  Readiness state = Readiness::kUnknown;
  std::string_view reason;    // for kNotReady: which dependency, normalized
  Timestamp ready_since = 0;  // for kReady: the latest of the needed dependencies' ready_since
  std::string evidence;
  DependencySet on;  // kNotReady: the one not ready; kReady: every needed one
};

// `c` (a dependency row decided by `v`) with the dependencies it waits on.
Classification OnDependencies(Classification c, const DepVerdict& v);

// Whether `name` is a dependency-wait init container (--dependency.init-containers).
bool IsDependencyWaitContainer(const ClassifierOptions& opt, const std::string& name);
// The dependencies the pod's component waits for; empty when its component is not in the map.
std::vector<Dependency> Needed(const Context& ctx);
// The cluster's state of `needed`, PD first.
DepVerdict CheckNeeded(const Context& ctx, const std::vector<Dependency>& needed);
// All needed dependencies ready (`v`): `dependency` within the ready grace, `dependency_stuck`
// past it, measured from the later of `v.ready_since` and `wait_start` (the stage's start, or
// later: when the pod's dependency-wait container started); `what` says what the pod does.
Classification ReadyDependencyWait(const Context& ctx, Stage stage, Timestamp start,
                                   const DepVerdict& v, const std::string& what,
                                   Timestamp wait_start = 0);

}  // namespace podwait::rules
