#include "exporter/classify/initializing.h"

#include "exporter/classify/containers.h"
#include "exporter/classify/dependency_wait.h"

namespace podwait::rules {
Classification ClassifyInitializing(const Context& ctx, Timestamp start) {
  const PodRecord& pod = ctx.pod;
  const Stage stage = Stage::kInitializing;

  if (auto p = FindProblem(pod)) {
    // A dependency-wait init container that exits non-zero while its dependency is down is doing
    // its job: the kubelet's restart back-off is its retry loop. While a needed dependency is not
    // ready the pod is `dependency` (the evidence keeps the crash loop); once the dependencies
    // are ready, or unknown, the crash loop is the story and shows as `crashloop`. Crash loops of
    // any other container always show.
    if (p->wait_class == WaitClass::kCrashloop && p->init &&
        IsDependencyWaitContainer(ctx.opt, p->container->name)) {
      std::vector<Dependency> needed = Needed(ctx);
      if (needed.empty()) needed = {Dependency::kPd};
      DepVerdict v = CheckNeeded(ctx, needed);
      if (v.state == Readiness::kNotReady) {
        return OnDependencies(Waiting(stage, WaitClass::kDependency, v.reason, start,
                                      v.evidence + "; " + ProblemEvidence(*p)),
                              v);
      }
    }
    return Waiting(stage, p->wait_class, p->reason, start, ProblemEvidence(*p));
  }
  if (auto v = VolumeOrSandboxWait(ctx, stage, start)) return *v;

  // The init container that runs now: the first that has not completed.
  const ContainerStatus* current = nullptr;
  for (const auto& c : pod.detail().init_containers) {
    if (c.state == ContainerState::kTerminated && c.exit_code == 0) continue;
    current = &c;
    break;
  }
  if (current == nullptr) {
    return Waiting(stage, WaitClass::kStarting, r::kPodInitializing, start,
                   pod.detail().init_containers.empty() ? "init containers not started yet"
                                                        : "init containers completed");
  }
  std::string what =
      "init container " + current->name +
      (current->state == ContainerState::kRunning ? " running" : " " + current->reason);
  // The dependency wait begins when the container runs (or has run: terminated between restarts).
  // Before that (ContainerCreating, pulling its image) the pod is starting like any other.
  if (IsDependencyWaitContainer(ctx.opt, current->name) &&
      current->state != ContainerState::kWaiting) {
    // A wait-for-pd container implies PD even for a component missing from the map.
    std::vector<Dependency> needed = Needed(ctx);
    if (needed.empty()) needed = {Dependency::kPd};
    DepVerdict v = CheckNeeded(ctx, needed);
    switch (v.state) {
      case Readiness::kNotReady:
        return OnDependencies(
            Waiting(stage, WaitClass::kDependency, v.reason, start, what + "; " + v.evidence), v);
      case Readiness::kUnknown:
        return Waiting(stage, WaitClass::kStarting, r::kDependencyUnknown, start,
                       what + "; " + v.evidence);
      case Readiness::kReady:
        // The wait began when the container first started (its state.running.startedAt), which
        // may be well after the stage began (an image pulled for minutes). A container that
        // restarted has only its last run's start: then the stage's start stands, so that a
        // wait that keeps failing and restarting is not given a new grace each time.
        return ReadyDependencyWait(
            ctx, stage, start, v, what,
            current->state == ContainerState::kRunning && current->restart_count == 0
                ? current->started_at
                : 0);
    }
  }
  std::string_view why = r::kContainerWaiting;
  if (current->state == ContainerState::kRunning) {
    why = r::kInitRunning;
  } else if (current->reason == "PodInitializing") {
    why = r::kPodInitializing;
  } else if (current->reason == "ContainerCreating") {
    why = r::kContainerCreating;
  }
  return Waiting(stage, WaitClass::kStarting, why, start, what);
}

}  // namespace podwait::rules
