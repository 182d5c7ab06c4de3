#include "exporter/classify/containers.h"

#include <utility>

namespace podwait::rules {
namespace {

std::optional<std::pair<WaitClass, std::string_view>> ProblemOf(const ContainerStatus& c) {
  if (c.state != ContainerState::kWaiting) return std::nullopt;
  const std::string& w = c.reason;
  if (w == "CrashLoopBackOff") return std::pair{WaitClass::kCrashloop, r::kCrashLoop};
  if (w == "ErrImagePull" || w == "ImagePullBackOff" || w == "RegistryUnavailable" ||
      w == "SignatureValidationFailed") {
    return std::pair{WaitClass::kImage, r::kImagePull};
  }
  // Neither fixes itself: the image reference or the pull policy is wrong.
  if (w == "InvalidImageName" || w == "ErrImageNeverPull") {
    return std::pair{WaitClass::kImage, r::kInvalidImage};
  }
  if (w == "CreateContainerConfigError" || w == "CreateContainerError" ||
      w == "RunContainerError" || w == "PreStartHookError" || w == "PreCreateHookError") {
    return std::pair{WaitClass::kConfig, r::kContainerConfig};
  }
  return std::nullopt;
}

}  // namespace

// The most telling problem of the pod's containers: a crash loop first (it is what restarts and
// pages), then image, then config; init containers before main containers.
std::optional<ContainerProblem> FindProblem(const PodRecord& pod) {
  for (WaitClass want : {WaitClass::kCrashloop, WaitClass::kImage, WaitClass::kConfig}) {
    for (bool init : {true, false}) {
      const auto& list = init ? pod.detail().init_containers : pod.detail().containers;
      for (const auto& c : list) {
        auto p = ProblemOf(c);
        if (p && p->first == want) return ContainerProblem{p->first, p->second, &c, init};
      }
    }
  }
  return std::nullopt;
}

std::string ProblemEvidence(const ContainerProblem& p) {
  std::string s = std::string(p.init ? "init container " : "container ") + p.container->name + " " +
                  p.container->reason;
  if (p.container->restart_count > 0) {
    s += " (restarts " + std::to_string(p.container->restart_count) + ")";
  }
  if (!p.container->message.empty()) s += ": " + p.container->message;
  return s;
}

bool HasImageOrConfigProblem(const PodRecord& pod) {
  for (const auto* list : {&pod.detail().init_containers, &pod.detail().containers}) {
    for (const auto& c : *list) {
      auto p = ProblemOf(c);
      if (p && p->first != WaitClass::kCrashloop) return true;
    }
  }
  return false;
}

// The component's main container (tidb-operator names it after the component, in v1 and v2):
// the one that exits while a dependency it needs is down. Sidecars (slow log, log tailers) are not.
bool IsMainContainer(const PodRecord& pod, const ContainerStatus& c) {
  return !pod.component.empty() && c.name == pod.component;
}

// A volume or the sandbox holds the containers back: `starting` with its reason within the volume
// grace, `volume` past it. The sandbox condition alone (no event) says nothing within the grace:
// every pod starts with PodReadyToStartContainers=False for a moment.
std::optional<Classification> VolumeOrSandboxWait(const Context& ctx, Stage stage,
                                                  Timestamp start) {
  std::optional<VolumeWait> w = FindVolumeWait(ctx.pod, ctx.events, start);
  if (!w) return std::nullopt;
  if (Past(ctx, start, ctx.opt.volume_grace)) {
    return Waiting(stage, WaitClass::kVolume, w->reason, start, std::move(w->evidence));
  }
  if (!w->from_event) return std::nullopt;
  return Waiting(stage, WaitClass::kStarting, w->reason, start, std::move(w->evidence));
}

}  // namespace podwait::rules
