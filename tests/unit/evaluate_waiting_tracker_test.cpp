// WaitingTracker with a scripted classifier: stage observations happen exactly once, relists and
// restarts invent nothing, failover members are matched to dependency waits.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/evaluate/waiting_tracker.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr Timestamp kT0 = 1'700'000'000'000;

// The classification each pod uid gets; set by tests between evaluations.
struct Script {
  std::map<std::string, Classification> by_uid;
};

std::shared_ptr<const PodRecord> MakePod(const std::string& uid, const std::string& name,
                                         const std::string& component, bool ready = false,
                                         Timestamp ready_at = 0) {
  auto p = std::make_shared<PodRecord>();
  p->uid = uid;
  p->namespace_ = "demo";
  p->name = name;
  p->cluster = "demo";
  p->component = component;
  p->phase = ready ? PodPhase::kRunning : PodPhase::kPending;
  if (ready)
    p->mutable_detail().conditions.push_back({"Ready", ConditionStatus::kTrue, "", "", ready_at});
  return p;
}

Classification Waiting(Stage s, WaitClass c, Timestamp start) {
  Classification x;
  x.waiting = true;
  x.stage = s;
  x.wait_class = c;
  x.reason = "r";
  x.stage_start = start;
  return x;
}

class TrackerTest : public ::testing::Test {
 protected:
  TrackerTest()
      : tracker_([this](const PodRecord& pod, std::span<const EventRecord>,
                        const ClusterDependencies*, const AutoscalerState&, Timestamp,
                        const InstanceReadiness* instance) {
          ++classified_[pod.uid];
          if (instance != nullptr) instances_[pod.uid] = *instance;
          auto it = script_.by_uid.find(pod.uid);
          return it == script_.by_uid.end() ? Classification{} : it->second;
        }) {}

  void Run(std::vector<std::shared_ptr<const PodRecord>> pods, Timestamp now,
           std::vector<FailureMember> failures = {}, InstanceFn instance = {}) {
    EvaluationInput in;
    in.pods = pods;
    in.instance = std::move(instance);
    in.now = now;
    in.failure_members = failures;
    tracker_.Evaluate(in);
  }
  uint64_t Count(const std::string& component, Stage s, WaitClass c) {
    auto snap = tracker_.Snapshot();
    auto it = snap->stage_durations.find({component, s, c});
    return it == snap->stage_durations.end() ? 0 : it->second.count;
  }

  Script script_;
  std::map<std::string, int> classified_;  // classifier calls by uid
  std::map<std::string, InstanceReadiness> instances_;
  WaitingTracker tracker_;
};

// A compact Ready v2 pod whose instance is Ready=False is classified with its instance (the fast
// path for Ready pods must not skip it); a v1 Ready pod never asks for an instance; a v2 Ready
// pod whose instance is Ready stays on the fast path.
TEST_F(TrackerTest, ReadyV2PodWithInstanceNotReadyIsClassified) {
  auto v1 = std::make_shared<PodRecord>(*MakePod("v1", "demo-tikv-0", "tikv", true, kT0));
  v1->compact_ready = true;
  auto v2 = std::make_shared<PodRecord>(*MakePod("v2", "c-tikv-x7k2p", "tikv", true, kT0));
  v2->compact_ready = true;
  v2->v2_instance = true;
  auto v2ok = std::make_shared<PodRecord>(*MakePod("v2ok", "c-tikv-a1b2c", "tikv", true, kT0));
  v2ok->compact_ready = true;
  v2ok->v2_instance = true;
  std::vector<std::string> asked;
  InstanceFn lookup = [&asked](const PodRecord& pod) -> std::optional<InstanceReadiness> {
    asked.push_back(pod.uid);
    InstanceReadiness r;
    r.ready = pod.uid == "v2" ? ConditionStatus::kFalse : ConditionStatus::kTrue;
    r.kind = "TiKV";
    r.since = kT0 + 5;
    return r;
  };
  script_.by_uid["v2"] = Waiting(Stage::kStarting, WaitClass::kStarting, kT0 + 5);
  Run({v1, v2, v2ok}, kT0 + 1000, {}, lookup);
  EXPECT_THAT(asked, ::testing::ElementsAre("v2", "v2ok"));
  EXPECT_EQ(classified_.count("v1"), 0u);
  EXPECT_EQ(classified_.count("v2ok"), 0u);
  ASSERT_EQ(classified_["v2"], 1);
  EXPECT_EQ(instances_["v2"].ready, ConditionStatus::kFalse);
  auto snap = tracker_.Snapshot();
  ASSERT_EQ(snap->pods.size(), 1u);
  EXPECT_EQ(snap->pods[0].pod, "c-tikv-x7k2p");
  // Once the instance is Ready the pod leaves its stage: observed once.
  script_.by_uid.erase("v2");
  Run({v1, v2, v2ok}, kT0 + 2000, {}, [](const PodRecord&) {
    InstanceReadiness r;
    r.ready = ConditionStatus::kTrue;
    return std::optional<InstanceReadiness>(r);
  });
  EXPECT_TRUE(tracker_.Snapshot()->pods.empty());
  EXPECT_EQ(Count("tikv", Stage::kStarting, WaitClass::kStarting), 1u);
}

Classification OnDependency(WaitClass c, DependencySet on, Timestamp start) {
  Classification x = Waiting(Stage::kInitializing, c, start);
  x.reason = "no_pd_leader";
  x.evidence = "init container wait-for-pd running; pd not ready (no_pd_leader)";
  x.waits_on = on;
  return x;
}
Classification As(Stage s, WaitClass c, std::string reason) {
  Classification x = Waiting(s, c, kT0);
  x.reason = std::move(reason);
  return x;
}
const WaitingPod& PodNamed(const WaitingSnapshot& snap, const std::string& name) {
  for (const WaitingPod& w : snap.pods) {
    if (w.pod == name) return w;
  }
  static const WaitingPod kNone;
  ADD_FAILURE() << "no row " << name;
  return kNone;
}
std::vector<std::string> HolderNames(const WaitingPod& w) {
  std::vector<std::string> out;
  for (const HeldBy& h : w.held_by) {
    out.push_back(h.pod + " " + std::string(WaitClassName(h.wait_class)) + "/" + h.reason);
  }
  return out;
}

// heldBy (docs/DESIGN.md §4): the waiting pods of the dependency the row waits on, in its own
// namespace and cluster, the unexpected ones first (in pod order), then the expected ones; the
// evidence names the first; the class stays dependency.
TEST_F(TrackerTest, HeldByListsTheDependencysWaitingPodsUnexpectedFirst) {
  script_.by_uid["tidb"] =
      OnDependency(WaitClass::kDependency, DependencySet(Dependency::kPd), kT0);
  script_.by_uid["pd0"] = As(Stage::kStarting, WaitClass::kStarting, "pd_bootstrap");
  script_.by_uid["pd1"] = As(Stage::kUnscheduled, WaitClass::kCapacity, "insufficient_cpu");
  script_.by_uid["pd2"] = As(Stage::kUnscheduled, WaitClass::kScaleUp, "scale_up_in_progress");
  script_.by_uid["pd3"] = As(Stage::kUnscheduled, WaitClass::kConstraints, "node_affinity");
  // Not PD, or PD of another cluster: not holders.
  script_.by_uid["tikv"] = As(Stage::kUnscheduled, WaitClass::kCapacity, "insufficient_memory");
  auto other = std::make_shared<PodRecord>(*MakePod("opd", "other-pd-0", "pd"));
  other->cluster = "other";
  script_.by_uid["opd"] = As(Stage::kUnscheduled, WaitClass::kCapacity, "insufficient_cpu");
  Run({MakePod("tidb", "demo-tidb-0", "tidb"), MakePod("pd0", "demo-pd-0", "pd"),
       MakePod("pd1", "demo-pd-1", "pd"), MakePod("pd2", "demo-pd-2", "pd"),
       MakePod("pd3", "demo-pd-3", "pd"), MakePod("tikv", "demo-tikv-0", "tikv"), other},
      kT0 + 1000);
  auto snap = tracker_.Snapshot();
  const WaitingPod& tidb = PodNamed(*snap, "demo-tidb-0");
  EXPECT_THAT(
      HolderNames(tidb),
      ElementsAre("demo-pd-1 capacity/insufficient_cpu", "demo-pd-3 constraints/node_affinity",
                  "demo-pd-0 starting/pd_bootstrap", "demo-pd-2 scale_up/scale_up_in_progress"));
  EXPECT_EQ(tidb.classification.wait_class, WaitClass::kDependency);
  EXPECT_EQ(tidb.classification.evidence,
            "held by demo-pd-1: capacity/insufficient_cpu (+3 more); init container wait-for-pd "
            "running; pd not ready (no_pd_leader)");
  // Rows that are no dependency rows hold nobody.
  EXPECT_THAT(PodNamed(*snap, "demo-pd-1").held_by, IsEmpty());
}

// Nothing of the dependency waits (PD running but unhealthy: the dependency rules decide): the
// list is empty and the evidence is the classifier's; a row waiting on PD and TiKV (all ready,
// stuck) lists the waiting pods of both, PD's first within each half.
TEST_F(TrackerTest, HeldByIsEmptyWhenTheDependencyDoesNotWaitAndCoversEveryNeededOne) {
  script_.by_uid["tidb"] =
      OnDependency(WaitClass::kDependency, DependencySet(Dependency::kPd), kT0);
  Run({MakePod("tidb", "demo-tidb-0", "tidb"), MakePod("pd0", "demo-pd-0", "pd", true, kT0)},
      kT0 + 1000);
  const WaitingPod& alone = PodNamed(*tracker_.Snapshot(), "demo-tidb-0");
  EXPECT_THAT(alone.held_by, IsEmpty());
  EXPECT_EQ(alone.classification.evidence,
            "init container wait-for-pd running; pd not ready (no_pd_leader)");

  script_.by_uid["tidb"] = OnDependency(WaitClass::kDependencyStuck,
                                        DependencySet(Dependency::kPd, Dependency::kTikv), kT0);
  script_.by_uid["tikv"] = As(Stage::kStarting, WaitClass::kNotReady, "readiness_probe");
  script_.by_uid["pd1"] = As(Stage::kStarting, WaitClass::kStarting, "readiness_probe");
  Run({MakePod("tidb", "demo-tidb-0", "tidb"), MakePod("pd0", "demo-pd-0", "pd", true, kT0),
       MakePod("pd1", "demo-pd-1", "pd"), MakePod("tikv", "demo-tikv-0", "tikv")},
      kT0 + 2000);
  EXPECT_THAT(
      HolderNames(PodNamed(*tracker_.Snapshot(), "demo-tidb-0")),
      ElementsAre("demo-tikv-0 not_ready/readiness_probe", "demo-pd-1 starting/readiness_probe"));
}

// tidb-operator v2: pods named <group>-<component>-<suffix>, the same components; a DM worker waits
// on the DM masters (component dm-master), a TiKV on PD.
TEST_F(TrackerTest, HeldByForV2PodsAndDmMaster) {
  auto v2 = [](std::string uid, std::string name, std::string component) {
    auto p = std::make_shared<PodRecord>(*MakePod(uid, name, component));
    p->v2_instance = true;
    p->cluster = "basic";
    return std::shared_ptr<const PodRecord>(p);
  };
  script_.by_uid["w"] =
      OnDependency(WaitClass::kDependency, DependencySet(Dependency::kDmMaster), kT0);
  script_.by_uid["m"] = As(Stage::kUnscheduled, WaitClass::kCapacity, "insufficient_memory");
  script_.by_uid["kv"] = OnDependency(WaitClass::kDependency, DependencySet(Dependency::kPd), kT0);
  script_.by_uid["pd"] = As(Stage::kInitializing, WaitClass::kImage, "image_pull");
  Run({v2("w", "dmw-dm-worker-x8d2kq", "dm-worker"), v2("m", "dm-dm-master-r5m7tn", "dm-master"),
       v2("kv", "tikv-tikv-c4w9hb", "tikv"), v2("pd", "pd-pd-k2m4xq", "pd")},
      kT0 + 1000);
  auto snap = tracker_.Snapshot();
  EXPECT_THAT(HolderNames(PodNamed(*snap, "dmw-dm-worker-x8d2kq")),
              ElementsAre("dm-dm-master-r5m7tn capacity/insufficient_memory"));
  EXPECT_THAT(HolderNames(PodNamed(*snap, "tikv-tikv-c4w9hb")),
              ElementsAre("pd-pd-k2m4xq image/image_pull"));
}

// An incremental evaluation in which only the PD pod changed still updates the TiDB row's
// heldBy (it is computed over the snapshot, not by the classifier of the TiDB pod).
TEST_F(TrackerTest, HeldByFollowsTheHoldersInAnIncrementalEvaluation) {
  auto tidb = MakePod("tidb", "demo-tidb-0", "tidb");
  auto pd = MakePod("pd", "demo-pd-0", "pd");
  script_.by_uid["tidb"] =
      OnDependency(WaitClass::kDependency, DependencySet(Dependency::kPd), kT0);
  script_.by_uid["pd"] = As(Stage::kUnscheduled, WaitClass::kCapacity, "insufficient_cpu");
  Run({tidb, pd}, kT0 + 1000);
  EXPECT_THAT(HolderNames(PodNamed(*tracker_.Snapshot(), "demo-tidb-0")),
              ElementsAre("demo-pd-0 capacity/insufficient_cpu"));
  const auto before = classified_["tidb"];

  script_.by_uid["pd"] = As(Stage::kStarting, WaitClass::kStarting, "readiness_probe");
  PodChangeSet changes;
  changes.upserted.push_back(pd);
  EvaluationInput in;
  in.changes = &changes;
  in.now = kT0 + 2000;
  tracker_.Evaluate(in);
  EXPECT_EQ(classified_["tidb"], before) << "only the PD pod was classified again";
  EXPECT_THAT(HolderNames(PodNamed(*tracker_.Snapshot(), "demo-tidb-0")),
              ElementsAre("demo-pd-0 starting/readiness_probe"));

  // PD Ready: the list empties, the evidence is the classifier's again.
  script_.by_uid.erase("pd");
  auto ready = MakePod("pd", "demo-pd-0", "pd", true, kT0 + 2500);
  changes.upserted = {ready};
  in.now = kT0 + 3000;
  tracker_.Evaluate(in);
  const WaitingPod& row = PodNamed(*tracker_.Snapshot(), "demo-tidb-0");
  EXPECT_THAT(row.held_by, IsEmpty());
  EXPECT_EQ(row.classification.evidence,
            "init container wait-for-pd running; pd not ready (no_pd_leader)");
}

TEST_F(TrackerTest, PublishesWaitingPodsSorted) {
  script_.by_uid["b"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0);
  script_.by_uid["a"] = Waiting(Stage::kUnscheduled, WaitClass::kScaleUp, kT0);
  Run({MakePod("b", "demo-tidb-1", "tidb"), MakePod("a", "demo-tidb-0", "tidb"),
       MakePod("c", "demo-pd-0", "pd", true, kT0)},
      kT0 + 1000);
  auto snap = tracker_.Snapshot();
  EXPECT_THAT(snap->pods, ElementsAre(Field(&WaitingPod::pod, "demo-tidb-0"),
                                      Field(&WaitingPod::pod, "demo-tidb-1")));
  EXPECT_EQ(snap->pods[0].tidb_cluster, "demo-demo");
}

TEST_F(TrackerTest, ObservesACompletedStageExactlyOnce) {
  auto pod = MakePod("u", "demo-tidb-0", "tidb");
  script_.by_uid["u"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0);
  Run({pod}, kT0 + 1000);
  Run({pod}, kT0 + 2000);  // same stage: nothing observed
  EXPECT_EQ(Count("tidb", Stage::kInitializing, WaitClass::kDependency), 0u);
  script_.by_uid["u"] = Waiting(Stage::kStarting, WaitClass::kStarting, kT0 + 40'000);
  Run({pod}, kT0 + 41'000);
  Run({pod}, kT0 + 42'000);
  EXPECT_EQ(Count("tidb", Stage::kInitializing, WaitClass::kDependency), 1u);
  auto snap = tracker_.Snapshot();
  const auto& h = snap->stage_durations.at({"tidb", Stage::kInitializing, WaitClass::kDependency});
  EXPECT_DOUBLE_EQ(h.sum, 40.0);
}

TEST_F(TrackerTest, BecomingReadyObservesTheLastStageUntilReady) {
  script_.by_uid["u"] = Waiting(Stage::kStarting, WaitClass::kStarting, kT0);
  Run({MakePod("u", "p", "tikv")}, kT0 + 1000);
  script_.by_uid["u"] = Classification{};
  Run({MakePod("u", "p", "tikv", true, kT0 + 5000)}, kT0 + 9000);
  auto snap = tracker_.Snapshot();
  EXPECT_THAT(snap->pods, IsEmpty());
  EXPECT_DOUBLE_EQ(snap->stage_durations.at({"tikv", Stage::kStarting, WaitClass::kStarting}).sum,
                   5.0);
}

TEST_F(TrackerTest, RestartSeesReadyPodsWithoutInventingStages) {
  // A fresh tracker (exporter restart) that first sees pods already Ready or mid-stage.
  script_.by_uid["w"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0 - 60'000);
  Run({MakePod("r", "ready", "tidb", true, kT0 - 1000), MakePod("w", "waiting", "tidb")}, kT0);
  Run({MakePod("r", "ready", "tidb", true, kT0 - 1000), MakePod("w", "waiting", "tidb")},
      kT0 + 1000);
  EXPECT_EQ(Count("tidb", Stage::kInitializing, WaitClass::kDependency), 0u);
  EXPECT_EQ(Count("tidb", Stage::kStarting, WaitClass::kStarting), 0u);
}

TEST_F(TrackerTest, HistogramSeriesExistAtZeroWhilePodsWait) {
  // So that the first completion is an increase from 0 that rate() sees.
  script_.by_uid["u"] = Waiting(Stage::kUnscheduled, WaitClass::kScaleUp, kT0);
  Run({MakePod("u", "p", "tikv")}, kT0);
  auto snap = tracker_.Snapshot();
  ASSERT_EQ(snap->stage_durations.count({"tikv", Stage::kUnscheduled, WaitClass::kScaleUp}), 1u);
  EXPECT_EQ(snap->stage_durations.at({"tikv", Stage::kUnscheduled, WaitClass::kScaleUp}).count, 0u);
}

TEST_F(TrackerTest, RelistWithSameUidsIsNotATransition) {
  auto pod = MakePod("u", "p", "tidb");
  script_.by_uid["u"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0);
  Run({pod}, kT0);
  auto relisted = MakePod("u", "p", "tidb");  // a new record object for the same pod
  Run({relisted}, kT0 + 1000);
  EXPECT_EQ(Count("tidb", Stage::kInitializing, WaitClass::kDependency), 0u);
}

TEST_F(TrackerTest, DeletedPodDoesNotCompleteItsStage) {
  script_.by_uid["u"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0);
  Run({MakePod("u", "p", "tidb")}, kT0);
  auto deleting = std::make_shared<PodRecord>(*MakePod("u", "p", "tidb"));
  deleting->deleted = kT0 + 500;
  script_.by_uid["u"] = Classification{};
  Run({deleting}, kT0 + 1000);
  Run({}, kT0 + 2000);  // gone
  EXPECT_EQ(Count("tidb", Stage::kInitializing, WaitClass::kDependency), 0u);
  EXPECT_THAT(tracker_.Snapshot()->pods, IsEmpty());
}

TEST_F(TrackerTest, ClassSinceMovesOnlyWhenTheClassChanges) {
  auto pod = MakePod("u", "p", "tidb");
  script_.by_uid["u"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0);
  Run({pod}, kT0 + 1000);
  Run({pod}, kT0 + 2000);
  EXPECT_EQ(tracker_.Snapshot()->pods.at(0).class_since, kT0 + 1000);
  script_.by_uid["u"] = Waiting(Stage::kInitializing, WaitClass::kDependencyStuck, kT0);
  Run({pod}, kT0 + 3000);
  EXPECT_EQ(tracker_.Snapshot()->pods.at(0).class_since, kT0 + 3000);
}

TEST_F(TrackerTest, FailoverDuringDependencyWaitIsCounted) {
  auto waiting = MakePod("u", "demo-tidb-0", "tidb");
  auto other = MakePod("v", "demo-tidb-1", "tidb");
  script_.by_uid["u"] = Waiting(Stage::kInitializing, WaitClass::kDependency, kT0);
  script_.by_uid["v"] = Waiting(Stage::kStarting, WaitClass::kNotReady, kT0);
  Run({waiting, other}, kT0 + 1000);
  std::vector<FailureMember> failures = {{"demo", "demo", "tidb", "demo-tidb-0", kT0 + 300'000},
                                         {"demo", "demo", "tidb", "demo-tidb-1", kT0 + 300'000}};
  Run({waiting, other}, kT0 + 301'000, failures);
  auto snap = tracker_.Snapshot();
  ASSERT_THAT(snap->failover, SizeIs(1));
  const FailoverCount& fc = snap->failover.begin()->second;
  EXPECT_EQ(fc.members, 2u);
  EXPECT_EQ(fc.during_dependency_wait, 1u);
}

}  // namespace
}  // namespace podwait
