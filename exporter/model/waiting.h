#pragma once

// The published waiting values: what one evaluation says about the pods that wait, read by the
// metrics, the views and `explain` (docs/DESIGN.md §7). Plain, immutable once published.

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "exporter/model/types.h"

namespace podwait {

// A waiting pod of the dependency a `dependency` / `dependency_stuck` row waits on (docs/DESIGN.md
// §4, "Who holds a dependency wait"): its name, class and reason.
struct HeldBy {
  std::string pod;
  WaitClass wait_class = WaitClass::kScheduling;
  std::string reason;
  bool operator==(const HeldBy&) const = default;
};

// One waiting pod as published (metrics, /api/v1/pods, status page).
struct WaitingPod {
  std::string namespace_;
  std::string cluster;  // TidbCluster name (pod label)
  std::string
      tidb_cluster;  // "<namespace>-<cluster>" (docs/DESIGN.md §5), empty without a cluster label
  std::string component;
  std::string pod;
  // The tidb-operator v2 instance the pod belongs to (v2::InstanceNameOfPod), empty for v1: the
  // `v2_instance` label, which joins tidb_operator_abnormal_instance{instance} exactly.
  std::string v2_instance;
  std::string uid;  // the pod's metadata.uid (an Event about the pod names it)
  PodOwner owner = PodOwner::kTidbCluster;  // a TidbMonitor's pod is no TiDB cluster's
  Classification classification;
  Timestamp class_since = 0;  // when podwait first saw the pod in its current class
  // A dependency row (IsDependencyRow): the waiting pods of the dependencies it waits on
  // (classification.waits_on) in its namespace and cluster, the unexpected ones first, then the
  // expected ones, each in pod name order; empty when none of them waits. The evidence names the
  // first. Set when a snapshot is published (WithHeldBy), not by the classifier.
  std::vector<HeldBy> held_by;
};

// Whether the row is a `dependency` / `dependency_stuck` one (it carries held_by).
bool IsDependencyRow(const WaitingPod& w);

// Stage-duration histogram of completed stages, by (component, stage, class). The histograms
// outlive their pods, so the key holds the pod's component as ComponentLabel() maps it: every
// component tidb-operator does not define is one "other" (4,000 made-up values, one series).
struct StageHistogramKey {
  StageHistogramKey(std::string_view pod_component, Stage s, WaitClass c)
      : component(ComponentLabel(pod_component)), stage(s), wait_class(c) {}
  std::string_view component;  // static storage (ComponentLabel)
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

// "<namespace>-<cluster>", or "" without a cluster.
std::string TidbClusterLabel(const std::string& ns, const std::string& cluster);

// The waiting pods of one namespace and cluster as the holders of its dependency rows: added in
// pod order, then asked for the held_by of a row waiting on a set of dependencies (the holders
// of each set worked out once).
class ClusterHolders {
 public:
  // `w` must outlive the holders.
  void Add(const WaitingPod& w);
  // The waiting pods of the dependencies in `on` (their component is the dependency's name): the
  // unexpected ones first, then the expected ones, each in dependency order (PD first), then pod
  // order.
  const std::vector<HeldBy>& For(DependencySet on);

 private:
  static constexpr size_t kDeps = std::size(kAllDependencies);
  std::array<std::vector<const WaitingPod*>, kDeps> unexpected_;
  std::array<std::vector<const WaitingPod*>, kDeps> expected_;
  std::map<uint32_t, std::vector<HeldBy>> by_set_;
};

// `base` (a row as classified) with `held_by`, its evidence naming the first of them ("held by
// basic-pd-0: capacity/insufficient_cpu").
WaitingPod WithHeldBy(const WaitingPod& base, std::vector<HeldBy> held_by);

// The published form of a waiting pod.
WaitingPod MakeWaitingPod(const PodRecord& pod, Classification classification,
                          Timestamp class_since);

}  // namespace podwait
