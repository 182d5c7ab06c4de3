// The message parsers of exporter/classify/messages.h on real-shaped strings. Each string says
// where its shape comes from: verbatim public material (a kubectl describe in an issue or write-up,
// the project's own source) or "made up" after a named real shape.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "exporter/classify/messages.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::SizeIs;

namespace r = reason;

::testing::Matcher<const FitReason&> Reason(std::string_view why, FitKind kind, int count) {
  return AllOf(Field("reason", &FitReason::reason, why), Field("kind", &FitReason::kind, kind),
               Field("count", &FitReason::count, count));
}

// ---------------------------------------------------------------------------------------------
// Scheduler FitError

TEST(FitError, RealFixtureAutoscalerTaintAndInsufficientCpu) {
  // Verbatim: tests/fixtures/real/k8s/pod-pending-unschedulable-autoscaler-taint.status.yaml.
  FitError f = ParseFitError(
      "0/3 nodes are available: 1 node(s) had untolerated taint {ToBeDeletedByClusterAutoscaler: "
      "1732299539}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not "
      "helpful for scheduling, 2 No preemption victims found for incoming pod.");
  EXPECT_EQ(f.total_nodes, 3);
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kNodesUnavailable, FitKind::kNodeSpecific, 1),
                                     Reason(r::kInsufficientCpu, FitKind::kResource, 2)));
  EXPECT_EQ(f.reasons[0].text,
            "node(s) had untolerated taint {ToBeDeletedByClusterAutoscaler: 1732299539}");
}

TEST(FitError, RealFixtureUnboundPvcWithCount) {
  // Verbatim: tests/fixtures/real/k8s/pod-pending-unschedulable-unbound-pvc.status.yaml.
  FitError f = ParseFitError(
      "0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims. preemption: "
      "0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(f.total_nodes, 2);
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kUnboundPvc, FitKind::kConstraint, 2)));
}

TEST(FitError, PreFilterReasonWithoutCountCountsAllNodes) {
  // Shape of newer schedulers' PreFilter failures ("0/1 nodes are available: pod has unbound
  // immediate PersistentVolumeClaims", as quoted in public troubleshooting tools' fixtures).
  FitError f = ParseFitError(
      "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/4 "
      "nodes are available: 4 Preemption is not helpful for scheduling.");
  EXPECT_EQ(f.total_nodes, 4);
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kUnboundPvc, FitKind::kConstraint, 4)));
}

TEST(FitError, UnreachableTaintIsNodeSpecific) {
  // The example of the design (k8s >= 1.25 wording "had untolerated taint {k: v}").
  FitError f = ParseFitError(
      "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint "
      "{node.kubernetes.io/unreachable: }. preemption: 0/5 nodes are available: 5 Preemption is "
      "not helpful for scheduling.");
  EXPECT_EQ(f.total_nodes, 5);
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kInsufficientCpu, FitKind::kResource, 2),
                                     Reason(r::kNodesUnavailable, FitKind::kNodeSpecific, 3)));
}

TEST(FitError, OlderTaintWordingAndNodeAffinity) {
  // Verbatim from a public EKS `kubectl describe pod` (k8s 1.2x, CA scale-up in progress):
  // the "had taint {k: v}, that the pod didn't tolerate" wording of schedulers before 1.25.
  FitError f = ParseFitError(
      "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity, 1 "
      "node(s) had taint {node.kubernetes.io/not-ready: }, that the pod didn't tolerate.");
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kInsufficientCpu, FitKind::kResource, 1),
                                     Reason(r::kNodeAffinity, FitKind::kConstraint, 1),
                                     Reason(r::kNodesUnavailable, FitKind::kNodeSpecific, 1)));
}

TEST(FitError, TaintWithoutKeyIsTheCurrentWording) {
  // Verbatim from a public EKS Auto Mode `kubectl describe pod` (k8s 1.31+: "untolerated
  // taint(s)" without the key, and a DRA sentence before the preemption one).
  FitError f = ParseFitError(
      "0/2 nodes are available: 2 node(s) had untolerated taint(s). no new claims to deallocate, "
      "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(f.total_nodes, 2);
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kUntoleratedTaint, FitKind::kConstraint, 2)));
}

TEST(FitError, OwnTaintIsAConstraint) {
  // Verbatim from a public EKS Auto Mode describe (a CriticalAddonsOnly system node).
  FitError f = ParseFitError(
      "0/1 nodes are available: 1 node(s) had untolerated taint {CriticalAddonsOnly: }. "
      "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kUntoleratedTaint, FitKind::kConstraint, 1)));
  // The k8s 1.18 wording (tainttoleration.ErrReasonNotMatch) and the control-plane taint.
  EXPECT_THAT(ParseFitError("0/5 nodes are available: 1 node(s) had taints that the pod didn't "
                            "tolerate, 4 Insufficient memory.")
                  .reasons,
              ElementsAre(Reason(r::kUntoleratedTaint, FitKind::kConstraint, 1),
                          Reason(r::kInsufficientMemory, FitKind::kResource, 4)));
  EXPECT_THAT(ParseFitError("0/1 nodes are available: 1 node(s) had untolerated taint "
                            "{node-role.kubernetes.io/control-plane: }.")
                  .reasons,
              ElementsAre(Reason(r::kNodesUnavailable, FitKind::kNodeSpecific, 1)));
}

TEST(FitError, ResourcesOfAllKinds) {
  // Verbatim from a public GKE describe of a GPU pod (beginning cut where the quote began).
  FitError f = ParseFitError(
      "0/3 nodes are available: 1 Insufficient ephemeral-storage, 1 Insufficient nvidia.com/gpu, 2 "
      "node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 1 "
      "No "
      "preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.");
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kInsufficientResources, FitKind::kResource, 1),
                                     Reason(r::kInsufficientResources, FitKind::kResource, 1),
                                     Reason(r::kNodeAffinity, FitKind::kConstraint, 2)));
  // Verbatim from a public cluster-autoscaler walkthrough: "Insufficient pods" (pod slots).
  EXPECT_THAT(ParseFitError("0/4 nodes are available: 4 Insufficient pods.").reasons,
              ElementsAre(Reason(r::kTooManyPods, FitKind::kResource, 4)));
  // The pre-1.13 wording "Too many pods" (predicates.ErrMaxVolumeCount-era schedulers).
  EXPECT_THAT(ParseFitError("0/2 nodes are available: 2 Too many pods.").reasons,
              ElementsAre(Reason(r::kTooManyPods, FitKind::kResource, 2)));
  // Made up after the NodePorts filter's reason.
  EXPECT_THAT(ParseFitError("0/3 nodes are available: 3 node(s) didn't have free ports for the "
                            "requested pod ports.")
                  .reasons,
              ElementsAre(Reason(r::kHostPortConflict, FitKind::kResource, 3)));
}

TEST(FitError, PodConstraints) {
  // Made up after the scheduler's reasons (NodeAffinity, InterPodAffinity, VolumeBinding,
  // PodTopologySpread), in the "N reason" list layout of the real messages above.
  EXPECT_THAT(
      ParseFitError("0/3 nodes are available: 3 node(s) didn't match node selector.").reasons,
      ElementsAre(Reason(r::kNodeAffinity, FitKind::kConstraint, 3)));
  EXPECT_THAT(ParseFitError("0/6 nodes are available: 3 node(s) didn't match pod anti-affinity "
                            "rules, 3 node(s) didn't match Pod's node affinity/selector.")
                  .reasons,
              ElementsAre(Reason(r::kPodAntiAffinity, FitKind::kConstraint, 3),
                          Reason(r::kNodeAffinity, FitKind::kConstraint, 3)));
  EXPECT_THAT(
      ParseFitError("0/3 nodes are available: 3 node(s) didn't match pod affinity rules.").reasons,
      ElementsAre(Reason(r::kPodAffinity, FitKind::kConstraint, 3)));
  EXPECT_THAT(ParseFitError("0/3 nodes are available: 3 node(s) had volume node affinity "
                            "conflict.")
                  .reasons,
              ElementsAre(Reason(r::kVolumeNodeAffinity, FitKind::kConstraint, 3)));
  EXPECT_THAT(ParseFitError("0/3 nodes are available: 3 node(s) didn't match pod topology spread "
                            "constraints.")
                  .reasons,
              ElementsAre(Reason(r::kTopologySpread, FitKind::kConstraint, 3)));
}

TEST(FitError, CordonedAndNoNodes) {
  // Made up after the NodeUnschedulable filter's reason.
  EXPECT_THAT(ParseFitError("0/3 nodes are available: 1 node(s) were unschedulable, 2 "
                            "Insufficient memory.")
                  .reasons,
              ElementsAre(Reason(r::kNodesUnavailable, FitKind::kNodeSpecific, 1),
                          Reason(r::kInsufficientMemory, FitKind::kResource, 2)));
  // The scheduler's message when the cluster has no node at all.
  FitError none = ParseFitError("no nodes available to schedule pods");
  EXPECT_EQ(none.total_nodes, 0);
  EXPECT_THAT(none.reasons, ElementsAre(Reason(r::kNoNodes, FitKind::kResource, 0)));
}

TEST(FitError, PreOneTenPredicatesWording) {
  // The k8s <= 1.9 wording: counts after the reason, predicate names.
  FitError f = ParseFitError(
      "No nodes are available that match all of the predicates: Insufficient cpu (2), "
      "MatchNodeSelector (1).");
  EXPECT_EQ(f.total_nodes, -1);
  EXPECT_THAT(f.reasons, ElementsAre(Reason(r::kInsufficientCpu, FitKind::kResource, 2),
                                     Reason(r::kNodeAffinity, FitKind::kConstraint, 1)));
}

TEST(FitError, NotAFitErrorIsOneReason) {
  // A scheduler error that is not a FitError (missing claim), and a plugin error.
  EXPECT_THAT(ParseFitError("persistentvolumeclaim \"tikv-demo-tikv-0\" not found").reasons,
              ElementsAre(Reason(r::kUnboundPvc, FitKind::kConstraint, -1)));
  EXPECT_THAT(ParseFitError("running PreBind plugin \"Foo\": rpc error: deadline exceeded").reasons,
              ElementsAre(Reason(r::kUnschedulableOther, FitKind::kUnknown, -1)));
}

// kubernetes pkg/scheduler/framework/plugins/volumebinding/binder.go (checkBindings: "provisioning
// failed for PVC %q"; BindPodVolumes: "binding volumes: %w"), wrapped by the framework's
// runPreBindPlugins: a volume provisioning failure, whatever the claim is called.
TEST(FitError, VolumeBindingPreBindProvisioningFailed) {
  EXPECT_THAT(ParseFitError("running PreBind plugin \"VolumeBinding\": binding volumes: "
                            "provisioning failed for PVC \"tikv-basic-tikv-0\"")
                  .reasons,
              ElementsAre(Reason(r::kVolumeProvisioningFailed, FitKind::kConstraint, -1)));
  // A claim whose name reads like a node condition is still the claim.
  EXPECT_THAT(ParseFitError("running PreBind plugin \"VolumeBinding\": binding volumes: "
                            "provisioning failed for PVC \"data-not-ready-unschedulable-0\"")
                  .reasons,
              ElementsAre(Reason(r::kVolumeProvisioningFailed, FitKind::kConstraint, -1)));
}

TEST(FitError, GarbageNeverCrashes) {
  EXPECT_THAT(ParseFitError("").reasons, IsEmpty());
  EXPECT_THAT(ParseFitError("   ").reasons, IsEmpty());
  EXPECT_THAT(ParseFitError("0/ nodes are available: ").reasons, IsEmpty());
  // Counts beyond int saturate; empty items and stray commas are dropped or kept as text.
  FitError big = ParseFitError(
      "0/99999999999999 nodes are available: 99999999999999 Insufficient cpu, , 3 , 4");
  ASSERT_THAT(big.reasons, SizeIs(2));
  EXPECT_THAT(big.reasons[0], Reason(r::kInsufficientCpu, FitKind::kResource, 2147483647));
  EXPECT_THAT(ParseFitError("0/3 nodes are available: 3 node(s) had untolerated taint {").reasons,
              ElementsAre(Reason(r::kUntoleratedTaint, FitKind::kConstraint, 3)));
  // Not FitErrors: one reason each, whatever the punctuation.
  EXPECT_THAT(ParseFitError("(").reasons, SizeIs(1));
  EXPECT_THAT(ParseFitError("x (1), (").reasons, SizeIs(1));
  // Counts last, broken: an item without "(N)" keeps count -1.
  EXPECT_THAT(ParseFitError("No nodes are available that match all of the predicates: "
                            "Insufficient cpu (2), MatchNodeSelector (")
                  .reasons,
              ElementsAre(Reason(r::kInsufficientCpu, FitKind::kResource, 2),
                          Reason(r::kNodeAffinity, FitKind::kConstraint, -1)));
}

TEST(FitError, DominantReasonPicksTheLargestCountThenTheFirst) {
  FitError f = ParseFitError(
      "0/9 nodes are available: 2 Insufficient cpu, 4 Insufficient memory, 3 node(s) didn't match "
      "Pod's node affinity/selector.");
  ASSERT_NE(DominantReason(f.reasons, FitKind::kResource), nullptr);
  EXPECT_EQ(DominantReason(f.reasons, FitKind::kResource)->reason, r::kInsufficientMemory);
  EXPECT_EQ(DominantReason(f.reasons, FitKind::kConstraint)->reason, r::kNodeAffinity);
  EXPECT_EQ(DominantReason(f.reasons, FitKind::kLimit), nullptr);
  FitError tie =
      ParseFitError("0/4 nodes are available: 2 Insufficient memory, 2 Insufficient cpu.");
  EXPECT_EQ(DominantReason(tie.reasons, FitKind::kResource)->reason, r::kInsufficientMemory);
}

// ---------------------------------------------------------------------------------------------
// cluster-autoscaler TriggeredScaleUp

::testing::Matcher<const ScaleUpGroup&> Group(const std::string& name, int from, int to, int max) {
  return AllOf(Field("name", &ScaleUpGroup::name, name), Field("from", &ScaleUpGroup::from, from),
               Field("to", &ScaleUpGroup::to, to), Field("max", &ScaleUpGroup::max, max));
}

TEST(TriggeredScaleUp, EksAutoScalingGroup) {
  // Verbatim from a public EKS `kubectl describe pod` (event from cluster-autoscaler).
  EXPECT_THAT(ParseTriggeredScaleUp("pod triggered scale-up: [{eks-40bd16d2-ecbd-df8a-2040-"
                                    "7bb5b1508a43 2->3 (max: 5)}]"),
              Optional(ElementsAre(Group("eks-40bd16d2-ecbd-df8a-2040-7bb5b1508a43", 2, 3, 5))));
}

TEST(TriggeredScaleUp, GkeInstanceGroupUrlAndClusterApi) {
  // Verbatim from a public GKE describe (the group is a full instance group URL).
  EXPECT_THAT(
      ParseTriggeredScaleUp(
          "pod triggered scale-up: [{https://www.googleapis.com/compute/v1/projects/"
          "gkebatchexpce3c8dcb/zones/us-east4-a/instanceGroups/gke-kh-e2e-l4-2-c399c5c0-grp 1->2 "
          "(max: 20)}]"),
      Optional(ElementsAre(Group("https://www.googleapis.com/compute/v1/projects/"
                                 "gkebatchexpce3c8dcb/zones/us-east4-a/instanceGroups/"
                                 "gke-kh-e2e-l4-2-c399c5c0-grp",
                                 1, 2, 20))));
  // Verbatim from a public OpenStack Magnum write-up (Cluster API MachineDeployment group).
  EXPECT_THAT(ParseTriggeredScaleUp(
                  "pod triggered scale-up: [{MachineDeployment/magnum-83bd0e70b4ba4cd092c2fb82b1ce"
                  "06fb/k8s-mbbffjfee7zs-default-worker 2->5 (max: 5)}]"),
              Optional(ElementsAre(Group("MachineDeployment/magnum-83bd0e70b4ba4cd092c2fb82b1ce06fb"
                                         "/k8s-mbbffjfee7zs-default-worker",
                                         2, 5, 5))));
}

TEST(TriggeredScaleUp, SeveralGroupsAndOldFormat) {
  // Made up: two groups in one event, as CA prints its []GroupSizeChange with %v.
  EXPECT_THAT(
      ParseTriggeredScaleUp("pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)} "
                            "{eks-tikv-ng-b 0->1 (max: 10)}]"),
      Optional(ElementsAre(Group("eks-tikv-ng", 3, 4, 10), Group("eks-tikv-ng-b", 0, 1, 10))));
  // Made up after CA < 1.0's format string "pod triggered scale-up, group: %s, sizes
  // (current/new): %d/%d".
  EXPECT_THAT(ParseTriggeredScaleUp("pod triggered scale-up, group: k8s-nodes, sizes "
                                    "(current/new): 1/2"),
              Optional(ElementsAre(Group("k8s-nodes", 1, 2, -1))));
}

TEST(TriggeredScaleUp, RejectsOtherMessages) {
  EXPECT_EQ(ParseTriggeredScaleUp("pod didn't trigger scale-up: 1 max node group size reached"),
            std::nullopt);
  EXPECT_EQ(ParseTriggeredScaleUp("pod triggered scale-up: []"), std::nullopt);
  EXPECT_EQ(ParseTriggeredScaleUp("pod triggered scale-up: [{nogroupsize}]"), std::nullopt);
  EXPECT_EQ(ParseTriggeredScaleUp(""), std::nullopt);
  EXPECT_EQ(ParseTriggeredScaleUp("pod triggered scale-up: [{a 1->"), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// cluster-autoscaler NotTriggerScaleUp

TEST(NotTriggerScaleUp, MaxNodeGroupSizeWithAffinity) {
  // Verbatim: kubernetes/autoscaler issue #5692 (GKE).
  auto r = ParseNotTriggerScaleUp(
      "pod didn't trigger scale-up: 12 node(s) didn't match Pod's node affinity/selector, 3 max "
      "node group size reached");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->wouldnt_fit);
  EXPECT_THAT(r->reasons, ElementsAre(Reason(r::kNodeAffinity, FitKind::kConstraint, 12),
                                      Reason(r::kMaxNodeGroupSize, FitKind::kLimit, 3)));
}

TEST(NotTriggerScaleUp, OldWouldntFitWording) {
  // Verbatim: kubernetes/autoscaler issue #3268 (CA 1.15; "max limit reached" was renamed "max
  // node group size reached" by PR #2160).
  auto r = ParseNotTriggerScaleUp(
      "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 max limit reached");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->wouldnt_fit);
  EXPECT_THAT(r->reasons, ElementsAre(Reason(r::kMaxNodeGroupSize, FitKind::kLimit, 1)));
  // Verbatim: kubernetes/autoscaler issues #1218 and #1607 (no reasons at all).
  auto bare = ParseNotTriggerScaleUp(
      "pod didn't trigger scale-up (it wouldn't fit if a new node is added)");
  ASSERT_TRUE(bare.has_value());
  EXPECT_TRUE(bare->wouldnt_fit);
  EXPECT_THAT(bare->reasons, IsEmpty());
}

TEST(NotTriggerScaleUp, BackoffClusterLimitsAndResources) {
  // Made up from CA's skipped-reason texts (PR #2160: "in backoff after failed scale-up",
  // "max cluster %s limit reached" with the resources joined by ", ", "not ready for scale-up").
  EXPECT_THAT(ParseNotTriggerScaleUp("pod didn't trigger scale-up: 1 in backoff after failed "
                                     "scale-up")
                  ->reasons,
              ElementsAre(Reason(r::kScaleUpBackoff, FitKind::kLimit, 1)));
  EXPECT_THAT(ParseNotTriggerScaleUp("pod didn't trigger scale-up: 2 max cluster cpu, memory limit "
                                     "reached, 1 not ready for scale-up")
                  ->reasons,
              ElementsAre(Reason(r::kMaxClusterSize, FitKind::kLimit, 2),
                          Reason(r::kNodeGroupNotReady, FitKind::kLimit, 1)));
  // cluster-autoscaler core/scaleup/orchestrator/skippedreasons.go NotReadyReason: an unhealthy
  // node group (clusterstate: too many unready nodes), not a backoff.
  EXPECT_THAT(ParseNotTriggerScaleUp("pod didn't trigger scale-up: 2 not ready for scale-up, 1 in "
                                     "backoff after failed scale-up")
                  ->reasons,
              ElementsAre(Reason(r::kNodeGroupNotReady, FitKind::kLimit, 2),
                          Reason(r::kScaleUpBackoff, FitKind::kLimit, 1)));
  // The example of docs/DESIGN.md §3.
  EXPECT_THAT(ParseNotTriggerScaleUp("pod didn't trigger scale-up: 3 max node group size reached, "
                                     "1 Insufficient cpu")
                  ->reasons,
              ElementsAre(Reason(r::kMaxNodeGroupSize, FitKind::kLimit, 3),
                          Reason(r::kInsufficientCpu, FitKind::kResource, 1)));
  // Verbatim from a public test of an autoscaler-aware tool (a taint the pod does not tolerate).
  EXPECT_THAT(ParseNotTriggerScaleUp("pod didn't trigger scale-up: 1 max node group size reached, "
                                     "2 node(s) had untolerated taint {dedicated: gpu}")
                  ->reasons,
              ElementsAre(Reason(r::kMaxNodeGroupSize, FitKind::kLimit, 1),
                          Reason(r::kUntoleratedTaint, FitKind::kConstraint, 2)));
}

TEST(NotTriggerScaleUp, RejectsOtherMessages) {
  EXPECT_EQ(ParseNotTriggerScaleUp("pod triggered scale-up: [{a 1->2 (max: 3)}]"), std::nullopt);
  EXPECT_EQ(ParseNotTriggerScaleUp(""), std::nullopt);
  auto empty = ParseNotTriggerScaleUp("pod didn't trigger scale-up:");
  ASSERT_TRUE(empty.has_value());
  EXPECT_THAT(empty->reasons, IsEmpty());
}

// ---------------------------------------------------------------------------------------------
// Karpenter

TEST(KarpenterNominated, NodeClaimNodeAndOlderForms) {
  // Verbatim from public describes: Karpenter >= v0.32 (nodeclaim/...), AKS node auto-provisioning
  // consolidation (node/...).
  EXPECT_THAT(ParseKarpenterNominated("Pod should schedule on: nodeclaim/default-tn8fg"),
              Optional(AllOf(Field(&KarpenterNomination::kind, "nodeclaim"),
                             Field(&KarpenterNomination::name, "default-tn8fg"))));
  EXPECT_THAT(ParseKarpenterNominated("Pod should schedule on: node/aks-default-v57bb"),
              Optional(AllOf(Field(&KarpenterNomination::kind, "node"),
                             Field(&KarpenterNomination::name, "aks-default-v57bb"))));
  // karpenter-core v0.2x pkg/events: Nominated "Pod should schedule on node: %s" and
  // NominatedMachine "Pod should schedule on node associated with machine: %s".
  EXPECT_THAT(ParseKarpenterNominated("Pod should schedule on node: ip-192-168-12-7.ec2.internal"),
              Optional(AllOf(Field(&KarpenterNomination::kind, "node"),
                             Field(&KarpenterNomination::name, "ip-192-168-12-7.ec2.internal"))));
  EXPECT_THAT(ParseKarpenterNominated("Pod should schedule on node associated with machine: "
                                      "default-7xk2p"),
              Optional(AllOf(Field(&KarpenterNomination::kind, "machine"),
                             Field(&KarpenterNomination::name, "default-7xk2p"))));
  EXPECT_EQ(ParseKarpenterNominated("Pod should schedule on: "), std::nullopt);
  EXPECT_EQ(ParseKarpenterNominated("Successfully assigned tidb/demo-tikv-0 to node-1"),
            std::nullopt);
}

::testing::Matcher<const KarpenterPoolVerdict&> Pool(const std::string& name, std::string_view why,
                                                     FitKind kind) {
  return AllOf(Field("nodepool", &KarpenterPoolVerdict::nodepool, name),
               Field("reason", &KarpenterPoolVerdict::reason,
                     AllOf(Field(&FitReason::reason, why), Field(&FitReason::kind, kind))));
}

TEST(KarpenterFailedScheduling, SeveralNodepools) {
  // A public Karpenter troubleshooting write-up quotes this event with parts elided ("..."); the
  // elided daemonset overheads are filled in here after the first pool's.
  auto v = ParseKarpenterFailedScheduling(
      "Failed to schedule pod, incompatible with nodepool \"system\", daemonset "
      "overhead={\"cpu\":\"821m\",\"memory\":\"1350Mi\",\"pods\":\"10\"}, incompatible "
      "requirements, label \"nvidia.com/device-plugin.config\" does not have known values; "
      "incompatible with nodepool \"runner-arm\", daemonset "
      "overhead={\"cpu\":\"821m\",\"memory\":\"1350Mi\",\"pods\":\"10\"}, did not tolerate "
      "workload-type=ci-runner:NoSchedule; all available instance types exceed limits for nodepool "
      "\"graviton\"");
  EXPECT_THAT(v,
              Optional(ElementsAre(Pool("system", r::kNodeAffinity, FitKind::kConstraint),
                                   Pool("runner-arm", r::kUntoleratedTaint, FitKind::kConstraint),
                                   Pool("graviton", r::kNodepoolLimit, FitKind::kLimit))));
}

TEST(KarpenterFailedScheduling, RequirementsTopologyAndInstanceTypes) {
  // A public EKS workshop's describe (two pools; the topology reason's tail was cut there and is
  // completed here in the same layout).
  auto v = ParseKarpenterFailedScheduling(
      "Failed to schedule pod, incompatible with nodepool \"teama-spot\", daemonset "
      "overhead={\"cpu\":\"150m\",\"pods\":\"2\"}, incompatible requirements, key capacity_type, "
      "capacity_type In [on-demand] not in capacity_type In [spot]; incompatible with nodepool "
      "\"teama-on-demand\", daemonset overhead={\"cpu\":\"150m\",\"pods\":\"2\"}, unsatisfiable "
      "topology constraint for topology spread, key=capacity-spread (counts = 2: 0 3: 0 1: 2)");
  EXPECT_THAT(
      v, Optional(ElementsAre(Pool("teama-spot", r::kNodeAffinity, FitKind::kConstraint),
                              Pool("teama-on-demand", r::kTopologySpread, FitKind::kConstraint))));
  // A public k9s screenshot transcript (pod bigger than any allowed instance type; cut there).
  auto big = ParseKarpenterFailedScheduling(
      "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
      "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, no instance type satisfied resources "
      "{\"cpu\":\"150m\",\"pods\":\"4\"} and requirements karpenter.k8s.aws/instance-category In "
      "[c m r]");
  EXPECT_THAT(
      big, Optional(ElementsAre(Pool("default", r::kInsufficientResources, FitKind::kResource))));
  // The klog.KRef rendering "(NodePool=legion)" of newer Karpenter (public test fixture).
  auto limit = ParseKarpenterFailedScheduling(
      "Failed to schedule pod, incompatible with nodepool \"other\"; all available instance types "
      "exceed limits for nodepool (NodePool=legion)");
  ASSERT_TRUE(limit.has_value());
  ASSERT_THAT(*limit, SizeIs(2));
  EXPECT_EQ((*limit)[1].nodepool, "legion");
  EXPECT_EQ((*limit)[1].reason.reason, r::kNodepoolLimit);
}

// The instance type filter's cause (karpenter pkg/controllers/provisioning/scheduling/
// nodeclaim.go: filterResults.FailureReason before v1.3, in the trailing parenthesis of "no
// instance type satisfied resources %s and requirements %s (%s)"; InstanceTypeFilterError.Error
// since v1.3, leading "<cause>, requirements=%s, resources=%s"). Messages built from those format
// strings with made-up requirements and resources.
TEST(KarpenterFailedScheduling, InstanceTypeFilterCause) {
  auto one = [](const std::string& tail) {
    auto v = ParseKarpenterFailedScheduling(
        "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
        "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, " +
        tail);
    return v.has_value() && v->size() == 1 ? (*v)[0].reason : FitReason{};
  };
  const std::string old_head =
      "no instance type satisfied resources {\"cpu\":\"16150m\",\"memory\":\"64Gi\",\"pods\":"
      "\"4\"} and requirements karpenter.k8s.aws/instance-category In [c m r], "
      "karpenter.sh/capacity-type In [on-demand], topology.kubernetes.io/zone In [us-east-1a] ";
  // Before v1.3: the cause in the parenthesis decides.
  EXPECT_THAT(one(old_head + "(no instance type met all requirements)"),
              AllOf(Field(&FitReason::reason, r::kNodeAffinity),
                    Field(&FitReason::kind, FitKind::kConstraint)));
  EXPECT_THAT(one(old_head + "(no instance type has enough resources)"),
              AllOf(Field(&FitReason::reason, r::kInsufficientResources),
                    Field(&FitReason::kind, FitKind::kResource)));
  EXPECT_THAT(one(old_head + "(no instance type has enough resources (CPU request >= 1 Million, "
                             "m vs M typo?))"),
              Field(&FitReason::reason, r::kInsufficientResources));
  EXPECT_THAT(one(old_head + "(no instance type has the required offering)"),
              AllOf(Field(&FitReason::reason, r::kKarpenterInsufficientCapacity),
                    Field(&FitReason::kind, FitKind::kResource)));
  EXPECT_THAT(one(old_head + "(no instance type which met the scheduling requirements and had "
                             "enough resources, had a required offering)"),
              Field(&FitReason::reason, r::kKarpenterInsufficientCapacity));
  EXPECT_THAT(one(old_head + "(no instance type met the scheduling requirements or had enough "
                             "resources)"),
              Field(&FitReason::kind, FitKind::kConstraint));
  EXPECT_THAT(one(old_head + "(no instance type had enough resources or had a required "
                             "offering)"),
              Field(&FitReason::reason, r::kInsufficientResources));
  EXPECT_THAT(one(old_head + "(no instance type which had enough resources and the required "
                             "offering met the scheduling requirements)"),
              Field(&FitReason::kind, FitKind::kConstraint));
  // Without a cause (the oldest releases; a cut message): the resources did not fit.
  EXPECT_THAT(one(old_head), Field(&FitReason::reason, r::kInsufficientResources));
  // v1.3 and later: the cause first, the requirements after it (they may name anything).
  const std::string tail =
      ", requirements=karpenter.k8s.aws/instance-category In [c m r], karpenter.sh/nodepool In "
      "[default], resources={\"cpu\":\"16150m\",\"pods\":\"4\"}";
  EXPECT_THAT(
      one("no instance type met the scheduling requirements or had enough resources" + tail),
      AllOf(Field(&FitReason::reason, r::kNodeAffinity),
            Field(&FitReason::kind, FitKind::kConstraint)));
  EXPECT_THAT(one("no instance type met the scheduling requirements or had enough resources or "
                  "had a required offering" +
                  tail),
              Field(&FitReason::kind, FitKind::kConstraint));
  EXPECT_THAT(one("no instance type met all requirements" + tail),
              Field(&FitReason::kind, FitKind::kConstraint));
  EXPECT_THAT(one("no instance type has enough resources" + tail),
              AllOf(Field(&FitReason::reason, r::kInsufficientResources),
                    Field(&FitReason::kind, FitKind::kResource)));
  EXPECT_THAT(one("no instance type has the required offering" + tail),
              Field(&FitReason::reason, r::kKarpenterInsufficientCapacity));
  EXPECT_THAT(one("no instance type met the requirements/resources/offering tuple" + tail),
              Field(&FitReason::reason, r::kInsufficientResources));
  // pkg/cloudprovider/types.go SatisfiesMinValues.
  EXPECT_THAT(one("minValues requirement is not met for label(s)" + tail),
              Field(&FitReason::kind, FitKind::kConstraint));
}

TEST(KarpenterFailedScheduling, RejectsSchedulerMessages) {
  EXPECT_EQ(ParseKarpenterFailedScheduling("0/3 nodes are available: 3 Insufficient cpu."),
            std::nullopt);
  EXPECT_THAT(ParseKarpenterFailedScheduling("Failed to schedule pod, "), Optional(IsEmpty()));
}

// ---------------------------------------------------------------------------------------------
// Robustness: every parser on cut and mangled real messages (run under ASan/UBSan in CI).

TEST(Parsers, MangledMessagesNeverCrash) {
  const std::string real[] = {
      "0/3 nodes are available: 1 node(s) had untolerated taint {ToBeDeletedByClusterAutoscaler: "
      "1732299539}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not "
      "helpful for scheduling, 2 No preemption victims found for incoming pod.",
      "No nodes are available that match all of the predicates: Insufficient cpu (2), "
      "MatchNodeSelector (1).",
      "pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)} {b 0->1 (max: 5)}]",
      "pod triggered scale-up, group: k8s-nodes, sizes (current/new): 1/2",
      "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 2 max cluster cpu, "
      "memory limit reached, 1 in backoff after failed scale-up",
      "Pod should schedule on node associated with machine: default-7xk2p",
      "Failed to schedule pod, incompatible with nodepool \"a\", daemonset overhead={\"cpu\":"
      "\"1\"}, did not tolerate x=y:NoSchedule; all available instance types exceed limits for "
      "nodepool (NodePool=b)",
  };
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  const char noise[] = "{}()[]/:;,. 0123456789->\"";
  int parsed = 0;
  for (const std::string& m : real) {
    for (size_t cut = 0; cut <= m.size(); ++cut) {
      std::string s = m.substr(0, cut);
      for (int k = 0; k < 3; ++k) {
        if (!s.empty() && next() % 2 == 0)
          s[next() % s.size()] = noise[next() % (sizeof(noise) - 1)];
        FitError f = ParseFitError(s);
        parsed += static_cast<int>(f.reasons.size());
        for (const auto& x : f.reasons) EXPECT_TRUE(FindReason(x.reason) != nullptr);
        ParseTriggeredScaleUp(s);
        if (auto no = ParseNotTriggerScaleUp(s)) {
          for (const auto& x : no->reasons) EXPECT_TRUE(FindReason(x.reason) != nullptr);
        }
        ParseKarpenterNominated(s);
        ParseKarpenterFailedScheduling(s);
      }
    }
  }
  EXPECT_GT(parsed, 0);
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

TEST(Reasons, EveryNormalizedReasonIsInTheVocabulary) {
  for (std::string_view text :
       {"Insufficient cpu", "Insufficient memory", "Insufficient hugepages-2Mi", "Too many pods",
        "node(s) didn't have free ports", "node(s) were unschedulable",
        "max node group size reached", "max cluster memory limit reached",
        "in backoff after failed scale-up", "exceed limits", "node(s) didn't match node selector",
        "did not tolerate a=b:NoSchedule", "node(s) didn't match pod affinity rules",
        "node(s) didn't match pod anti-affinity rules",
        "node(s) didn't match pod topology spread constraints",
        "pod has unbound immediate PersistentVolumeClaims",
        "node(s) had volume node affinity conflict", "something new",
        "no nodes available to schedule pods"}) {
    EXPECT_TRUE(FindReason(NormalizeFitReason(text).reason) != nullptr) << text;
  }
  EXPECT_FALSE(FindReason("Insufficient cpu") != nullptr);
  // snake_case, unique.
  std::set<std::string_view> seen;
  for (const ReasonInfo& info : kReasons) {
    const std::string_view x = info.name;
    EXPECT_TRUE(seen.insert(x).second) << x;
    for (char c : x) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_') << x;
  }
}

}  // namespace
}  // namespace podwait
