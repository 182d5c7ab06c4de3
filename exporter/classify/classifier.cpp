#include "exporter/classify/classifier.h"

#include <algorithm>
#include <array>
#include <optional>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/classify/messages.h"
#include "exporter/classify/volumes.h"
#include "exporter/common/time_format.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

namespace r = reason;

// ---------------------------------------------------------------------------------------------
// Small helpers

std::string Cut(std::string s) {
  if (s.size() <= kMaxEvidenceLength) return s;
  size_t n = kMaxEvidenceLength;
  // Do not split a UTF-8 sequence: back up over continuation bytes.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  return s;
}

Classification Waiting(Stage stage, WaitClass c, std::string_view why, Timestamp start,
                       std::string evidence, Timestamp evidence_since = 0) {
  Classification out;
  out.waiting = true;
  out.stage = stage;
  out.wait_class = c;
  out.reason = std::string(why);
  out.stage_start = start;
  out.evidence = Cut(std::move(evidence));
  if (out.evidence.find(kEvidenceAgo) != std::string::npos) out.evidence_since = evidence_since;
  return out;
}

Classification NotWaiting(std::string evidence) {
  Classification out;
  out.waiting = false;
  out.evidence = std::move(evidence);
  return out;
}

bool IsTrue(const PodCondition* c) { return c != nullptr && c->status == ConditionStatus::kTrue; }

std::string EventEvidence(const EventRecord& e) { return e.reason + ": " + e.message; }

struct Context {
  const PodRecord& pod;
  std::vector<const EventRecord*> events;  // this pod's, oldest first by `last`
  const ClusterDependencies* deps;
  const AutoscalerState& autoscaler;
  const ClassifierOptions& opt;
  Timestamp now;
  const PodVolumeFacts* volumes = nullptr;  // nullptr: unknown
  // The earliest time a comparison made so far (Past) will answer differently; 0: none.
  mutable Timestamp recheck_at = 0;
};

// Whether more than `limit` has passed since `since` — the one way the classifier looks at the
// clock. Once true it stays true; while false, the time it turns true is remembered in the
// context, so the classification knows when it must be looked at again (recheck_at).
bool Past(const Context& ctx, Timestamp since, Timestamp limit) {
  const Timestamp turns = since + limit + 1;  // the first millisecond with now - since > limit
  if (ctx.now >= turns) return true;
  if (ctx.recheck_at == 0 || turns < ctx.recheck_at) ctx.recheck_at = turns;
  return false;
}

// " <t> ago" in evidence: the marker, measured from evidence_since (EvidenceText).
constexpr char kAgo[] = {kEvidenceAgo, '\0'};

// ---------------------------------------------------------------------------------------------
// Containers that cannot run

struct ContainerProblem {
  WaitClass wait_class;
  std::string_view reason;
  const ContainerStatus* container;
  bool init;
};

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

// ---------------------------------------------------------------------------------------------
// Dependencies

struct DepVerdict {
  Readiness state = Readiness::kUnknown;
  std::string_view reason;    // for kNotReady: which dependency, normalized
  Timestamp ready_since = 0;  // for kReady: the latest of the needed dependencies' ready_since
  std::string evidence;
};

bool IsDependencyWaitContainer(const ClassifierOptions& opt, const std::string& name) {
  return std::find(opt.dependency_init_containers.begin(), opt.dependency_init_containers.end(),
                   name) != opt.dependency_init_containers.end();
}

// The dependencies the pod's component waits for; empty when its component is not in the map.
std::vector<Dependency> Needed(const Context& ctx) {
  auto it = ctx.opt.dependency_map.find(ctx.pod.component);
  if (it == ctx.opt.dependency_map.end()) return {};
  return it->second;
}

DepVerdict CheckNeeded(const Context& ctx, const std::vector<Dependency>& needed) {
  DepVerdict v;
  if (ctx.deps == nullptr) {
    v.state = Readiness::kUnknown;
    v.evidence = "TiDB cluster " + (ctx.pod.cluster.empty() ? "(none)" : ctx.pod.cluster.str()) +
                 " has no dependency state";
    return v;
  }
  bool unknown = false;
  std::string unknown_names;
  Timestamp latest_ready = 0;
  // PD first: when PD is down, TiKV is down because of it.
  for (Dependency d : kAllDependencies) {
    if (std::find(needed.begin(), needed.end(), d) == needed.end()) continue;
    const DependencyStatus& s = ctx.deps->Get(d);
    switch (s.readiness) {
      case Readiness::kNotReady:
        v.state = Readiness::kNotReady;
        v.reason = PodReasonFor(d, s.reason);
        v.evidence = std::string(DependencyName(d)) + " not ready" +
                     (s.reason == DependencyReason::kNone
                          ? ""
                          : " (" + std::string(DependencyReasonName(s.reason)) + ")");
        return v;
      case Readiness::kUnknown:
        unknown = true;
        if (!unknown_names.empty()) unknown_names += ", ";
        unknown_names += DependencyName(d);
        break;
      case Readiness::kReady:
        latest_ready = std::max(latest_ready, s.ready_since);
        break;
    }
  }
  if (unknown) {
    v.state = Readiness::kUnknown;
    v.evidence = "readiness of " + unknown_names + " unknown";
    return v;
  }
  v.state = Readiness::kReady;
  v.ready_since = latest_ready;
  std::string names;
  for (Dependency d : needed) {
    if (!names.empty()) names += "+";
    names += DependencyName(d);
  }
  v.evidence = names + " ready" + (latest_ready != 0 ? std::string(" since ") + kAgo : "");
  return v;
}

// dependency (within the ready grace) or dependency_stuck (past it), measured from when the last
// needed dependency became ready, but never from before the stage began: a pod cannot have been
// stuck in a stage longer than it has been in it.
Classification ReadyDependencyWait(const Context& ctx, Stage stage, Timestamp start,
                                   const DepVerdict& v, const std::string& what) {
  Timestamp since = std::max(v.ready_since, start);
  WaitClass c = Past(ctx, since, ctx.opt.dependency_ready_grace) ? WaitClass::kDependencyStuck
                                                                 : WaitClass::kDependency;
  return Waiting(stage, c, r::kDependencyReady, start, what + "; " + v.evidence, v.ready_since);
}

// ---------------------------------------------------------------------------------------------
// Stage unscheduled

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
                 std::string* note = nullptr) {
  if (const FitReason* res = DominantReason(fit.reasons, FitKind::kResource)) {
    if (auto mixed = ConstraintDecidesMix(fit, volumes)) {
      *why = mixed->reason;
      if (note != nullptr) *note = std::move(mixed->note);
      return FitVerdict::kConstraint;
    }
    *why = res->reason;
    return FitVerdict::kResource;
  }
  if (const FitReason* con = DominantReason(fit.reasons, FitKind::kConstraint)) {
    *why = con->reason;
    return FitVerdict::kConstraint;
  }
  if (DominantReason(fit.reasons, FitKind::kNodeSpecific) != nullptr) {
    *why = r::kNodesUnavailable;
    return FitVerdict::kResource;
  }
  *why = r::kUnschedulableOther;
  return FitVerdict::kUnknown;
}

Classification FromFit(Timestamp start, FitVerdict verdict, std::string_view why,
                       std::string evidence) {
  WaitClass c = verdict == FitVerdict::kResource ? WaitClass::kCapacity : WaitClass::kConstraints;
  return Waiting(Stage::kUnscheduled, c, why, start, std::move(evidence));
}

// cluster-autoscaler said no. Its reasons count node groups. A group that could take the pod but
// may not grow (backoff, max size, cluster limits) makes it `capacity`, whatever the other groups
// say; so do resource reasons (the pod is bigger than any group's nodes: a real shortfall). Only
// constraint reasons (no group's nodes match the pod) make it `constraints`.
Classification FromRefusal(const Context& ctx, Timestamp start, const ScaleUpRefusal& refusal,
                           const FitError& fit, const EventRecord& e) {
  std::string evidence = EventEvidence(e);
  for (std::string_view limit :
       {r::kScaleUpBackoff, r::kMaxNodeGroupSize, r::kNodepoolLimit, r::kMaxClusterSize}) {
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
          return Waiting(Stage::kUnscheduled, WaitClass::kCapacity, BackoffReason(st->backoff_code),
                         start, BackoffEvidence(g.name, *st) + "; " + EventEvidence(e));
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

Classification ClassifyUnscheduled(const Context& ctx, Timestamp start) {
  const PodRecord& pod = ctx.pod;
  const PodCondition* cond = pod.Condition("PodScheduled");
  const Timestamp grace = ctx.opt.decision_grace;

  if (cond != nullptr && cond->reason == "SchedulingGated") {
    return Waiting(Stage::kUnscheduled, WaitClass::kGated, r::kSchedulingGated, start,
                   "PodScheduled=False SchedulingGated" +
                       (cond->message.empty() ? std::string() : ": " + cond->message));
  }

  // The ProvisioningRequest the pod consumes says whether its wait is planned.
  if (auto c = FromProvisioningRequest(ctx, start)) return std::move(*c);

  // The scheduler's view: the condition's message, or the last FailedScheduling it wrote.
  std::string fit_message = cond != nullptr ? cond->message : "";
  if (fit_message.empty()) {
    for (const EventRecord* e : ctx.events) {
      if (e->reason == "FailedScheduling" && EventAutoscalerKind(*e) == AutoscalerKind::kNone) {
        fit_message = e->message;  // events are oldest first: the last one wins
      }
    }
  }
  FitError fit = ParseFitError(fit_message);

  // The autoscaler's view: its latest verdict on this pod decides, positive or negative.
  const EventRecord* verdict = nullptr;
  for (const EventRecord* e : ctx.events) {
    if (IsAutoscalerVerdict(*e)) verdict = e;  // oldest first: the last one is the newest
  }
  if (verdict != nullptr) {
    if (auto c = FromAutoscalerVerdict(ctx, start, fit, *verdict)) return std::move(*c);
    // A verdict we cannot read: fall through to the scheduler's view.
  }

  if (cond == nullptr || cond->status != ConditionStatus::kFalse) {
    // The scheduler has not written a verdict yet.
    std::string_view why =
        Past(ctx, pod.created, grace) ? r::kNoSchedulerDecision : r::kAwaitingDecision;
    return Waiting(Stage::kUnscheduled, WaitClass::kScheduling, why, start,
                   fit_message.empty() ? "no PodScheduled condition yet" : fit_message);
  }

  const Timestamp since = cond->last_transition != 0 ? cond->last_transition : pod.created;
  const std::string scheduler_evidence =
      "PodScheduled=False " + cond->reason + (fit_message.empty() ? "" : ": " + fit_message);
  if (ctx.autoscaler.Any() && !Past(ctx, since, grace)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kScheduling, r::kAwaitingDecision, start,
                   "unschedulable " + std::string(kAgo) + ", autoscaler has not decided; " +
                       scheduler_evidence,
                   since);
  }

  // A ResourceClaim being created or allocated: not a verdict yet.
  if (const FitReason* pending = DominantReason(fit.reasons, FitKind::kTransient)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kScheduling, pending->reason, start,
                   scheduler_evidence);
  }
  std::string_view why;
  std::string mix_note;
  FitVerdict v = Judge(fit, ctx.volumes, &why, &mix_note);
  if (v == FitVerdict::kResource && ctx.autoscaler.Present(AutoscalerKind::kClusterAutoscaler)) {
    // No pod-specific verdict (events expire after an hour; pods that fit on nodes already being
    // added get none): the CA status ConfigMap is the next best evidence.
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
  }
  if (v == FitVerdict::kResource && verdict == nullptr) {
    if (auto c = SilentAutoscaler(ctx, start, since, scheduler_evidence)) return std::move(*c);
  }
  return FromFit(start, v, why,
                 mix_note.empty() ? scheduler_evidence : mix_note + "; " + scheduler_evidence);
}

// ---------------------------------------------------------------------------------------------
// Volumes and the sandbox (before any container starts; volumes.h)

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

// ---------------------------------------------------------------------------------------------
// Stage initializing

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
        return Waiting(stage, WaitClass::kDependency, v.reason, start,
                       v.evidence + "; " + ProblemEvidence(*p));
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
        return Waiting(stage, WaitClass::kDependency, v.reason, start, what + "; " + v.evidence);
      case Readiness::kUnknown:
        return Waiting(stage, WaitClass::kStarting, r::kDependencyUnknown, start,
                       what + "; " + v.evidence);
      case Readiness::kReady:
        return ReadyDependencyWait(ctx, stage, start, v, what);
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

// ---------------------------------------------------------------------------------------------
// Stage starting

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
      return Waiting(stage, WaitClass::kDependency, v.reason, start, v.evidence + "; " + crash);
    case Readiness::kUnknown:
      return std::nullopt;
    case Readiness::kReady:
      if (v.ready_since > start &&
          !Past(ctx, std::max(v.ready_since, start), ctx.opt.dependency_ready_grace)) {
        return Waiting(stage, WaitClass::kDependency, r::kDependencyReady, start,
                       crash + "; " + v.evidence, v.ready_since);
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
        return Waiting(stage, WaitClass::kDependency, v.reason, start, what + "; " + v.evidence);
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

Classification ClassifyWaitingPod(Context& ctx, std::span<const EventRecord> events) {
  const PodRecord& pod = ctx.pod;
  for (const auto& e : events) {
    // Events of an earlier pod with the same name (a StatefulSet pod deleted and re-created).
    if (!pod.uid.empty() && !e.pod_uid.empty() && e.pod_uid != pod.uid) continue;
    if (pod.created != 0 && e.last != 0 && e.last < pod.created) continue;
    ctx.events.push_back(&e);
  }
  std::stable_sort(ctx.events.begin(), ctx.events.end(),
                   [](const EventRecord* a, const EventRecord* b) { return a->last < b->last; });

  const PodCondition* scheduled = pod.Condition("PodScheduled");
  const PodCondition* initialized = pod.Condition("Initialized");
  auto or_created = [&](Timestamp t) { return t != 0 ? t : pod.created; };

  if (!IsTrue(scheduled)) return ClassifyUnscheduled(ctx, pod.created);
  if (!IsTrue(initialized))
    return ClassifyInitializing(ctx, or_created(scheduled->last_transition));
  Timestamp start = initialized->last_transition;
  if (const PodCondition* ready = pod.Condition("Ready"))
    start = std::max(start, ready->last_transition);
  return ClassifyStarting(ctx, or_created(start));
}

// PD and its microservices, the pods a PD mode switch restarts or brings up.
bool IsPdComponent(std::string_view component) {
  return component == "pd" || component == "tso" || component == "scheduling" ||
         component == "scheduler";
}

// The plan that holds a waiting pod, most sweeping first: the cluster's, then its instance's.
struct Plan {
  std::string_view reason;
  std::string evidence;
  Timestamp since = 0;
  Timestamp grace = 0;  // 0: no grace (paused, suspended)
};
std::optional<Plan> PlanOf(const Context& ctx, const InstanceReadiness* instance) {
  if (ctx.deps != nullptr) {
    const OperatorHold& h = ctx.deps->hold;
    if (h.paused) return Plan{r::kClusterPaused, "Cluster spec.paused: reconciliation stopped"};
    if (h.suspended) return Plan{r::kClusterSuspended, "Cluster Suspended=True (suspendCompute)"};
    if (h.suspending) {
      return Plan{r::kClusterSuspending, "Cluster suspendCompute set, Suspended not True yet"};
    }
    if (!h.mode_switch.empty() && IsPdComponent(ctx.pod.component)) {
      return Plan{r::kPdModeSwitch, "PDGroup ModeSwitching=True " + h.mode_switch,
                  h.mode_switch_since, ctx.opt.mode_switch_grace};
    }
  }
  if (instance != nullptr && !instance->plan_reason.empty()) {
    const bool eviction = instance->plan_reason == r::kLeaderEviction;
    return Plan{eviction ? r::kLeaderEviction : r::kStoreOffline,
                (instance->kind.empty() ? std::string("v2") : instance->kind) + " instance " +
                    instance->plan_condition,
                instance->plan_since,
                eviction ? ctx.opt.leader_eviction_grace : ctx.opt.store_offline_grace};
  }
  return std::nullopt;
}

// A waiting pod that a plan holds: `planned` with the plan's reason, in the stage it is in; past
// the plan's grace, counted from the later of the plan's transition and the stage start (a
// condition's lastTransitionTime does not move when only its reason does, e.g.
// NotEvicted -> Evicting), `planned_stuck`. The wait it would be in otherwise stays in the
// evidence.
void ApplyPlan(const Context& ctx, const Plan& plan, Classification* c) {
  const Timestamp since = std::max(plan.since, c->stage_start);
  const bool stuck = plan.grace > 0 && Past(ctx, since, plan.grace);
  std::string evidence = plan.evidence + "; else " + std::string(WaitClassName(c->wait_class)) +
                         "/" + c->reason + ": " + c->evidence;
  Timestamp evidence_since = c->evidence_since;
  *c = Waiting(c->stage, stuck ? WaitClass::kPlannedStuck : WaitClass::kPlanned, plan.reason,
               c->stage_start, std::move(evidence), evidence_since);
}

}  // namespace

Classification Classify(const PodRecord& pod, std::span<const EventRecord> events,
                        const ClusterDependencies* deps, const AutoscalerState& autoscaler,
                        const ClassifierOptions& options, Timestamp now,
                        const InstanceReadiness* instance, const PodVolumeFacts* volumes) {
  if (pod.deleted != 0) return NotWaiting("being deleted");
  if (pod.phase == PodPhase::kSucceeded) return NotWaiting("Succeeded");
  if (pod.phase == PodPhase::kFailed) return NotWaiting("Failed");
  Context ctx{pod, {}, deps, autoscaler, options, now, volumes};
  Classification c;
  if (pod.IsReady()) {
    if (instance == nullptr || !InstanceHoldsBackReadyPod(*instance)) return NotWaiting("Ready");
    c = ClassifyInstanceNotReady(ctx, *instance);
  } else {
    c = ClassifyWaitingPod(ctx, events);
    // The operator's word on the instance of a pod that is not Ready: evidence, never the class
    // (the pod's own state says more).
    if (c.waiting && instance != nullptr && instance->ready == ConditionStatus::kFalse) {
      c.evidence = Cut(c.evidence + "; " + InstanceEvidence(*instance));
    }
  }
  if (auto plan = c.waiting ? PlanOf(ctx, instance) : std::nullopt) ApplyPlan(ctx, *plan, &c);
  c.recheck_at = ctx.recheck_at;
  return c;
}

}  // namespace podwait
