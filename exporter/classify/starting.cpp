#include "exporter/classify/starting.h"

#include <algorithm>
#include <optional>

#include "exporter/classify/containers.h"
#include "exporter/classify/dependency_wait.h"
#include "exporter/common/time_format.h"

namespace podwait::rules {
namespace {

// A main container that crash-loops (CrashLoopBackOff, or exited non-zero between restarts) while
// a dependency it needs is not ready is a symptom of that dependency: `dependency`, the crash loop
// kept in the evidence. So it stays while the dependency became ready during this stage and the
// ready grace has not passed (the kubelet's back-off, up to 5m, has to run out first). Otherwise —
// dependencies ready before the stage or past the grace, unknown, or none needed — nullopt: the
// crash loop is the story (unknown is never a false `dependency`).
std::optional<Classification> CrashLoopOnDependency(const Context& ctx, Stage stage,
                                                    Timestamp start, const std::string& crash) {
  std::vector<Dependency> needed = Needed(ctx);
  if (needed.empty()) return std::nullopt;
  DepVerdict v = CheckNeeded(ctx, needed);
  switch (v.state) {
    case Readiness::kNotReady:
      return OnDependencies(
          Waiting(stage, WaitClass::kDependency, v.reason, start, v.evidence + "; " + crash), v);
    case Readiness::kUnknown:
      return std::nullopt;
    case Readiness::kReady:
      if (v.ready_since > start &&
          !Past(ctx, std::max(v.ready_since, start), ctx.opt.dependency_ready_grace)) {
        return OnDependencies(Waiting(stage, WaitClass::kDependency, r::kDependencyReady, start,
                                      crash + "; " + v.evidence, v.ready_since),
                              v);
      }
      return std::nullopt;
  }
  return std::nullopt;
}

// Every container runs and some are not ready (`what` says which, or that the v2 instance is not
// Ready): dependency while a needed dependency is not ready or became ready within the grace;
// dependency_stuck past it; otherwise starting during the grace of a fresh start, then not_ready.
Classification RunningNotReady(const Context& ctx, Stage stage, Timestamp start, std::string what,
                               std::string_view own_reason, bool lost_readiness) {
  Timestamp ago_since = 0;  // of the dependencies' evidence, when it is added to `what`
  std::vector<Dependency> needed = Needed(ctx);
  if (!needed.empty()) {
    DepVerdict v = CheckNeeded(ctx, needed);
    switch (v.state) {
      case Readiness::kNotReady:
        return OnDependencies(
            Waiting(stage, WaitClass::kDependency, v.reason, start, what + "; " + v.evidence), v);
      case Readiness::kUnknown:
        return Waiting(stage, WaitClass::kNotReady, r::kDependencyUnknown, start,
                       what + "; " + v.evidence);
      case Readiness::kReady:
        // Waiting on a dependency means it became ready during this stage. If it was ready
        // before the stage began, the pod never waited for it: its readiness is its own.
        if (v.ready_since > start) return ReadyDependencyWait(ctx, stage, start, v, what);
        what += "; " + v.evidence;
        ago_since = v.ready_since;
        break;
    }
  }
  if (!lost_readiness && !Past(ctx, start, ctx.opt.dependency_ready_grace)) {
    return Waiting(stage, WaitClass::kStarting, own_reason, start, what, ago_since);
  }
  return Waiting(stage, WaitClass::kNotReady, own_reason, start, what, ago_since);
}

// A PD member that runs but is not Ready while PD has no leader, is not initialized, or is not
// ready at all (no Ready PD pod): PD is forming its quorum, and the member waits for its peers —
// which may themselves wait for nodes. `starting`/pd_bootstrap within --pd.bootstrap-grace of the
// stage start; past it PD failed to form, and the words say so: `not_ready`/pd_no_quorum (a
// problem never reads like the expected wait it was). A member that was Ready and lost it is not
// bootstrapping (a lost quorum is `not_ready` at once, as before).
std::optional<Classification> PdBootstrapWait(const Context& ctx, Stage stage, Timestamp start,
                                              const std::string& what, bool lost_readiness) {
  if (ctx.pod.component != "pd" || ctx.deps == nullptr || lost_readiness) return std::nullopt;
  const DependencyStatus& pd = ctx.deps->Get(Dependency::kPd);
  if (pd.readiness != Readiness::kNotReady) return std::nullopt;
  const std::string evidence = what + "; pd not ready" +
                               (pd.reason == DependencyReason::kNone
                                    ? ""
                                    : " (" + std::string(DependencyReasonName(pd.reason)) + ")");
  if (Past(ctx, start, ctx.opt.pd_bootstrap_grace)) {
    return Waiting(stage, WaitClass::kNotReady, r::kPdNoQuorum, start,
                   evidence + ": no quorum within the bootstrap grace (" +
                       FormatDuration(ctx.opt.pd_bootstrap_grace) + ")");
  }
  return Waiting(stage, WaitClass::kStarting, r::kPdBootstrap, start,
                 evidence + ": forming its quorum");
}

}  // namespace

Classification ClassifyStarting(const Context& ctx, Timestamp start) {
  const PodRecord& pod = ctx.pod;
  const Stage stage = Stage::kStarting;

  if (auto p = FindProblem(pod)) {
    if (p->wait_class == WaitClass::kCrashloop && !p->init && IsMainContainer(pod, *p->container) &&
        !HasImageOrConfigProblem(pod)) {
      if (auto dep = CrashLoopOnDependency(ctx, stage, start, ProblemEvidence(*p))) return *dep;
    }
    return Waiting(stage, p->wait_class, p->reason, start, ProblemEvidence(*p));
  }
  if (auto v = VolumeOrSandboxWait(ctx, stage, start)) return *v;

  if (pod.detail().containers.empty()) {
    return Waiting(stage, WaitClass::kStarting, r::kContainerCreating, start,
                   "containers not started yet");
  }
  for (const auto& c : pod.detail().containers) {
    if (c.state == ContainerState::kRunning) continue;
    // The main container exited non-zero and will be restarted (before CrashLoopBackOff shows).
    if (c.state == ContainerState::kTerminated && c.restart_count > 0 && c.exit_code != 0 &&
        IsMainContainer(pod, c)) {
      std::string crash = "container " + c.name + " " +
                          (c.reason.empty() ? std::string("terminated") : c.reason) +
                          " (exit code " + std::to_string(c.exit_code) + ", restarts " +
                          std::to_string(c.restart_count) + ")";
      if (auto dep = CrashLoopOnDependency(ctx, stage, start, crash)) return *dep;
    }
    std::string_view why = r::kContainerWaiting;
    if (c.reason == "ContainerCreating") why = r::kContainerCreating;
    if (c.reason == "PodInitializing") why = r::kPodInitializing;
    std::string what =
        "container " + c.name + " " + (c.reason.empty() ? std::string("not running") : c.reason);
    if (!c.message.empty()) what += ": " + c.message;
    return Waiting(stage, WaitClass::kStarting, why, start, what);
  }

  // Every container runs; some are not ready.
  const PodCondition* ready = pod.Condition("Ready");
  const PodCondition* initialized = pod.Condition("Initialized");
  std::string what = "Ready=False";
  if (ready != nullptr && !ready->message.empty()) what += ": " + ready->message;
  // A pod that was Ready and lost it (Ready changed after Initialized did) is not starting up.
  bool lost_readiness = ready != nullptr && initialized != nullptr &&
                        ready->last_transition > initialized->last_transition;
  if (auto b = PdBootstrapWait(ctx, stage, start, what, lost_readiness)) return *b;
  return RunningNotReady(ctx, stage, start, std::move(what), r::kReadinessProbe, lost_readiness);
}

// "TiKV instance Ready=False InstanceNotHealthy": what a v2 instance's Ready condition says.
std::string InstanceEvidence(const InstanceReadiness& instance) {
  return (instance.kind.empty() ? std::string("v2") : instance.kind) + " instance Ready=False" +
         (instance.reason.empty() ? std::string() : " " + instance.reason);
}

Classification ClassifyFailedV2Pod(const Context& ctx, const InstanceReadiness& instance) {
  const PodRecord& pod = ctx.pod;
  const PodDetail& d = pod.detail();
  Timestamp start = 0;
  for (std::string_view type : {"Initialized", "Ready"}) {
    if (const PodCondition* c = pod.Condition(type)) start = std::max(start, c->last_transition);
  }
  if (start == 0) start = pod.created;
  const bool evicted = d.status_reason == "Evicted";
  std::string what = "pod Failed" + (d.status_reason.empty() ? "" : " (" + d.status_reason + ")") +
                     ", never re-created by tidb-operator v2: delete the pod (kubectl -n " +
                     pod.namespace_.str() + " delete pod " + pod.name + ")";
  what += "; " + InstanceEvidence(instance);
  if (const PodCondition* t = pod.Condition("DisruptionTarget"); t != nullptr) {
    what += "; DisruptionTarget " + t->reason;
  }
  if (!d.status_message.empty()) what += "; kubelet: " + d.status_message;
  return Waiting(Stage::kStarting, WaitClass::kNotReady, evicted ? r::kEvicted : r::kPodFailed,
                 start, std::move(what));
}

// A Ready pod whose v2 instance is Ready=False: waiting in stage starting since the instance's
// condition changed, like a running pod that is not ready.
Classification ClassifyInstanceNotReady(const Context& ctx, const InstanceReadiness& instance) {
  Timestamp start = instance.since;
  if (start == 0) start = ctx.pod.ReadySince();
  if (start == 0) start = ctx.pod.created;
  std::string what = "pod Ready; " + InstanceEvidence(instance);
  const std::string_view own =
      instance.reason == kInstanceNotHealthy ? r::kInstanceNotHealthy : r::kInstanceNotReady;
  return RunningNotReady(ctx, Stage::kStarting, start, std::move(what), own,
                         /*lost_readiness=*/false);
}

}  // namespace podwait::rules
