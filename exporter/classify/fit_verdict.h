#pragma once

// The scheduler's FitError as one verdict (README.md, "Mixed resource and constraint reasons"):
// more nodes like the ones that exist would fit, the pod's own constraints exclude every node, or
// unknown. Read by the unscheduled rules and by cluster-autoscaler's refusal when it gives no
// reason of its own (its own small file, so neither includes the other).

#include <string>
#include <string_view>

#include "exporter/classify/classifier_input.h"
#include "exporter/classify/messages.h"
#include "exporter/classify/volumes.h"

namespace podwait::rules {

// What the scheduler says, as a whole: resource shortage (more nodes like the ones that exist
// would fit), constraints (the pod's own requirements exclude every node), or unknown.
enum class FitVerdict : uint8_t { kResource, kConstraint, kUnknown };

// The scheduler reports, per node, the first filter that failed, in kube-scheduler's default order
// (scheduler_filters.h): a node reported short of room passed the filters before NodeResourcesFit
// (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts) — a node like it with
// room would take the pod, so a resource reason beside those constraints makes the mix
// `capacity` — but was never checked by the volume filters after it; ConstraintDecidesMix
// (volumes.h) says when a constraint decides anyway. Node-specific reasons (being deleted, not
// ready, cordoned, control plane) are not the pod's constraints: if nothing else fails, fresh
// nodes would fit. `note` (optional) gets why a constraint decided a mix.
FitVerdict Judge(const FitError& fit, const PodVolumeFacts* volumes, std::string_view* why,
                 std::string* note = nullptr);

// `capacity` for a resource verdict, else `constraints`, with reason `why`.
Classification FromFit(Timestamp start, FitVerdict verdict, std::string_view why,
                       std::string evidence);

}  // namespace podwait::rules
