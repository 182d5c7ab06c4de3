#pragma once

// Rule family: stage unscheduled (README.md, "unscheduled — in this order, first match wins"):
// the scheduling gate, what the autoscalers say (autoscaler_evidence.h), then the scheduler's
// message (fit_verdict.h).

#include "exporter/classify/classifier_input.h"

namespace podwait::rules {

// A pod whose PodScheduled is not True; `start` is its creation.
Classification ClassifyUnscheduled(const Context& ctx, Timestamp start);

}  // namespace podwait::rules
