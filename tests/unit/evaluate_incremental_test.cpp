// Incremental evaluation equals full evaluation. Two evaluators with the real classifier see the
// same random sequence of changes to real stores — pods appearing, changing state, being deleted
// and re-created; scheduler, cluster-autoscaler and Karpenter events; dependency state; the
// autoscaler signals; v2 instance readiness; failover members; and time passing across every
// grace and timeout. One is fed by the ChangeFeed (only what changed), the other every pod each
// time; after every step each published pod's stage, class, reason, evidence and times, the
// stage histograms, the failover counts and the autoscaler state must be the same.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "exporter/evaluate/change_feed.h"
#include "exporter/evaluate/evaluator.h"
#include "exporter/model/v2.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/v2_store.h"

namespace podwait {
namespace {

constexpr Timestamp kStart = 1'780'000'000'000;

const char* const kFit =
    "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No "
    "preemption victims found for incoming pod.";
const char* const kAffinity =
    "0/6 nodes are available: 6 node(s) didn't match Pod's node affinity/selector. preemption: "
    "0/6 nodes are available: 6 Preemption is not helpful for scheduling.";

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed), pods_(&events_), feed_(pods_, &events_, &v2_) {
    options_.classifier.dependency_init_containers = {"wait-for-pd"};
    incremental_ = std::make_unique<Evaluator>(options_);
    full_ = std::make_unique<Evaluator>(options_);
  }

  // One random step: a few changes, maybe some time, then both evaluations.
  void Step() {
    const int changes = Pick(0, 4);
    for (int i = 0; i < changes; ++i) Change();
    const int t = Pick(0, 9);
    // Mostly seconds, sometimes minutes (past decision grace, ready grace, provision timeout).
    now_ += t < 6 ? Pick(0, 3) * kSecond : t < 9 ? Pick(5, 90) * kSecond : Pick(3, 20) * kMinute;
    Evaluate();
  }

  void Compare(int step) const {
    auto a = incremental_->Snapshot();
    auto b = full_->Snapshot();
    ASSERT_EQ(a->pods.size(), b->pods.size()) << "step " << step;
    for (size_t i = 0; i < a->pods.size(); ++i) {
      const WaitingPod& x = a->pods[i];
      const WaitingPod& y = b->pods[i];
      ASSERT_EQ(x.namespace_ + "/" + x.pod, y.namespace_ + "/" + y.pod) << "step " << step;
      EXPECT_EQ(StageName(x.classification.stage), StageName(y.classification.stage))
          << "step " << step << " " << x.pod;
      EXPECT_EQ(WaitClassName(x.classification.wait_class),
                WaitClassName(y.classification.wait_class))
          << "step " << step << " " << x.pod;
      EXPECT_EQ(x.classification.reason, y.classification.reason)
          << "step " << step << " " << x.pod;
      EXPECT_EQ(x.classification, y.classification) << "step " << step << " " << x.pod;
      EXPECT_EQ(x.class_since, y.class_since) << "step " << step << " " << x.pod;
      EXPECT_EQ(x.component, y.component);
      EXPECT_EQ(x.tidb_cluster, y.tidb_cluster);
    }
    ASSERT_EQ(a->stage_durations.size(), b->stage_durations.size()) << "step " << step;
    for (auto i = a->stage_durations.begin(), j = b->stage_durations.begin();
         i != a->stage_durations.end(); ++i, ++j) {
      EXPECT_TRUE(i->first == j->first) << "step " << step;
      EXPECT_EQ(i->second.count, j->second.count) << "step " << step;
      EXPECT_EQ(i->second.buckets, j->second.buckets) << "step " << step;
      EXPECT_NEAR(i->second.sum, j->second.sum, 1e-6) << "step " << step;
    }
    EXPECT_TRUE(a->failover == b->failover) << "step " << step;
    EXPECT_TRUE(a->autoscaler == b->autoscaler) << "step " << step;
    EXPECT_EQ(incremental_->LastEvaluated(), full_->LastEvaluated());
  }

  size_t waiting() const { return full_->Snapshot()->pods.size(); }
  size_t classified_incremental() const { return classified_incremental_; }
  size_t classified_full() const { return classified_full_; }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Pick(1, 100) <= percent; }
  Timestamp Ago(int max_seconds) { return now_ - Pick(0, max_seconds) * kSecond; }

  struct Slot {
    std::string ns, cluster, component, name;
    int incarnation = 0;
    bool exists = false;
    int rv = 0;
  };

  void Change() {
    if (slots_.empty()) MakeSlots();
    switch (Pick(0, 11)) {
      case 0:
      case 1:
      case 2:
      case 3:
        UpsertPod(slots_[Pick(0, static_cast<int>(slots_.size()) - 1)]);
        break;
      case 4: {
        Slot& s = slots_[Pick(0, static_cast<int>(slots_.size()) - 1)];
        if (s.exists) {
          pods_.Delete(Uid(s), s.ns, s.name);
          s.exists = false;
          if (Chance(50)) ++s.incarnation;  // re-created later with a new uid
        }
        break;
      }
      case 5:
      case 6:
        AddEvent(slots_[Pick(0, static_cast<int>(slots_.size()) - 1)]);
        break;
      case 7: {
        const Slot& s = slots_[Pick(0, static_cast<int>(slots_.size()) - 1)];
        events_.ForgetPod(s.ns, s.name);
        break;
      }
      case 8:
        ChangeDependencies();
        break;
      case 9:
        if (Chance(50)) {
          signals_.status_object[AutoscalerKind::kClusterAutoscaler] =
              !signals_.status_object[AutoscalerKind::kClusterAutoscaler];
        } else {
          signals_.last_event[AutoscalerKind::kKarpenter] = Chance(50) ? 0 : Ago(600);
        }
        break;
      case 10:
        ChangeInstance(slots_[Pick(0, static_cast<int>(slots_.size()) - 1)]);
        break;
      case 11:
        ChangeFailures();
        break;
    }
  }

  void MakeSlots() {
    for (const char* ns : {"tidb-a", "tidb-b"}) {
      for (const char* cluster : {"basic", "prod"}) {
        for (const char* component : {"pd", "tikv", "tidb"}) {
          for (int i = 0; i < 3; ++i) {
            Slot s;
            s.ns = ns;
            s.cluster = cluster;
            s.component = component;
            // tidb-b holds v2 clusters: pods named after their instances.
            s.name =
                std::string(ns) == "tidb-b"
                    ? v2::PodNameOf(std::string(component) + "-x7k2" + std::to_string(i), component)
                    : std::string(cluster) + "-" + component + "-" + std::to_string(i);
            slots_.push_back(s);
          }
        }
      }
    }
  }

  static std::string Uid(const Slot& s) {
    return s.ns + "-" + s.name + "-" + std::to_string(s.incarnation);
  }

  PodCondition Cond(const char* type, bool status, Timestamp at, std::string reason = "",
                    std::string message = "") {
    return {type, status ? ConditionStatus::kTrue : ConditionStatus::kFalse, std::move(reason),
            std::move(message), at};
  }

  void UpsertPod(Slot& s) {
    auto p = std::make_shared<PodRecord>();
    if (!s.exists) created_[Uid(s)] = Ago(1200);
    s.exists = true;
    p->uid = Uid(s);
    p->namespace_ = s.ns;
    p->name = s.name;
    p->cluster = s.cluster;
    p->component = s.component;
    p->resource_version = std::to_string(++s.rv);
    p->created = created_[p->uid];
    p->v2_instance = s.ns == "tidb-b";
    const Timestamp created = p->created;
    auto at = [&](int max_seconds) { return std::max(created, Ago(max_seconds)); };
    const int state = Pick(0, 9);
    p->phase = state >= 3 ? PodPhase::kRunning : PodPhase::kPending;
    if (state == 0) {
      // Not scheduled: no verdict yet, unschedulable, or gated.
      const int how = Pick(0, 3);
      if (how == 1) {
        p->mutable_detail().conditions.push_back(
            Cond("PodScheduled", false, at(300), "Unschedulable", Chance(50) ? kFit : kAffinity));
      } else if (how == 2) {
        p->mutable_detail().conditions.push_back(
            Cond("PodScheduled", false, at(300), "SchedulingGated"));
      } else if (how == 3) {
        p->mutable_detail().conditions.push_back(
            Cond("PodScheduled", false, at(300), "Unschedulable", ""));
      }
    } else {
      const Timestamp scheduled = at(900);
      p->mutable_detail().conditions.push_back(Cond("PodScheduled", true, scheduled));
      if (state <= 2) {
        // Initializing: wait-for-pd running, crash-looping, or creating.
        p->mutable_detail().conditions.push_back(
            Cond("Initialized", false, scheduled, "ContainersNotInitialized"));
        ContainerStatus init;
        init.name = "wait-for-pd";
        init.state = ContainerState::kRunning;
        if (state == 2) {
          init.state = ContainerState::kWaiting;
          init.reason = Chance(70) ? "CrashLoopBackOff" : "PodInitializing";
          init.restart_count = Pick(1, 9);
        }
        p->mutable_detail().init_containers.push_back(init);
      } else {
        const Timestamp initialized = std::max(scheduled, at(600));
        p->mutable_detail().conditions.push_back(Cond("Initialized", true, initialized));
        ContainerStatus done;
        done.name = "wait-for-pd";
        done.state = ContainerState::kTerminated;
        done.reason = "Completed";
        p->mutable_detail().init_containers.push_back(done);
        const bool ready = state >= 6;
        const Timestamp ready_at = std::max(initialized, at(300));
        p->mutable_detail().conditions.push_back(Cond("ContainersReady", ready, ready_at));
        p->mutable_detail().conditions.push_back(Cond("Ready", ready, ready_at));
        ContainerStatus main;
        main.name = s.component;
        main.state = ContainerState::kRunning;
        main.ready = ready;
        if (state == 4) {
          main.state = ContainerState::kWaiting;
          main.reason = Chance(70) ? "CrashLoopBackOff" : "ImagePullBackOff";
          main.restart_count = Pick(1, 20);
        } else if (state == 5) {
          main.state = ContainerState::kTerminated;
          main.reason = "Error";
          main.exit_code = 1;
          main.restart_count = Pick(1, 5);
        }
        p->mutable_detail().containers.push_back(main);
      }
    }
    if (Chance(5)) p->deleted = now_;
    if (Chance(3)) p->phase = Chance(50) ? PodPhase::kFailed : PodPhase::kSucceeded;
    pods_.Upsert(PodPtr(std::move(p)));
  }

  void AddEvent(const Slot& s) {
    EventRecord e;
    e.namespace_ = s.ns;
    e.pod_name = s.name;
    e.pod_uid = Chance(90) ? Uid(s) : "";
    e.last = Ago(1800);
    e.first = std::max<Timestamp>(0, e.last - Pick(0, 600) * kSecond);
    switch (Pick(0, 4)) {
      case 0:
        e.reason = "FailedScheduling";
        e.source = "default-scheduler";
        e.message = kFit;
        break;
      case 1:
        e.reason = "TriggeredScaleUp";
        e.source = "cluster-autoscaler";
        e.message = "pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)}]";
        break;
      case 2:
        e.reason = "NotTriggerScaleUp";
        e.source = "cluster-autoscaler";
        e.message =
            "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) didn't match "
            "Pod's node affinity/selector";
        break;
      case 3:
        e.reason = "Nominated";
        e.source = "karpenter";
        e.message = "Pod should schedule on: nodeclaim/default-8kxvz";
        break;
      case 4:
        e.reason = "FailedScheduling";
        e.source = "karpenter";
        e.message =
            "Failed to schedule pod, incompatible with nodepool \"default\", daemonset overhead="
            "{\"cpu\":\"150m\",\"pods\":\"3\"}, did not tolerate dedicated=tikv:NoSchedule";
        break;
    }
    e.uid = "ev-" + std::to_string(++event_seq_ % 40);
    if (EventAutoscalerKind(e) == AutoscalerKind::kClusterAutoscaler) {
      signals_.last_event[AutoscalerKind::kClusterAutoscaler] =
          std::max(signals_.last_event[AutoscalerKind::kClusterAutoscaler], e.last);
    }
    events_.Add(std::move(e));
  }

  void ChangeDependencies() {
    ClusterKey key{Chance(50) ? "tidb-a" : "tidb-b", Chance(50) ? "basic" : "prod"};
    if (Chance(10)) {
      deps_.erase(key);
      return;
    }
    ClusterDependencies& d = deps_[key];
    for (DependencyStatus* s : {&d.pd, &d.tikv}) {
      if (!Chance(60)) continue;
      const int r = Pick(0, 2);
      s->readiness = r == 0   ? Readiness::kReady
                     : r == 1 ? Readiness::kNotReady
                              : Readiness::kUnknown;
      s->reason = s->readiness == Readiness::kReady ? DependencyReason::kNone
                                                    : DependencyReason::kNoPdLeader;
      if (s->readiness == Readiness::kReady && Chance(50)) s->ready_since = Ago(900);
    }
  }

  void ChangeInstance(const Slot& s) {
    if (s.ns != "tidb-b") return;
    v2::Instance i;
    i.component = s.component;
    for (const auto& k : v2::Kinds()) {
      if (k.component == s.component) i.kind = std::string(k.instance_kind);
    }
    i.namespace_ = s.ns;
    i.cluster = s.cluster;
    i.name = v2::InstanceNameOfPod(s.name, s.component);
    i.uid = "inst-" + i.name;
    if (Chance(15)) {
      v2_.RemoveInstance(i.kind, i.namespace_, i.name);
      return;
    }
    v2::Condition ready;
    ready.type = "Ready";
    ready.status = Chance(50) ? ConditionStatus::kTrue : ConditionStatus::kFalse;
    ready.reason = ready.status == ConditionStatus::kTrue ? "Ready" : "InstanceNotHealthy";
    ready.last_transition = Ago(600);
    i.ready = ready;
    v2_.UpsertInstance(std::move(i));
  }

  void ChangeFailures() {
    if (Chance(30)) {
      failures_.clear();
      return;
    }
    const Slot& s = slots_[Pick(0, static_cast<int>(slots_.size()) - 1)];
    failures_.push_back({s.ns, s.cluster, s.component, s.name, Ago(900)});
  }

  void Evaluate() {
    EvaluationInput in;
    in.events = [this](const PodRecord& pod) {
      return events_.EventsFor(pod.namespace_, pod.name, pod.uid);
    };
    in.instance = InstanceLookup(v2_);
    in.autoscaler = MakeAutoscalerState(options_.autoscaler_mode, signals_, nullptr, now_);
    in.dependencies = &deps_;
    in.failure_members = failures_;
    in.now = now_;

    const ChangeFeed::Changes changes = feed_.Read();
    EvaluationInput inc = in;
    if (changes.full) {
      inc.pods = changes.all;
    } else {
      inc.changes = &changes.set;
    }
    incremental_->Evaluate(inc);
    classified_incremental_ += incremental_->LastClassified();

    const std::vector<PodPtr> all = pods_.Snapshot();
    EvaluationInput full = in;
    full.pods = all;
    full_->Evaluate(full);
    classified_full_ += full_->LastClassified();
  }

  std::mt19937 rng_;
  EvaluatorOptions options_;
  EventStore events_;
  PodStore pods_;
  V2Store v2_;
  ChangeFeed feed_;
  std::unique_ptr<Evaluator> incremental_, full_;
  std::vector<Slot> slots_;
  std::map<std::string, Timestamp> created_;
  std::map<ClusterKey, ClusterDependencies> deps_;
  AutoscalerSignals signals_;
  std::vector<FailureMember> failures_;
  Timestamp now_ = kStart;
  int event_seq_ = 0;
  size_t classified_incremental_ = 0, classified_full_ = 0;
};

TEST(IncrementalEvaluation, EqualsFullEvaluationOnRandomChangeSequences) {
  size_t most_waiting = 0;
  size_t classified_incremental = 0, classified_full = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    World world(seed);
    for (int step = 0; step < 400; ++step) {
      world.Step();
      world.Compare(step);
      if (::testing::Test::HasFailure()) {
        FAIL() << "seed " << seed << " step " << step;
      }
      most_waiting = std::max(most_waiting, world.waiting());
    }
    classified_incremental += world.classified_incremental();
    classified_full += world.classified_full();
  }
  // The sequences did exercise something: pods waited, and the incremental evaluation did less.
  EXPECT_GT(most_waiting, 10u);
  EXPECT_LT(classified_incremental, classified_full / 2);
}

}  // namespace
}  // namespace podwait
