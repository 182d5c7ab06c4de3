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

#include "exporter/model/types.h"
#include "exporter/model/v2.h"

namespace podwait {

// One waiting pod as published (metrics, /api/v1/pods, status page).
struct WaitingPod {
  std::string namespace_;
  std::string cluster;  // TidbCluster name (pod label)
  std::string
      tidb_cluster;  // "<namespace>-<cluster>" (docs/DESIGN.md §5), empty without a cluster label
  std::string component;
  std::string pod;
  Classification classification;
  Timestamp class_since = 0;  // when podwait first saw the pod in its current class
};

// Stage-duration histogram of completed stages, by (component, stage, class).
struct StageHistogramKey {
  std::string component;
  Stage stage;
  WaitClass wait_class;
  auto operator<=>(const StageHistogramKey&) const = default;
};
inline constexpr std::array<double, 13> kStageBuckets = {1,   5,   10,   30,   60,   120,  300,
                                                         600, 900, 1800, 3600, 7200, 21600};
struct StageHistogram {
  std::array<uint64_t, kStageBuckets.size()> buckets{};  // non-cumulative counts per bucket
  uint64_t count = 0;
  double sum = 0;
};

// A failover member or store that tidb-operator recorded (TidbCluster status).
struct FailureMember {
  std::string namespace_;
  std::string cluster;
  std::string component;  // pd, tidb, tikv, tiflash
  std::string pod;
  Timestamp created_at = 0;
};

struct FailoverCount {
  uint64_t members = 0;
  uint64_t during_dependency_wait = 0;
  bool operator==(const FailoverCount&) const = default;
};

// The waiting pods of a snapshot, read as a sequence of WaitingPod. Each is an immutable record
// shared between consecutive snapshots for as long as it does not change, so publishing a
// snapshot copies pointers, not pods.
class WaitingPods {
 public:
  using value_type = WaitingPod;
  using size_type = size_t;
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = WaitingPod;
    using difference_type = std::ptrdiff_t;
    using pointer = const WaitingPod*;
    using reference = const WaitingPod&;
    const_iterator() = default;
    explicit const_iterator(std::vector<std::shared_ptr<const WaitingPod>>::const_iterator it)
        : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++it_;
      return old;
    }
    bool operator==(const const_iterator& o) const { return it_ == o.it_; }
    bool operator!=(const const_iterator& o) const { return it_ != o.it_; }

   private:
    std::vector<std::shared_ptr<const WaitingPod>>::const_iterator it_;
  };
  using iterator = const_iterator;

  const_iterator begin() const { return const_iterator(pods_.begin()); }
  const_iterator end() const { return const_iterator(pods_.end()); }
  size_t size() const { return pods_.size(); }
  bool empty() const { return pods_.empty(); }
  const WaitingPod& operator[](size_t i) const { return *pods_[i]; }
  const WaitingPod& at(size_t i) const { return *pods_.at(i); }
  void reserve(size_t n) { pods_.reserve(n); }
  void push_back(std::shared_ptr<const WaitingPod> pod) { pods_.push_back(std::move(pod)); }
  void push_back(WaitingPod pod) { pods_.push_back(std::make_shared<WaitingPod>(std::move(pod))); }
  // Pod i as a copy that only this sequence holds, to change (for snapshots made by hand).
  WaitingPod& Mutable(size_t i) {
    auto copy = std::make_shared<WaitingPod>(*pods_.at(i));
    WaitingPod& ref = *copy;
    pods_[i] = std::move(copy);
    return ref;
  }

 private:
  std::vector<std::shared_ptr<const WaitingPod>> pods_;
};

// Everything the metrics and views need, immutable once published.
struct WaitingSnapshot {
  Timestamp evaluated_at = 0;
  WaitingPods pods;  // sorted by namespace, cluster, pod
  std::map<StageHistogramKey, StageHistogram> stage_durations;
  // (namespace, cluster, component) -> failover counts
  std::map<std::tuple<std::string, std::string, std::string>, FailoverCount> failover;
  AutoscalerState autoscaler;
};

using ClassifyFn = std::function<Classification(
    const PodRecord& pod, std::span<const EventRecord> events, const ClusterDependencies* deps,
    const AutoscalerState& autoscaler, Timestamp now, const InstanceReadiness* instance)>;
using EventsFn = std::function<std::vector<EventRecord>(const PodRecord& pod)>;
// The Ready condition of a pod's tidb-operator v2 instance (asked only for pods with
// PodRecord::v2_instance), or nullopt when it is not known.
using InstanceFn = std::function<std::optional<InstanceReadiness>(const PodRecord& pod)>;

// What changed since the previous evaluation, for an incremental one (EvaluationInput::changes).
struct PodChangeSet {
  // The current records of pods added or modified, or whose events or v2 instance changed.
  std::vector<std::shared_ptr<const PodRecord>> upserted;
  std::vector<std::string> deleted;  // uids of pods that are gone
};

struct EvaluationInput {
  // nullptr: a full evaluation, `pods` is every pod. Otherwise an incremental one: only these
  // pods changed since the previous evaluation (`pods` is not read), and the tracker works out
  // the rest itself — pods of clusters whose dependency state changed, every pod it tracks when
  // the autoscaler state changed, pods whose classification's recheck_at has come.
  const PodChangeSet* changes = nullptr;
  std::span<const std::shared_ptr<const PodRecord>> pods;
  EventsFn events;      // may be empty: no events
  InstanceFn instance;  // may be empty: no v2 instances
  const std::map<ClusterKey, ClusterDependencies>* dependencies = nullptr;
  AutoscalerState autoscaler;
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
  void Forget(std::unordered_map<std::string, Track>::iterator it);
  void Observe(const Track& track, Timestamp stage_end);
  static Timestamp ReadySince(const PodRecord& pod, Timestamp fallback);
  bool WasWaitingOnDependencyAt(const Track& track, Timestamp t) const;
  std::map<std::tuple<std::string, std::string, std::string>, FailoverCount> CountFailovers(
      std::span<const FailureMember> members) const;

  ClassifyFn classify_;
  std::unordered_map<std::string, Track> tracks_;  // by pod uid
  // Tracked uids by cluster (pointers to tracks_' keys, which stay put until the track goes).
  std::map<ClusterKey, std::unordered_set<const std::string*>> by_cluster_;
  std::map<WaitKey, std::shared_ptr<const WaitingPod>> waiting_;
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

// "<namespace>-<cluster>", or "" without a cluster.
std::string TidbClusterLabel(const std::string& ns, const std::string& cluster);

// The published form of a waiting pod.
WaitingPod MakeWaitingPod(const PodRecord& pod, Classification classification,
                          Timestamp class_since);

}  // namespace podwait
