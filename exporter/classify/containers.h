#pragma once

// Rule family: containers that cannot run (README.md, "Crash loops, images, configs" and
// "Volumes and the sandbox"), read by the initializing and starting rules.

#include <optional>
#include <string>
#include <string_view>

#include "exporter/classify/classifier_input.h"

namespace podwait::rules {

// A container that cannot run, and what that makes of the pod.
struct ContainerProblem {
  WaitClass wait_class;
  std::string_view reason;
  const ContainerStatus* container;
  bool init;
};

// The most telling problem of the pod's containers, or nullopt.
std::optional<ContainerProblem> FindProblem(const PodRecord& pod);
// "init container wait-for-pd CrashLoopBackOff (restarts 4): back-off 40s ..."
std::string ProblemEvidence(const ContainerProblem& p);
// Whether a container of the pod has an image or config problem (never hidden behind a
// dependency).
bool HasImageOrConfigProblem(const PodRecord& pod);
// Whether `c` is the component's main container.
bool IsMainContainer(const PodRecord& pod, const ContainerStatus& c);

// A volume or the sandbox holds the containers back (volumes.h FindVolumeWait): `starting` or,
// past the volume grace, `volume`; nullopt when nothing does.
std::optional<Classification> VolumeOrSandboxWait(const Context& ctx, Stage stage, Timestamp start);

}  // namespace podwait::rules
