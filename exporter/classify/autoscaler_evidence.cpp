#include "exporter/classify/autoscaler_evidence.h"

#include <utility>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/classify/fit_verdict.h"

namespace podwait::rules {
namespace {

std::string_view LastSegment(std::string_view name) {
  size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// The CA status ConfigMap entry of a node group an event names. GKE writes full instance group
// URLs whose host differs between the event and the ConfigMap, so the last path segment counts.
const NodeGroupStatus* FindGroup(const AutoscalerState& as, std::string_view name) {
  for (const auto& g : as.node_groups) {
    if (g.name == name) return &g;
  }
  for (const auto& g : as.node_groups) {
    if (LastSegment(g.name) == LastSegment(name)) return &g;
  }
  return nullptr;
}

// "node group eks-tikv-ng in scale-up backoff (QUOTA_EXCEEDED: Quota 'CPUS' exceeded ...)"
std::string BackoffEvidence(std::string_view group, const NodeGroupStatus& st) {
  std::string detail = st.backoff_code;
  if (!st.backoff_message.empty()) {
    detail += (detail.empty() ? "" : ": ") + st.backoff_message;
  }
  return "node group " + std::string(group) + " in scale-up backoff" +
         (detail.empty() ? "" : " (" + detail + ")");
}

// cluster-autoscaler said no. Its reasons count node groups. A group that could take the pod but
// may not grow (backoff, max size, cluster limits) makes it `capacity`, whatever the other groups
// say; so do resource reasons (the pod is bigger than any group's nodes: a real shortfall). Only
// constraint reasons (no group's nodes match the pod) make it `constraints`.
Classification FromRefusal(const Context& ctx, Timestamp start, const ScaleUpRefusal& refusal,
                           const FitError& fit, const EventRecord& e) {
  std::string evidence = EventEvidence(e);
  for (std::string_view limit : {r::kScaleUpBackoff, r::kNodeGroupNotReady, r::kMaxNodeGroupSize,
                                 r::kNodepoolLimit, r::kMaxClusterSize}) {
    for (const auto& x : refusal.reasons) {
      if (x.kind == FitKind::kLimit && x.reason == limit) {
        return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, limit, start, evidence);
      }
    }
  }
  if (const FitReason* res = DominantReason(refusal.reasons, FitKind::kResource)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, res->reason, start, evidence);
  }
  const FitReason* con = DominantReason(refusal.reasons, FitKind::kConstraint);
  if (con == nullptr) con = DominantReason(refusal.reasons, FitKind::kNodeSpecific);
  if (con != nullptr) {
    return Waiting(Stage::kUnscheduled, WaitClass::kConstraints, con->reason, start, evidence);
  }
  // No reason we know (the oldest CA wrote none): the scheduler's message decides.
  std::string_view why;
  FitVerdict v = Judge(fit, ctx.volumes, &why);
  return FromFit(start, v, why, evidence);
}

// Karpenter said no, one verdict per nodepool. Limits anywhere: `capacity` (a pool fits but may
// not grow); no instance type big enough: `capacity`; otherwise every pool excludes the pod:
// `constraints`.
Classification FromKarpenterFailure(Timestamp start, const std::vector<KarpenterPoolVerdict>& pools,
                                    const EventRecord& e) {
  std::vector<FitReason> reasons;
  for (const auto& p : pools) reasons.push_back(p.reason);
  std::string evidence = EventEvidence(e);
  if (const FitReason* lim = DominantReason(reasons, FitKind::kLimit)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, lim->reason, start, evidence);
  }
  if (const FitReason* res = DominantReason(reasons, FitKind::kResource)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, res->reason, start, evidence);
  }
  const FitReason* con = DominantReason(reasons, FitKind::kConstraint);
  return Waiting(Stage::kUnscheduled, WaitClass::kConstraints,
                 con != nullptr ? con->reason : r::kUnschedulableOther, start, evidence);
}

// The reason of a launch failure Karpenter reported on a NodeClaim (an event reason of
// karpenter's pkg/events/reason.go).
std::string_view LaunchFailureReason(std::string_view event_reason) {
  if (event_reason == "InsufficientCapacityError") return r::kKarpenterInsufficientCapacity;
  if (event_reason == "NodeClassNotReady") return r::kKarpenterNodeClassNotReady;
  return r::kKarpenterLaunchFailed;
}

// A Launched condition that is not True because launching failed: False, or Unknown with a
// reason other than the one every condition starts with (operatorpkg's AwaitingReconciliation;
// karpenter's lifecycle/launch.go writes LaunchFailed or the cloud provider's own reason).
bool LaunchFailing(const NodeClaimCondition& launched) {
  if (launched.status == ConditionStatus::kFalse) return true;
  return launched.status == ConditionStatus::kUnknown && !launched.reason.empty() &&
         launched.reason != "AwaitingReconciliation";
}

struct NodeClaimStageInfo {
  NodeClaimStage stage;
  std::string_view reason;  // the pod's reason while its NodeClaim is in this stage
  std::string_view doing;   // for the evidence
};
constexpr NodeClaimStageInfo kNodeClaimStages[] = {
    {NodeClaimStage::kLaunched, r::kKarpenterLaunching, "launching"},
    {NodeClaimStage::kRegistered, r::kKarpenterRegistering, "registering its node"},
    {NodeClaimStage::kInitialized, r::kKarpenterInitializing, "initializing its node"},
};

// "NodeClaim default-x9q2w Registered=Unknown NodeNotFound: Node not registered with cluster"
std::string NodeClaimEvidence(const NodeClaimFacts& nc, NodeClaimStage stage) {
  const NodeClaimCondition& c = nc.Condition(stage);
  std::string_view status = c.status == ConditionStatus::kFalse ? "False" : "Unknown";
  std::string out = "NodeClaim " + nc.name + " " +
                    std::string(kNodeClaimStageConditions[static_cast<size_t>(stage)]) + "=" +
                    std::string(status);
  if (!c.reason.empty()) out += " " + c.reason;
  if (!c.message.empty()) out += ": " + c.message;
  return out;
}

// The pod is nominated to a NodeClaim podwait watches: the NodeClaim's first stage that is not
// done says what the wait is (docs/DESIGN.md §4). A NodeClaim Karpenter deleted after a launch
// failure it reported makes the pod `capacity` with that failure; one gone without a reported
// failure leaves the pod to its own messages (nullopt). `since`: the first nomination.
std::optional<Classification> FromNodeClaim(const Context& ctx, Timestamp start,
                                            const NodeClaimView& claims, const std::string& name,
                                            Timestamp since, const EventRecord& e) {
  const NodeClaimFacts* nc = claims.Find(name);
  if (nc == nullptr || nc->deleting) {
    const NodeClaimFailure* failed = claims.FailureOf(name);
    if (failed == nullptr) return std::nullopt;
    return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, LaunchFailureReason(failed->reason),
                   start,
                   "NodeClaim " + name + " " + failed->reason + ": " + failed->message + "; " +
                       EventEvidence(e));
  }
  for (const NodeClaimStageInfo& s : kNodeClaimStages) {
    const NodeClaimCondition& c = nc->Condition(s.stage);
    if (c.status == ConditionStatus::kTrue) continue;
    std::string evidence = NodeClaimEvidence(*nc, s.stage) + "; " + EventEvidence(e);
    if (s.stage == NodeClaimStage::kLaunched && LaunchFailing(c)) {
      return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, r::kKarpenterLaunchFailed, start,
                     std::move(evidence));
    }
    if (Past(ctx, since, ctx.opt.provision_timeout)) {
      return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, r::kScaleUpTimeout, start,
                     "nominated " + std::string(kAgo) + ", NodeClaim still " +
                         std::string(s.doing) + "; " + evidence,
                     since);
    }
    return Waiting(Stage::kUnscheduled, WaitClass::kScaleUp, s.reason, start, std::move(evidence));
  }
  return std::nullopt;  // its node is up: the nomination's own rule decides
}

// What a ProvisioningRequest's conditions make of the wait of a pod consuming it
// (docs/DESIGN.md §4): the failures first (Failed, BookingExpired, CapacityRevoked: `capacity`,
// the request will not bring the pod a node), then Provisioned (the capacity is there, the
// scheduler places the pod next) and Accepted (cluster-autoscaler is finding or buying it): the
// wait is planned, `scale_up`. Neither: nullopt, the pod's own messages decide.
struct ProvReqRule {
  ProvReqCondition condition;
  WaitClass wait_class;
  std::string_view reason;
};
constexpr ProvReqRule kProvReqRules[] = {
    {ProvReqCondition::kFailed, WaitClass::kCapacity, r::kProvisioningRequestFailed},
    {ProvReqCondition::kBookingExpired, WaitClass::kCapacity,
     r::kProvisioningRequestBookingExpired},
    {ProvReqCondition::kCapacityRevoked, WaitClass::kCapacity,
     r::kProvisioningRequestCapacityRevoked},
    {ProvReqCondition::kProvisioned, WaitClass::kScaleUp, r::kProvisioningRequestProvisioned},
    {ProvReqCondition::kAccepted, WaitClass::kScaleUp, r::kProvisioningRequestAccepted},
};

// "ProvisioningRequest ns/name Failed=True CapacityIsNotFound: CA could not find requested
// capacity"
std::string ProvReqEvidence(const ProvisioningRequestFacts& pr, ProvReqCondition which) {
  const NodeClaimCondition& c = pr.Condition(which);
  std::string out = "ProvisioningRequest " + pr.Key() + " " +
                    std::string(kProvReqConditions[static_cast<size_t>(which)]) + "=True";
  if (!c.reason.empty()) out += " " + c.reason;
  if (!c.message.empty()) out += ": " + c.message;
  return out;
}

}  // namespace

std::optional<Classification> FromProvisioningRequest(const Context& ctx, Timestamp start) {
  const ProvisioningRequestView* view = ctx.autoscaler.provisioning_requests.get();
  if (view == nullptr || ctx.pod.detail().provisioning_request.empty()) return std::nullopt;
  const ProvisioningRequestFacts* pr =
      view->Find(ctx.pod.namespace_, ctx.pod.detail().provisioning_request);
  if (pr == nullptr) return std::nullopt;
  for (const ProvReqRule& rule : kProvReqRules) {
    if (pr->Condition(rule.condition).status != ConditionStatus::kTrue) continue;
    std::string evidence = ProvReqEvidence(*pr, rule.condition);
    // Accepted, not yet provisioned: why not yet (Provisioned=False CapacityIsNotFound, ...).
    const NodeClaimCondition& provisioned = pr->Condition(ProvReqCondition::kProvisioned);
    if (rule.condition == ProvReqCondition::kAccepted &&
        provisioned.status == ConditionStatus::kFalse) {
      evidence += "; Provisioned=False";
      if (!provisioned.reason.empty()) evidence += " " + provisioned.reason;
      if (!provisioned.message.empty()) evidence += ": " + provisioned.message;
    }
    return Waiting(Stage::kUnscheduled, rule.wait_class, rule.reason, start, std::move(evidence));
  }
  return std::nullopt;
}

// The autoscaler's latest verdict on the pod (a scale-up triggered, a nomination, a refusal);
// nullopt when its message cannot be read.
std::optional<Classification> FromAutoscalerVerdict(const Context& ctx, Timestamp start,
                                                    const FitError& fit, const EventRecord& e) {
  const Timestamp timeout = ctx.opt.provision_timeout;
  if (e.reason == "TriggeredScaleUp") {
    auto groups = ParseTriggeredScaleUp(e.message);
    if (groups) {
      for (const auto& g : *groups) {
        const NodeGroupStatus* st = FindGroup(ctx.autoscaler, g.name);
        if (st != nullptr && st->backoff) {
          return Waiting(Stage::kUnscheduled, WaitClass::kCapacity,
                         BackoffReason(st->backoff_code, st->backoff_message), start,
                         BackoffEvidence(g.name, *st) + "; " + EventEvidence(e));
        }
      }
    }
    // A scale-up is one attempt: re-triggering it writes a new event (or bumps `last`).
    if (Past(ctx, e.last, timeout)) {
      return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, r::kScaleUpTimeout, start,
                     "scale-up " + std::string(kAgo) + " did not bring a node; " + EventEvidence(e),
                     e.last);
    }
    return Waiting(Stage::kUnscheduled, WaitClass::kScaleUp, r::kScaleUpInProgress, start,
                   EventEvidence(e));
  }
  if (e.reason == "Nominated" || e.reason == "NominatedMachine") {
    // Karpenter repeats the nomination while the pod waits for the same NodeClaim (same
    // message: `count` and `last` grow), so the wait on it is measured from `first`.
    Timestamp since = e.first != 0 ? e.first : e.last;
    const NodeClaimView* claims = ctx.autoscaler.nodeclaims.get();
    std::optional<KarpenterNomination> nominated = ParseKarpenterNominated(e.message);
    if (claims != nullptr && claims->synced && nominated && nominated->kind == "nodeclaim") {
      const NodeClaimFacts* nc = claims->Find(nominated->name);
      if (nc == nullptr || nc->deleting ||
          nc->Condition(NodeClaimStage::kInitialized).status != ConditionStatus::kTrue) {
        return FromNodeClaim(ctx, start, *claims, nominated->name, since, e);
      }
    }
    if (Past(ctx, since, timeout)) {
      return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, r::kScaleUpTimeout, start,
                     "nominated " + std::string(kAgo) + ", still unscheduled; " + EventEvidence(e),
                     since);
    }
    return Waiting(Stage::kUnscheduled, WaitClass::kScaleUp, r::kKarpenterNominated, start,
                   EventEvidence(e));
  }
  if (e.reason == "NotTriggerScaleUp") {
    if (auto refusal = ParseNotTriggerScaleUp(e.message)) {
      return FromRefusal(ctx, start, *refusal, fit, e);
    }
  }
  if (e.reason == "FailedScheduling") {
    if (auto pools = ParseKarpenterFailedScheduling(e.message)) {
      return FromKarpenterFailure(start, *pools, e);
    }
  }
  return std::nullopt;
}

// Resources short and no verdict of cluster-autoscaler on the pod (events expire after an hour;
// pods that fit on nodes already being added get none): the CA status ConfigMap is the next best
// evidence. A cluster-wide scale-up backoff is `capacity`; a node group scaling up, within the
// provision timeout of the pod's unschedulable time (`since`), is `scale_up`.
std::optional<Classification> FromCaStatus(const Context& ctx, Timestamp start, Timestamp since,
                                           const std::string& scheduler_evidence) {
  if (!ctx.autoscaler.Present(AutoscalerKind::kClusterAutoscaler)) return std::nullopt;
  if (ctx.autoscaler.cluster_scale_up_backoff) {
    return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, r::kScaleUpBackoff, start,
                   "cluster-autoscaler cluster-wide scale-up backoff; " + scheduler_evidence);
  }
  if (!Past(ctx, since, ctx.opt.provision_timeout)) {
    for (const auto& g : ctx.autoscaler.node_groups) {
      if (g.scale_up_in_progress) {
        return Waiting(Stage::kUnscheduled, WaitClass::kScaleUp, r::kScaleUpInProgress, start,
                       "node group " + g.name + " scale-up in progress; " + scheduler_evidence);
      }
    }
  }
  return std::nullopt;
}

// A present autoscaler that said nothing about a pod short of resources (docs/DESIGN.md §4,
// "a silent autoscaler"): the autoscaler is what is broken, not the capacity. Silent when its
// status stopped moving (cluster-autoscaler's ConfigMap older than the silence grace), or when the
// pod has been unschedulable past the silence grace but within the events' lifetime (kEventTtl:
// any verdict written for this wait would still be there). Not silent: while a node group is
// scaling up (cluster-autoscaler writes nothing for a pod that fits on nodes already coming), or
// past the events' lifetime with a healthy status (the verdict may have expired).
std::optional<Classification> SilentAutoscaler(const Context& ctx, Timestamp start, Timestamp since,
                                               const std::string& evidence) {
  const AutoscalerState& as = ctx.autoscaler;
  for (const auto& g : as.node_groups) {
    if (g.scale_up_in_progress) return std::nullopt;
  }
  std::string names;
  bool stale = false;
  for (const AutoscalerInfo& info : kAutoscalers) {
    if (!as.Present(info.kind)) continue;
    names += (names.empty() ? "" : ", ") + std::string(info.name);
    stale = stale || as.status_stale[info.kind];
  }
  if (names.empty()) return std::nullopt;
  if (!stale && (!Past(ctx, since, ctx.opt.silence_grace) || Past(ctx, since, kEventTtl))) {
    return std::nullopt;
  }
  std::string why =
      stale ? "its status ConfigMap stopped updating (last " + std::string(kAgo) + ")"
            : "no verdict on the pod since it became unschedulable " + std::string(kAgo);
  return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, r::kAutoscalerSilent, start,
                 "autoscaler " + names + " present but silent: " + why + "; " + evidence,
                 stale ? as.ca_status_time : since);
}

}  // namespace podwait::rules
