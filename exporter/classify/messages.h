#pragma once

// Pure parsers for the messages that say why a pod is not scheduled and what an autoscaler does
// about it: the scheduler's FitError, cluster-autoscaler's TriggeredScaleUp / NotTriggerScaleUp
// and Karpenter's Nominated / NominatedMachine / FailedScheduling. No I/O; they never throw and
// never crash on bad input. Parsers of a specific format return nullopt when the text is not in
// that format; the FitError parser accepts anything (unrecognized text becomes one unknown reason).
//
// Formats (current and older), as these projects write them:
//   scheduler   "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint
//                {node.kubernetes.io/unreachable: }. preemption: 0/5 nodes are available: ..."
//               "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. ..."
//               "0/2 nodes are available: 1 node(s) had taint {k: v}, that the pod didn't
//               tolerate." "No nodes are available that match all of the predicates: Insufficient
//               cpu (2)." "no nodes available to schedule pods"
//   CA          "pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)}]"
//               "pod triggered scale-up, group: grp, sizes (current/new): 1/2"        (CA < 1.0)
//               "pod didn't trigger scale-up: 3 max node group size reached, 1 Insufficient cpu"
//               "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 max limit
//                reached"                                                             (CA < 1.16)
//   Karpenter   "Pod should schedule on: nodeclaim/default-abc12" (or node/...)
//               "Pod should schedule on node: x" / NominatedMachine "Pod should schedule on node
//                associated with machine: x"                                          (< v0.32)
//               "Failed to schedule pod, incompatible with nodepool \"a\", daemonset overhead={..},
//                did not tolerate ...; all available instance types exceed limits for nodepool
//                \"b\""

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podwait {

// How one "why not" relates to adding nodes. This is what separates `capacity` from `constraints`.
enum class FitKind : uint8_t {
  // The node lacks room (cpu, memory, pods, host ports, volume slots): a node like it with room
  // would fit the pod.
  kResource,
  // A property of that node, not of the pod: it is being deleted by the autoscaler, not ready,
  // unreachable, cordoned, or a control-plane node. A fresh node would not have it.
  kNodeSpecific,
  // The pod's own requirements: node affinity/selector, taints it does not tolerate, inter-pod
  // (anti-)affinity, topology spread, volumes. More nodes of the same kind do not help.
  kConstraint,
  // An autoscaler limit: max node group size, max cluster size, Karpenter nodepool limits,
  // scale-up backoff. A group could fit the pod but may not grow.
  kLimit,
  // Not a verdict yet: something the pod needs is being made right now (a ResourceClaim being
  // created or allocated). The pod is `scheduling`.
  kTransient,
  kUnknown,
};

struct FitReason {
  std::string_view reason;  // normalized: one of reason::k* (exporter/model/vocabulary.h)
  FitKind kind = FitKind::kUnknown;
  int count = -1;    // nodes (scheduler) or node groups (cluster-autoscaler); -1 when not given
  std::string text;  // the reason as written, trimmed
};

// Normalizes one reason as the scheduler, cluster-autoscaler or Karpenter writes it.
FitReason NormalizeFitReason(std::string_view text, int count = -1);

struct FitError {
  int total_nodes = -1;  // N of "0/N nodes are available"; 0 for "no nodes available"; -1 unknown
  std::vector<FitReason> reasons;  // in message order; the preemption part is ignored
};

// Parses the PodScheduled condition's / FailedScheduling event's message. A reason written without
// a count (a PreFilter failure such as unbound PVCs) counts for all nodes.
FitError ParseFitError(std::string_view message);

// One node group of a TriggeredScaleUp.
struct ScaleUpGroup {
  std::string name;
  int from = -1;
  int to = -1;
  int max = -1;  // -1 when not given
};

// cluster-autoscaler TriggeredScaleUp. nullopt when the message is not one (or names no group).
std::optional<std::vector<ScaleUpGroup>> ParseTriggeredScaleUp(std::string_view message);

// cluster-autoscaler NotTriggerScaleUp: why no node group was scaled up for the pod. Counts are
// node groups. nullopt when the message is not one.
struct ScaleUpRefusal {
  bool wouldnt_fit = false;  // the older "(it wouldn't fit if a new node is added)" phrasing
  std::vector<FitReason> reasons;
};
std::optional<ScaleUpRefusal> ParseNotTriggerScaleUp(std::string_view message);

// Karpenter Nominated / NominatedMachine.
struct KarpenterNomination {
  std::string kind;  // "nodeclaim", "node" or "machine"
  std::string name;
};
std::optional<KarpenterNomination> ParseKarpenterNominated(std::string_view message);

// Karpenter FailedScheduling ("Failed to schedule pod, ..."): one verdict per nodepool (or
// provisioner, before v0.32) it tried. nullopt when the message is not Karpenter's.
struct KarpenterPoolVerdict {
  std::string nodepool;  // may be empty when the message does not name it
  FitReason reason;
};
std::optional<std::vector<KarpenterPoolVerdict>> ParseKarpenterFailedScheduling(
    std::string_view message);

// The reason among `reasons` of kind `kind` with the highest count (ties: the first written), or
// nullptr when there is none of that kind.
const FitReason* DominantReason(const std::vector<FitReason>& reasons, FitKind kind);

}  // namespace podwait
