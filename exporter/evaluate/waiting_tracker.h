#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "exporter/classify/classifier.h"
#include "exporter/model/types.h"
#include "exporter/model/v2.h"
#include "exporter/model/waiting.h"

namespace podwait {

// A classification function of Classify's shape: a scripted one replaces the classifier where
// only the tracker's bookkeeping is under test (tests/unit/evaluate_waiting_tracker_test.cpp,
// bench/metrics_render_bench.cpp).
using ClassifyFn = std::function<Classification(
    const PodRecord& pod, std::span<const EventRecord> events, const ClusterDependencies* deps,
    const AutoscalerState& autoscaler, Timestamp now, const InstanceReadiness* instance)>;
using EventsFn = std::function<std::vector<EventRecord>(const PodRecord& pod)>;
// The Ready condition of a pod's tidb-operator v2 instance (asked only for pods with
// PodRecord::v2_instance), or nullopt when it is not known.
using InstanceFn = std::function<std::optional<InstanceReadiness>(const PodRecord& pod)>;
// What is known of a pod's claimed volumes (state/volume_store.h).
using VolumesFn = std::function<PodVolumeFacts(const PodRecord& pod)>;

// What changed since the previous evaluation, for an incremental one (EvaluationInput::changes).
struct PodChangeSet {
  // The current records of pods added or modified, or whose events or v2 instance changed.
  std::vector<std::shared_ptr<const PodRecord>> upserted;
  std::vector<std::string> deleted;  // uids of pods that are gone
};

// The one input of an evaluation: built by the Pipeline (from its stores), read by the
// Evaluator (which keeps this shard's pods) and the tracker.
struct EvaluationInput {
  // nullptr: a full evaluation, `pods` is every pod. Otherwise an incremental one: only these
  // pods changed since the previous evaluation (`pods` is not read), and the tracker works out
  // the rest itself — pods of clusters whose dependency state changed, every pod it tracks when
  // the autoscaler state changed, pods whose classification's recheck_at has come.
  const PodChangeSet* changes = nullptr;
  std::span<const std::shared_ptr<const PodRecord>> pods;
  EventsFn events;      // one pod's events; may be empty: no events
  InstanceFn instance;  // a v2 pod's instance readiness; may be empty: no v2 instances
  VolumesFn volumes;    // a pod's volume facts; may be empty: volumes not watched (unknown)
  // Incremental only: the namespaces whose claims or volumes changed; their tracked pods that
  // claim volumes are classified again.
  std::span<const std::string> volume_namespaces;
  const std::map<ClusterKey, ClusterDependencies>* dependencies = nullptr;
  AutoscalerState autoscaler;  // what the autoscalers are doing (MakeAutoscalerState)
  std::span<const FailureMember> failure_members;
  Timestamp now = 0;
};

// Classifies every pod, remembers what it saw to observe each completed stage exactly once, and
// publishes immutable snapshots. Evaluate() is called from one thread (the evaluation loop);
// Snapshot() from any thread (scrapes) and never waits for an evaluation.
//
// Incremental evaluation: a Ready pod never seen waiting has no track and needs nothing; every
// other pod has a track holding its record and last classification. So after a change only the
// changed pods are classified again, plus the tracked pods of a cluster whose dependency state
// changed, every tracked pod when the autoscaler state changed, and a pod whose classification's
// recheck_at has come (a min-heap of those times). The result is the full evaluation's, pod for
// pod (tests/unit/evaluate_incremental_test.cpp checks it on random change sequences). A
// snapshot is published only when something in it changed; LastEvaluated() says when the last
// evaluation ran.
//
// Exactly-once stage observations: a stage is observed only when podwait itself saw the pod
// waiting in it and then saw it leave (to a later stage, or Ready). A relist hands the same uids
// back (no transition); after an exporter restart, pods are first seen mid-stage (nothing to
// observe until they leave it) and stages completed while the exporter was down are never invented.
class WaitingTracker {
 public:
  // Classifies with Classify and these options.
  explicit WaitingTracker(ClassifierOptions options);
  // Classifies with `classify` instead (a scripted classifier; see ClassifyFn).
  explicit WaitingTracker(ClassifyFn classify);

  void Evaluate(const EvaluationInput& input);
  std::shared_ptr<const WaitingSnapshot> Snapshot() const;
  Timestamp LastEvaluated() const { return last_evaluated_.load(std::memory_order_relaxed); }
  // Pods classified by the last evaluation (for tests and the self-metrics).
  size_t LastClassified() const { return last_classified_; }

 private:
  struct ClassInterval {
    WaitClass wait_class;
    Timestamp from;
    Timestamp to;  // 0 while current
  };
  struct Track {
    bool waiting = false;
    Stage stage = Stage::kUnscheduled;
    WaitClass wait_class = WaitClass::kScheduling;
    Timestamp stage_start = 0;
    Timestamp class_since = 0;
    std::vector<ClassInterval> history;  // bounded: the last few class intervals
    uint64_t seen_generation = 0;
    // The record last evaluated (its namespace, name, cluster and component are the track's).
    std::shared_ptr<const PodRecord> pod;
    Timestamp recheck_at = 0;  // of the last classification (0: none)
  };
  // Published waiting pods, in the snapshot's order: namespace, cluster, pod name, uid — views
  // into the track's record and key, which outlive the entry (it is erased before either goes).
  using WaitKey =
      std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;

  // Evaluates one pod (the body of both kinds of evaluation); returns whether it was classified.
  bool Visit(const std::shared_ptr<const PodRecord>& pod_ptr, const EvaluationInput& input);
  // A full evaluation: every pod of `input.pods`; the tracks of pods not among them go. Returns
  // how many were classified.
  size_t VisitAll(const EvaluationInput& input);
  // An incremental evaluation's pods, by uid: the changed ones and the tracked ones whose
  // cluster's dependencies, the autoscaler state (every track; also when `full`), volumes or
  // recheck time say so. Forgets the deleted pods' tracks, setting *changed.
  std::unordered_map<std::string, std::shared_ptr<const PodRecord>> PodsToVisit(
      const EvaluationInput& input, bool full, bool* changed);
  // The recheck heap again from the tracks (drops the entries that are no longer current).
  void RebuildRechecks();
  // Every dependency row's held_by from the waiting pods, before a snapshot is published; a row
  // whose held_by did not change keeps its record.
  void UpdateHeldBy();
  void Forget(std::unordered_map<std::string, Track>::iterator it);
  void Observe(const Track& track, Timestamp stage_end);
  static Timestamp ReadySince(const PodRecord& pod, Timestamp fallback);
  bool WasWaitingOnDependencyAt(const Track& track, Timestamp t) const;
  std::map<std::tuple<std::string, std::string, std::string>, FailoverCount> CountFailovers(
      std::span<const FailureMember> members) const;

  const ClassifierOptions options_;
  const ClassifyFn classify_;                      // empty: Classify with options_
  std::unordered_map<std::string, Track> tracks_;  // by pod uid
  // Tracked uids by cluster (pointers to tracks_' keys, which stay put until the track goes).
  std::map<ClusterKey, std::unordered_set<const std::string*>> by_cluster_;
  struct Published {
    std::shared_ptr<const WaitingPod> classified;  // as Visit made it (no held_by)
    std::shared_ptr<const WaitingPod> shown;  // with its held_by (dependency rows), or the same
  };
  std::map<WaitKey, Published> waiting_;
  // (recheck_at, uid); an entry is current while the track's recheck_at still equals it.
  std::priority_queue<std::pair<Timestamp, std::string>,
                      std::vector<std::pair<Timestamp, std::string>>, std::greater<>>
      rechecks_;
  std::map<StageHistogramKey, StageHistogram> histograms_;
  uint64_t generation_ = 0;
  bool evaluated_once_ = false;
  std::map<ClusterKey, ClusterDependencies> last_dependencies_;
  AutoscalerState last_autoscaler_;
  size_t last_classified_ = 0;
  std::atomic<Timestamp> last_evaluated_{0};

  mutable std::mutex snapshot_mu_;
  std::shared_ptr<const WaitingSnapshot> snapshot_;
};

}  // namespace podwait
