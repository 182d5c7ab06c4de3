// kube-scheduler's default filter order (exporter/classify/scheduler_filters.h) and the mixing
// rule built on it (exporter/classify/volumes.h). The messages are the failure reasons of
// kubernetes/kubernetes pkg/scheduler/framework/plugins/<plugin>/ (ErrReason* constants) as the
// scheduler joins them into a FitError ("0/N nodes are available: <count> <reason>, ..."); the
// combinations are made up in that shape, the TiKV one after tidb-operator's local-PV StatefulSets
// whose node is gone.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exporter/classify/messages.h"
#include "exporter/classify/scheduler_filters.h"
#include "exporter/classify/volumes.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

namespace r = reason;
using F = SchedulerFilter;

// pkg/scheduler/apis/config/v1/default_plugins.go, getDefaultPlugins (the filter plugins of its
// MultiPoint list, in order; EBSLimits/GCEPDLimits/AzureDiskLimits share NodeVolumeLimits'
// message).
TEST(SchedulerFilters, RunOrderIsKubeSchedulersDefault) {
  std::vector<std::string> names;
  for (F f = F::kNodeUnschedulable; f != F::kUnknown; f = static_cast<F>(static_cast<int>(f) + 1)) {
    const SchedulerFilterInfo* info = FilterInfo(f);
    ASSERT_NE(info, nullptr);
    names.emplace_back(info->name);
  }
  EXPECT_THAT(names, ::testing::ElementsAre("NodeUnschedulable", "NodeName", "TaintToleration",
                                            "NodeAffinity", "NodePorts", "NodeResourcesFit",
                                            "VolumeRestrictions", "NodeVolumeLimits",
                                            "VolumeBinding", "VolumeZone", "PodTopologySpread",
                                            "InterPodAffinity", "DynamicResources"));
  EXPECT_FALSE(RunsAfterResourceFit(F::kNodeAffinity));
  EXPECT_FALSE(RunsAfterResourceFit(F::kNodePorts));
  EXPECT_TRUE(RunsAfterResourceFit(F::kVolumeBinding));
  EXPECT_TRUE(RunsAfterResourceFit(F::kInterPodAffinity));
}

struct FilterRow {
  const char* text;
  F filter;
};

class FilterOfMessage : public ::testing::TestWithParam<FilterRow> {};

TEST_P(FilterOfMessage, NamesThePlugin) {
  EXPECT_EQ(FilterOf(NormalizeFitReason(GetParam().text, 1)), GetParam().filter) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    PluginMessages, FilterOfMessage,
    ::testing::Values(
        FilterRow{"node(s) were unschedulable", F::kNodeUnschedulable},
        FilterRow{"node(s) didn't match the requested node name", F::kNodeName},
        FilterRow{"node(s) had untolerated taint {dedicated: tikv}", F::kTaintToleration},
        FilterRow{"node(s) had untolerated taint {node.kubernetes.io/unschedulable: }",
                  F::kTaintToleration},
        FilterRow{"node(s) didn't match Pod's node affinity/selector", F::kNodeAffinity},
        FilterRow{"node(s) didn't have free ports for the requested pod ports", F::kNodePorts},
        FilterRow{"Insufficient cpu", F::kNodeResourcesFit},
        FilterRow{"Too many pods", F::kNodeResourcesFit},
        FilterRow{"node(s) had no available disk", F::kVolumeRestrictions},
        FilterRow{"node(s) exceed max volume count", F::kNodeVolumeLimits},
        FilterRow{"node(s) had volume node affinity conflict", F::kVolumeBinding},
        FilterRow{"node(s) didn't find available persistent volumes to bind", F::kVolumeBinding},
        FilterRow{"pod has unbound immediate PersistentVolumeClaims", F::kVolumeBinding},
        FilterRow{"node(s) had no available volume zone", F::kVolumeZone},
        FilterRow{"node(s) didn't match pod topology spread constraints", F::kPodTopologySpread},
        FilterRow{"node(s) didn't match pod anti-affinity rules", F::kInterPodAffinity},
        FilterRow{"node(s) didn't satisfy existing pods anti-affinity rules", F::kInterPodAffinity},
        FilterRow{"cannot allocate all claims", F::kDynamicResources},
        FilterRow{"MatchNodeSelector", F::kNodeAffinity},
        FilterRow{"NoVolumeZoneConflict", F::kVolumeZone},
        FilterRow{"something an out-of-tree plugin wrote", F::kUnknown}));

// ---------------------------------------------------------------------------------------------
// The FitError header and the old formats

TEST(FitErrorHeader, OnlyInTheFirstSentence) {
  // A plugin error whose preemption tail has a FitError header: not a list of node reasons.
  FitError f = ParseFitError(
      "running PreFilter plugin \"VolumeBinding\": error getting PVC \"tidb/tikv-demo-tikv-0\". "
      "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  EXPECT_EQ(f.total_nodes, -1);
  ASSERT_EQ(f.reasons.size(), 1u);
  EXPECT_EQ(f.reasons[0].reason, r::kUnschedulableOther);
}

// Kubernetes 1.6/1.7 (pkg/scheduler/core/generic_scheduler.go, FitError.Error): a double colon
// and counts last. Made up in that shape.
TEST(FitErrorHeader, Kubernetes16And17Format) {
  FitError f = ParseFitError(
      "No nodes are available that match all of the following predicates:: Insufficient cpu (2), "
      "MatchNodeSelector (1), PodToleratesNodeTaints (1).");
  ASSERT_EQ(f.reasons.size(), 3u);
  EXPECT_EQ(f.reasons[0].reason, r::kInsufficientCpu);
  EXPECT_EQ(f.reasons[0].count, 2);
  EXPECT_EQ(f.reasons[1].reason, r::kNodeAffinity);
  EXPECT_EQ(f.reasons[1].text, "MatchNodeSelector");
  EXPECT_EQ(f.reasons[2].reason, r::kUntoleratedTaint);
}

TEST(FitErrorHeader, Kubernetes18PredicateNames) {
  FitError f = ParseFitError(
      "No nodes are available that match all of the predicates: Insufficient memory (1), "
      "NoVolumeZoneConflict (2).");
  ASSERT_EQ(f.reasons.size(), 2u);
  EXPECT_EQ(f.reasons[1].reason, r::kVolumeNodeAffinity);
  EXPECT_EQ(f.reasons[1].kind, FitKind::kConstraint);
}

// ---------------------------------------------------------------------------------------------
// The mixing rule

// The canonical TiKV failure: its local PV pinned to a node that is gone; the other nodes lack cpu
// and were never checked against the volume.
constexpr const char* kTikvLocalPvGone =
    "0/4 nodes are available: 1 node(s) had volume node affinity conflict, 3 Insufficient cpu. "
    "preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No "
    "preemption victims found for incoming pod.";

TEST(MixingRule, LateVolumeConstraintWithUnknownVolumesIsConstraint) {
  auto mixed = ConstraintDecidesMix(ParseFitError(kTikvLocalPvGone), nullptr);
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->reason, r::kVolumeNodeAffinity);
}

TEST(MixingRule, LocalPvPinnedToOneNodeIsConstraint) {
  PodVolumeFacts facts{VolumePinning::kNode, "local-pv-3f1a2b", "ip-10-0-3-17"};
  auto mixed = ConstraintDecidesMix(ParseFitError(kTikvLocalPvGone), &facts);
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->reason, r::kVolumeNodeAffinity);
  EXPECT_THAT(mixed->note, ::testing::HasSubstr("pinned to node ip-10-0-3-17"));
}

TEST(MixingRule, ZonalVolumeWithResourcesShortIsCapacity) {
  PodVolumeFacts facts{VolumePinning::kNotNode, "", ""};
  EXPECT_FALSE(ConstraintDecidesMix(ParseFitError(kTikvLocalPvGone), &facts).has_value());
}

TEST(MixingRule, EarlyFilterConstraintBesideResourcesIsCapacity) {
  // The cpu-short node passed TaintToleration and NodeAffinity.
  EXPECT_FALSE(ConstraintDecidesMix(
                   ParseFitError("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had "
                                 "untolerated taint {dedicated: tiflash}."),
                   nullptr)
                   .has_value());
}

// Schedulers before 1.10 listed every failed predicate of every node: a constraint reported by
// all nodes excludes all of them.
TEST(MixingRule, ConstraintOfEveryNodeDecides) {
  auto mixed = ConstraintDecidesMix(
      ParseFitError("0/3 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match node "
                    "selector."),
      nullptr);
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->reason, r::kNodeAffinity);
}

TEST(MixingRule, NodeSpecificReasonOfEveryNodeDoesNotDecide) {
  EXPECT_FALSE(ConstraintDecidesMix(
                   ParseFitError("0/3 nodes are available: 1 Insufficient cpu, 3 node(s) had "
                                 "untolerated taint {node.kubernetes.io/not-ready: }."),
                   nullptr)
                   .has_value());
}

}  // namespace
}  // namespace podwait
