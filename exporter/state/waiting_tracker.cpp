#include "exporter/state/waiting_tracker.h"

#include <algorithm>
#include <string_view>

namespace podwait {
namespace {

constexpr size_t kMaxHistory = 6;

bool IsDependencyWait(WaitClass c) {
  return c == WaitClass::kDependency || c == WaitClass::kDependencyStuck;
}

}  // namespace

std::string TidbClusterLabel(const std::string& ns, const std::string& cluster) {
  if (cluster.empty()) return std::string();
  return ns + "-" + cluster;
}

WaitingPod MakeWaitingPod(const PodRecord& pod, Classification classification,
                          Timestamp class_since) {
  WaitingPod w;
  w.namespace_ = pod.namespace_;
  w.cluster = pod.cluster;
  w.tidb_cluster = TidbClusterLabel(pod.namespace_, pod.cluster);
  w.component = pod.component;
  w.pod = pod.name;
  w.classification = std::move(classification);
  w.class_since = class_since;
  return w;
}

WaitingTracker::WaitingTracker(ClassifyFn classify)
    : classify_(std::move(classify)), snapshot_(std::make_shared<WaitingSnapshot>()) {}

Timestamp WaitingTracker::ReadySince(const PodRecord& pod, Timestamp fallback) {
  const Timestamp since = pod.ReadySince();
  return since > 0 ? since : fallback;
}

void WaitingTracker::Observe(const Track& track, Timestamp stage_end) {
  const double seconds =
      static_cast<double>(std::max<Timestamp>(0, stage_end - track.stage_start)) / 1000.0;
  StageHistogram& h = histograms_[{track.component, track.stage, track.wait_class}];
  size_t bucket = 0;
  while (bucket < kStageBuckets.size() && seconds > kStageBuckets[bucket]) ++bucket;
  if (bucket < kStageBuckets.size()) ++h.buckets[bucket];
  ++h.count;
  h.sum += seconds;
}

bool WaitingTracker::WasWaitingOnDependencyAt(const Track& track, Timestamp t) const {
  for (const auto& interval : track.history) {
    if (IsDependencyWait(interval.wait_class) && interval.from <= t &&
        (interval.to == 0 || t <= interval.to)) {
      return true;
    }
  }
  // Seen first after the failover was recorded: the current dependency wait counts when its stage
  // had already begun at that time.
  return track.waiting && IsDependencyWait(track.wait_class) && track.stage_start <= t;
}

void WaitingTracker::Evaluate(const EvaluationInput& input) {
  ++generation_;
  auto snapshot = std::make_shared<WaitingSnapshot>();
  // About as many waiting pods as last time: one allocation instead of a doubling series.
  snapshot->pods.reserve(Snapshot()->pods.size() + 16);
  snapshot->evaluated_at = input.now;
  snapshot->autoscaler = input.autoscaler;

  for (const auto& pod_ptr : input.pods) {
    const PodRecord& pod = *pod_ptr;
    auto track_it = tracks_.find(pod.uid);
    // A v2 pod that is Ready while its instance is Ready=False (a TiKV without readiness probe
    // whose store does not serve yet) is waiting; v1 pods never ask (one flag test).
    std::optional<InstanceReadiness> instance;
    if (pod.v2_instance && input.instance) instance = input.instance(pod);
    const bool instance_not_ready = instance && instance->ready == ConditionStatus::kFalse;
    const bool ready = pod.IsReady() && pod.deleted == 0 && !instance_not_ready;
    if (ready && track_it == tracks_.end()) {
      // Fast path for the common case (90% of a healthy fleet): a Ready pod that podwait never saw
      // waiting needs no classification and no track (a track starts when a pod is first seen
      // waiting).
      continue;
    }
    Classification c;
    if (ready && !track_it->second.waiting) {
      c.waiting = false;
    } else {
      const ClusterDependencies* deps = nullptr;
      if (input.dependencies != nullptr) {
        auto it = input.dependencies->find(ClusterKey{pod.namespace_, pod.cluster});
        if (it != input.dependencies->end()) deps = &it->second;
      }
      std::vector<EventRecord> events;
      if (input.events) events = input.events(pod);
      c = classify_(pod, events, deps, input.autoscaler, input.now,
                    instance ? &*instance : nullptr);
    }

    if (track_it == tracks_.end()) {
      track_it = tracks_.emplace(pod.uid, Track{}).first;
      Track& t = track_it->second;
      t.waiting = c.waiting;
      t.stage = c.stage;
      t.wait_class = c.wait_class;
      t.stage_start = c.stage_start;
      t.class_since = input.now;
      if (c.waiting) t.history.push_back({c.wait_class, input.now, 0});
    } else {
      Track& t = track_it->second;
      if (t.waiting) {
        const bool left_stage = !c.waiting || c.stage != t.stage;
        // A pod being deleted, or that failed, did not complete its stage.
        const bool completed =
            left_stage && pod.deleted == 0 && pod.phase != PodPhase::kFailed &&
            (c.waiting ? static_cast<int>(c.stage) > static_cast<int>(t.stage) : ready);
        if (completed) Observe(t, c.waiting ? c.stage_start : ReadySince(pod, input.now));
      }
      const bool class_changed =
          c.waiting != t.waiting || (c.waiting && c.wait_class != t.wait_class);
      if (class_changed) {
        if (!t.history.empty() && t.history.back().to == 0) t.history.back().to = input.now;
        if (c.waiting) t.history.push_back({c.wait_class, input.now, 0});
        if (t.history.size() > kMaxHistory) t.history.erase(t.history.begin());
        t.class_since = input.now;
      }
      t.waiting = c.waiting;
      t.stage = c.stage;
      t.wait_class = c.wait_class;
      t.stage_start = c.stage_start;
    }
    Track& t = track_it->second;
    t.seen_generation = generation_;
    if (t.component != pod.component) t.component = pod.component;
    if (t.namespace_.empty()) {
      t.namespace_ = pod.namespace_;
      t.name = pod.name;
    }

    if (c.waiting) {
      // The stage's histogram series exists (at zero) from the first pod seen waiting in it, so
      // the first completion is an increase that rate() can see.
      histograms_.try_emplace(StageHistogramKey{pod.component, c.stage, c.wait_class});
      snapshot->pods.push_back(MakeWaitingPod(pod, std::move(c), t.class_since));
    }
  }

  // Pods that are gone take their tracks with them.
  for (auto it = tracks_.begin(); it != tracks_.end();) {
    if (it->second.seen_generation != generation_) {
      it = tracks_.erase(it);
    } else {
      ++it;
    }
  }

  // Failover members recorded by the operator, and those recorded during a dependency wait.
  if (!input.failure_members.empty()) {
    std::unordered_map<std::string, const Track*> by_name;
    for (const auto& [uid, t] : tracks_) by_name[t.namespace_ + "/" + t.name] = &t;
    for (const auto& m : input.failure_members) {
      FailoverCount& fc = snapshot->failover[{m.namespace_, m.cluster, m.component}];
      ++fc.members;
      auto it = by_name.find(m.namespace_ + "/" + m.pod);
      if (it != by_name.end() && WasWaitingOnDependencyAt(*it->second, m.created_at)) {
        ++fc.during_dependency_wait;
      }
    }
  }

  std::sort(
      snapshot->pods.begin(), snapshot->pods.end(), [](const WaitingPod& a, const WaitingPod& b) {
        return std::tie(a.namespace_, a.cluster, a.pod) < std::tie(b.namespace_, b.cluster, b.pod);
      });
  snapshot->stage_durations = histograms_;
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    snapshot_ = std::move(snapshot);
  }
}

std::shared_ptr<const WaitingSnapshot> WaitingTracker::Snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  return snapshot_;
}

}  // namespace podwait
