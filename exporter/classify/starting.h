#pragma once

// Rule family: stage starting (README.md, "starting" and "v2 instance not Ready"): a container
// that cannot run, the main container crash-looping on a dependency, containers not running yet,
// PD forming its quorum, and running pods that are not ready (their dependencies, or their own
// readiness).

#include <string>

#include "exporter/classify/classifier_input.h"

namespace podwait::rules {

// An initialized pod that is not Ready; `start` is the later of its Initialized and Ready
// transitions.
Classification ClassifyStarting(const Context& ctx, Timestamp start);

// A Ready pod whose v2 instance is Ready=False: waiting in stage starting since the instance's
// condition changed, like a running pod that is not ready.
Classification ClassifyInstanceNotReady(const Context& ctx, const InstanceReadiness& instance);

// A Failed pod (phase Failed: the kubelet evicted it, or it failed otherwise) of a v2 instance
// that is Ready=False. tidb-operator v2 never re-creates it: its instance controllers re-create a
// pod only when it is missing or its spec changed (pkg/controllers/tikv/tasks/pod.go TaskPod, the
// same in every component's), and nothing of v2 looks at the pod's phase. So it waits, in stage
// starting from its last conditions, `not_ready` (a problem: someone has to delete the pod), with
// reason `evicted` (status.reason Evicted) or `pod_failed`; the evidence says what to do.
Classification ClassifyFailedV2Pod(const Context& ctx, const InstanceReadiness& instance);

// "TiKV instance Ready=False InstanceNotHealthy": what a v2 instance's Ready condition says.
std::string InstanceEvidence(const InstanceReadiness& instance);

}  // namespace podwait::rules
