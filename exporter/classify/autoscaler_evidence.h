#pragma once

// Rule family: what the autoscalers say about an unscheduled pod (README.md, "unscheduled", rows
// 1a-11, 14 and 14a): the ProvisioningRequest it consumes, the autoscaler's latest verdict on it
// (a scale-up triggered, a Karpenter nomination and its NodeClaim, a refusal), the
// cluster-autoscaler status ConfigMap, and a present autoscaler that says nothing.

#include <optional>
#include <string>

#include "exporter/classify/classifier_input.h"
#include "exporter/classify/messages.h"

namespace podwait::rules {

// The ProvisioningRequest the pod consumes decides when it is accepted, provisioned or failed;
// nullopt otherwise (not watched, not listed, not decided yet).
std::optional<Classification> FromProvisioningRequest(const Context& ctx, Timestamp start);

// The autoscaler's latest verdict `e` on the pod; nullopt when its message cannot be read. `fit`
// is the scheduler's message, for a refusal without reasons of its own.
std::optional<Classification> FromAutoscalerVerdict(const Context& ctx, Timestamp start,
                                                    const FitError& fit, const EventRecord& e);

// Resources short, no readable verdict: the CA status ConfigMap's cluster-wide backoff or a node
// group scaling up, when cluster-autoscaler is present; `since` is when the pod became
// unschedulable.
std::optional<Classification> FromCaStatus(const Context& ctx, Timestamp start, Timestamp since,
                                           const std::string& scheduler_evidence);

// Resources short and no verdict at all: a present autoscaler that is silent about the pod
// (autoscaler_silent), or nullopt.
std::optional<Classification> SilentAutoscaler(const Context& ctx, Timestamp start, Timestamp since,
                                               const std::string& evidence);

}  // namespace podwait::rules
