#pragma once

// Rule family: stage initializing (README.md, "initializing"): a container that cannot run, a
// volume or the sandbox, the init container that runs now and the dependency it may wait for.

#include "exporter/classify/classifier_input.h"

namespace podwait::rules {

// A scheduled pod whose Initialized is not True; `start` is its PodScheduled transition.
Classification ClassifyInitializing(const Context& ctx, Timestamp start);

}  // namespace podwait::rules
