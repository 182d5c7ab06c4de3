#include "exporter/classify/dependency_wait.h"

#include <algorithm>

namespace podwait::rules {
bool IsDependencyWaitContainer(const ClassifierOptions& opt, const std::string& name) {
  return std::find(opt.dependency_init_containers.begin(), opt.dependency_init_containers.end(),
                   name) != opt.dependency_init_containers.end();
}

std::vector<Dependency> Needed(const Context& ctx) {
  auto it = ctx.opt.dependency_map.find(ctx.pod.component);
  if (it == ctx.opt.dependency_map.end()) return {};
  std::vector<Dependency> out = it->second;
  // tso is needed only in a cluster that has it (PD microservices mode): elsewhere PD allocates
  // the timestamps and PD's readiness covers them.
  if (ctx.deps != nullptr && !ctx.deps->Applies(Dependency::kTso)) {
    std::erase(out, Dependency::kTso);
  }
  return out;
}

DepVerdict CheckNeeded(const Context& ctx, const std::vector<Dependency>& needed) {
  DepVerdict v;
  if (ctx.deps == nullptr) {
    v.state = Readiness::kUnknown;
    v.evidence = "TiDB cluster " + (ctx.pod.cluster.empty() ? "(none)" : ctx.pod.cluster.str()) +
                 " has no dependency state";
    return v;
  }
  bool unknown = false;
  bool not_from_here = false;
  bool elsewhere = false;
  std::string unknown_names;
  Timestamp latest_ready = 0;
  // PD first: when PD is down, TiKV is down because of it.
  for (Dependency d : kAllDependencies) {
    if (std::find(needed.begin(), needed.end(), d) == needed.end()) continue;
    const DependencyStatus& s = ctx.deps->Get(d);
    switch (s.readiness) {
      case Readiness::kNotReady:
        v.state = Readiness::kNotReady;
        v.on = DependencySet(d);
        v.reason = PodReasonFor(d, s.reason);
        v.evidence = std::string(DependencyName(d)) + " not ready" +
                     (s.reason == DependencyReason::kNone
                          ? ""
                          : " (" + std::string(DependencyReasonName(s.reason)) + ")");
        return v;
      case Readiness::kUnknown:
        unknown = true;
        not_from_here = not_from_here || s.reason == DependencyReason::kPdNotReachableFromHere;
        elsewhere = elsewhere || s.reason == DependencyReason::kPdElsewhere;
        if (!unknown_names.empty()) unknown_names += ", ";
        unknown_names += DependencyName(d);
        break;
      case Readiness::kReady:
        latest_ready = std::max(latest_ready, s.ready_since);
        break;
    }
  }
  if (unknown) {
    v.state = Readiness::kUnknown;
    v.evidence = "readiness of " + unknown_names + " unknown" +
                 (not_from_here ? ": PD not reachable from here (services/proxy refused)"
                  : elsewhere   ? ": PD lives elsewhere (not this cluster's own) and did not answer"
                                : "");
    return v;
  }
  v.state = Readiness::kReady;
  v.ready_since = latest_ready;
  std::string names;
  for (Dependency d : needed) {
    v.on.Insert(d);
    if (!names.empty()) names += "+";
    names += DependencyName(d);
  }
  v.evidence = names + " ready" + (latest_ready != 0 ? std::string(" since ") + kAgo : "");
  return v;
}

// dependency (within the ready grace) or dependency_stuck (past it), measured from when the last
// needed dependency became ready, but never from before the stage began (or the wait began): a
// pod cannot have been stuck in a stage longer than it has been in it.
Classification ReadyDependencyWait(const Context& ctx, Stage stage, Timestamp start,
                                   const DepVerdict& v, const std::string& what,
                                   Timestamp wait_start) {
  Timestamp since = std::max({v.ready_since, start, wait_start});
  WaitClass c = Past(ctx, since, ctx.opt.dependency_ready_grace) ? WaitClass::kDependencyStuck
                                                                 : WaitClass::kDependency;
  return OnDependencies(
      Waiting(stage, c, r::kDependencyReady, start, what + "; " + v.evidence, v.ready_since), v);
}

Classification OnDependencies(Classification c, const DepVerdict& v) {
  c.waits_on = v.on;
  return c;
}

}  // namespace podwait::rules
