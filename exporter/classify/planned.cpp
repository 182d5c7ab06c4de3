#include "exporter/classify/planned.h"

#include <algorithm>

namespace podwait::rules {
namespace {

// PD and its microservices, the pods a PD mode switch restarts or brings up.
bool IsPdComponent(std::string_view component) {
  return component == "pd" || component == "tso" || component == "scheduling" ||
         component == "scheduler";
}

// The microservices a switch to (or from) PD microservices mode brings up: it does not hold their
// pods, it waits for them (WaitingForTSOGroup, WaitingForTSOGroupReady, WaitingForTSOPrimary in
// pkg/controllers/pdgroup/tasks/mode_switch.go). The PD pods it restarts itself
// (SwitchingPDInstances).
bool IsBroughtUpBySwitch(std::string_view component) {
  return component == "tso" || component == "scheduling" || component == "scheduler";
}

// What no plan of the operator explains: nothing it does holds a pod back for these.
bool IsOwnProblem(WaitClass c) {
  switch (c) {
    case WaitClass::kCapacity:
    case WaitClass::kConstraints:
    case WaitClass::kImage:
    case WaitClass::kConfig:
    case WaitClass::kCrashloop:  // already past its grace: a dependency's crash loop is
                                 // `dependency`
    case WaitClass::kVolume:     // already past the volume grace
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<Plan> PlanOf(const Context& ctx, const InstanceReadiness* instance) {
  if (ctx.deps != nullptr) {
    const OperatorHold& h = ctx.deps->hold;
    if (h.paused) return Plan{r::kClusterPaused, "Cluster spec.paused: reconciliation stopped"};
    if (h.suspended) return Plan{r::kClusterSuspended, "Cluster Suspended=True (suspendCompute)"};
    if (h.suspending) {
      return Plan{r::kClusterSuspending, "Cluster suspendCompute set, Suspended not True yet"};
    }
    if (!h.mode_switch.empty() && IsPdComponent(ctx.pod.component)) {
      return Plan{r::kPdModeSwitch, "PDGroup ModeSwitching=True " + h.mode_switch,
                  h.mode_switch_since, ctx.opt.mode_switch_grace,
                  IsBroughtUpBySwitch(ctx.pod.component)};
    }
  }
  if (instance != nullptr && !instance->plan_reason.empty()) {
    const bool eviction = instance->plan_reason == r::kLeaderEviction;
    return Plan{eviction ? r::kLeaderEviction : r::kStoreOffline,
                (instance->kind.empty() ? std::string("v2") : instance->kind) + " instance " +
                    instance->plan_condition,
                instance->plan_since,
                eviction ? ctx.opt.leader_eviction_grace : ctx.opt.store_offline_grace};
  }
  return std::nullopt;
}

// A waiting pod that a plan holds: `planned` with the plan's reason, in the stage it is in; past
// the plan's grace, counted from the later of the plan's transition and the stage start (a
// condition's lastTransitionTime does not move when only its reason does, e.g.
// NotEvicted -> Evicting), `planned_stuck`. The wait it would be in otherwise stays in the
// evidence.
void ApplyPlan(const Context& ctx, const Plan& plan, Classification* c) {
  // A Failed TSO/Scheduling pod is its own problem too: the switch does not re-create it (it
  // re-creates only the PD pods whose mode changes).
  if (plan.waits_for_pod && (IsOwnProblem(c->wait_class) || ctx.pod.phase == PodPhase::kFailed)) {
    c->evidence = Cut(plan.evidence + " waits for this pod, does not hold it; " + c->evidence);
    return;
  }
  const Timestamp since = std::max(plan.since, c->stage_start);
  const bool stuck = plan.grace > 0 && Past(ctx, since, plan.grace);
  std::string evidence = plan.evidence + "; else " + std::string(WaitClassName(c->wait_class)) +
                         "/" + c->reason + ": " + c->evidence;
  Timestamp evidence_since = c->evidence_since;
  *c = Waiting(c->stage, stuck ? WaitClass::kPlannedStuck : WaitClass::kPlanned, plan.reason,
               c->stage_start, std::move(evidence), evidence_since);
}

}  // namespace podwait::rules
