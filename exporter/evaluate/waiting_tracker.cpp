#include "exporter/evaluate/waiting_tracker.h"

#include <algorithm>
#include <string_view>

namespace podwait {
namespace {

constexpr size_t kMaxHistory = 6;

bool IsDependencyWait(WaitClass c) {
  return c == WaitClass::kDependency || c == WaitClass::kDependencyStuck;
}

}  // namespace

WaitingTracker::WaitingTracker(ClassifierOptions options)
    : options_(std::move(options)), snapshot_(std::make_shared<WaitingSnapshot>()) {}

WaitingTracker::WaitingTracker(ClassifyFn classify)
    : classify_(std::move(classify)), snapshot_(std::make_shared<WaitingSnapshot>()) {}

Timestamp WaitingTracker::ReadySince(const PodRecord& pod, Timestamp fallback) {
  const Timestamp since = pod.ReadySince();
  return since > 0 ? since : fallback;
}

void WaitingTracker::Observe(const Track& track, Timestamp stage_end) {
  const double seconds =
      static_cast<double>(std::max<Timestamp>(0, stage_end - track.stage_start)) / 1000.0;
  StageHistogram& h = histograms_[{track.pod->component, track.stage, track.wait_class}];
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

void WaitingTracker::Forget(std::unordered_map<std::string, Track>::iterator it) {
  const Track& t = it->second;
  if (t.waiting && t.pod != nullptr) {
    waiting_.erase(WaitKey{t.pod->namespace_, t.pod->cluster, t.pod->name, it->first});
  }
  auto c = t.pod == nullptr ? by_cluster_.end()
                            : by_cluster_.find(ClusterKey{t.pod->namespace_, t.pod->cluster});
  if (c != by_cluster_.end()) {
    c->second.erase(&it->first);
    if (c->second.empty()) by_cluster_.erase(c);
  }
  tracks_.erase(it);
}

bool WaitingTracker::Visit(const std::shared_ptr<const PodRecord>& pod_ptr,
                           const EvaluationInput& input) {
  const PodRecord& pod = *pod_ptr;
  auto track_it = tracks_.find(pod.uid);
  // A v2 pod that is Ready while its instance is Ready=False (a TiKV without readiness probe
  // whose store does not serve yet) is waiting; v1 pods never ask (one flag test).
  std::optional<InstanceReadiness> instance;
  if (pod.v2_instance && input.instance) instance = input.instance(pod);
  const bool instance_not_ready = instance && InstanceHoldsBackReadyPod(*instance);
  const bool ready = pod.IsReady() && pod.deleted == 0 && !instance_not_ready;
  if (ready && track_it == tracks_.end()) {
    // Fast path for the common case (90% of a healthy fleet): a Ready pod that podwait never saw
    // waiting needs no classification and no track (a track starts when a pod is first seen
    // waiting).
    return false;
  }
  Classification c;
  bool classified = false;
  if (ready && !track_it->second.waiting) {
    c.waiting = false;
  } else {
    const ClusterDependencies* deps = nullptr;
    // A TiDB cluster's pod reads its cluster's dependencies, a v1 DMCluster's its dm-master (under
    // the same key); a TidbMonitor's or a discovery's pod named like its TidbCluster waits for
    // nothing of it.
    if (input.dependencies != nullptr && pod.owner != PodOwner::kNotACluster) {
      auto it = input.dependencies->find(ClusterKey{pod.namespace_, pod.cluster});
      if (it != input.dependencies->end()) deps = &it->second;
    }
    std::vector<EventRecord> events;
    if (input.events) events = input.events(pod);
    const InstanceReadiness* inst = instance ? &*instance : nullptr;
    std::optional<PodVolumeFacts> volumes;
    if (input.volumes) volumes = input.volumes(pod);
    c = classify_ ? classify_(pod, events, deps, input.autoscaler, input.now, inst)
                  : Classify(pod, events, deps, input.autoscaler, options_, input.now, inst,
                             volumes ? &*volumes : nullptr);
    classified = true;
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
      // Its published entry goes; it comes back below if the pod still waits.
      waiting_.erase(WaitKey{t.pod->namespace_, t.pod->cluster, t.pod->name, track_it->first});
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
  if (t.pod == nullptr || t.pod->namespace_ != pod.namespace_ || t.pod->cluster != pod.cluster) {
    if (t.pod != nullptr) {
      auto old = by_cluster_.find(ClusterKey{t.pod->namespace_, t.pod->cluster});
      if (old != by_cluster_.end()) {
        old->second.erase(&track_it->first);
        if (old->second.empty()) by_cluster_.erase(old);
      }
    }
    by_cluster_[ClusterKey{pod.namespace_, pod.cluster}].insert(&track_it->first);
  }
  t.pod = pod_ptr;
  // A heap entry per new recheck time only: a pod classified again to the same time has its entry.
  if (c.recheck_at != 0 && c.recheck_at != t.recheck_at) {
    rechecks_.emplace(c.recheck_at, track_it->first);
  }
  t.recheck_at = c.recheck_at;

  if (c.waiting) {
    // The stage's histogram series exists (at zero) from the first pod seen waiting in it, so
    // the first completion is an increase that rate() can see.
    histograms_.try_emplace(StageHistogramKey{pod.component, c.stage, c.wait_class});
    auto w = std::make_shared<const WaitingPod>(MakeWaitingPod(pod, std::move(c), t.class_since));
    waiting_.insert_or_assign(WaitKey{pod.namespace_, pod.cluster, pod.name, track_it->first},
                              Published{w, w});
  }
  return classified;
}

std::map<std::tuple<std::string, std::string, std::string>, FailoverCount>
WaitingTracker::CountFailovers(std::span<const FailureMember> members) const {
  std::map<std::tuple<std::string, std::string, std::string>, FailoverCount> out;
  if (members.empty()) return out;
  std::unordered_map<std::string, const Track*> by_name;
  for (const auto& [uid, t] : tracks_) by_name[t.pod->namespace_ + "/" + t.pod->name] = &t;
  for (const auto& m : members) {
    FailoverCount& fc = out[{m.namespace_, m.cluster, m.component}];
    ++fc.members;
    auto it = by_name.find(m.namespace_ + "/" + m.pod);
    if (it != by_name.end() && WasWaitingOnDependencyAt(*it->second, m.created_at)) {
      ++fc.during_dependency_wait;
    }
  }
  return out;
}

void WaitingTracker::UpdateHeldBy() {
  // waiting_ is in (namespace, cluster, pod) order: one pass over each cluster's run of rows,
  // grouping its pods by component only when one of them waits on a dependency.
  for (auto run = waiting_.begin(); run != waiting_.end();) {
    auto end = run;
    bool any = false;
    while (end != waiting_.end() && std::get<0>(end->first) == std::get<0>(run->first) &&
           std::get<1>(end->first) == std::get<1>(run->first)) {
      any = any || (IsDependencyRow(*end->second.classified) &&
                    !end->second.classified->classification.waits_on.Empty());
      ++end;
    }
    if (any) {
      ClusterHolders holders;
      for (auto it = run; it != end; ++it) holders.Add(*it->second.classified);
      for (auto it = run; it != end; ++it) {
        Published& w = it->second;
        if (!IsDependencyRow(*w.classified)) continue;
        const std::vector<HeldBy>& held_by = holders.For(w.classified->classification.waits_on);
        if (w.shown->held_by == held_by) continue;
        w.shown = std::make_shared<const WaitingPod>(WithHeldBy(*w.classified, held_by));
      }
    }
    run = end;
  }
}

void WaitingTracker::RebuildRechecks() {
  rechecks_ = {};
  for (const auto& [uid, t] : tracks_) {
    if (t.recheck_at != 0) rechecks_.emplace(t.recheck_at, uid);
  }
}

size_t WaitingTracker::VisitAll(const EvaluationInput& input) {
  size_t classified = 0;
  for (const auto& pod_ptr : input.pods) classified += Visit(pod_ptr, input) ? 1 : 0;
  // Pods that are gone take their tracks with them.
  for (auto it = tracks_.begin(); it != tracks_.end();) {
    auto next = std::next(it);
    if (it->second.seen_generation != generation_) Forget(it);
    it = next;
  }
  // Every recheck is current again: the heap starts over from the tracks.
  RebuildRechecks();
  return classified;
}

std::unordered_map<std::string, std::shared_ptr<const PodRecord>> WaitingTracker::PodsToVisit(
    const EvaluationInput& input, bool full, bool* changed) {
  // The pods to look at again, by uid: each is visited once, with its current record.
  std::unordered_map<std::string, std::shared_ptr<const PodRecord>> dirty;
  for (const auto& p : input.changes->upserted) dirty[p->uid] = p;
  // A pod deleted and back since the last evaluation (it moved between the two pod reflectors)
  // was never gone as far as an evaluation can tell: it keeps its track.
  for (const std::string& uid : input.changes->deleted) {
    auto it = tracks_.find(uid);
    if (it != tracks_.end() && dirty.find(uid) == dirty.end()) {
      Forget(it);
      *changed = true;
    }
  }
  auto mark_tracked = [&](const std::string& uid) {
    auto it = tracks_.find(uid);
    if (it != tracks_.end() && it->second.pod != nullptr) dirty.try_emplace(uid, it->second.pod);
  };
  // The autoscaler's state is read by every waiting pod's classification.
  if (!(input.autoscaler == last_autoscaler_) || full) {
    for (const auto& [uid, t] : tracks_) mark_tracked(uid);
    *changed = true;
  } else if (input.dependencies != nullptr) {
    // Clusters whose dependency state changed (appeared, changed or went away).
    auto mark_cluster = [&](const ClusterKey& key) {
      auto it = by_cluster_.find(key);
      if (it == by_cluster_.end()) return;
      for (const std::string* uid : it->second) mark_tracked(*uid);
    };
    for (const auto& [key, deps] : *input.dependencies) {
      auto it = last_dependencies_.find(key);
      if (it == last_dependencies_.end() || !(it->second == deps)) mark_cluster(key);
    }
    for (const auto& [key, deps] : last_dependencies_) {
      if (input.dependencies->find(key) == input.dependencies->end()) mark_cluster(key);
    }
  }
  // Pods whose claims or volumes changed.
  if (!input.volume_namespaces.empty()) {
    const std::set<std::string_view> namespaces(input.volume_namespaces.begin(),
                                                input.volume_namespaces.end());
    for (const auto& [uid, t] : tracks_) {
      if (t.pod != nullptr && !t.pod->detail().claims.empty() &&
          namespaces.count(t.pod->namespace_)) {
        mark_tracked(uid);
      }
    }
  }
  // Classifications whose time has come.
  while (!rechecks_.empty() && rechecks_.top().first <= input.now) {
    auto [at, uid] = rechecks_.top();
    rechecks_.pop();
    auto it = tracks_.find(uid);
    if (it != tracks_.end() && it->second.recheck_at == at) mark_tracked(uid);
  }
  return dirty;
}

void WaitingTracker::Evaluate(const EvaluationInput& input) {
  ++generation_;
  size_t classified = 0;
  bool changed = false;
  const bool full = input.changes == nullptr || !evaluated_once_;
  if (input.changes == nullptr) {
    classified = VisitAll(input);
  } else {
    for (const auto& [uid, pod_ptr] : PodsToVisit(input, full, &changed)) {
      classified += Visit(pod_ptr, input) ? 1 : 0;
      changed = true;
    }
    // Keep the heap from filling with entries that are no longer current.
    if (rechecks_.size() > 2 * tracks_.size() + 1024) RebuildRechecks();
  }
  evaluated_once_ = true;
  last_classified_ = classified;
  if (input.dependencies != nullptr) {
    last_dependencies_ = *input.dependencies;
  } else {
    last_dependencies_.clear();
  }
  last_autoscaler_ = input.autoscaler;
  last_evaluated_.store(input.now, std::memory_order_relaxed);

  auto failover = CountFailovers(input.failure_members);
  std::shared_ptr<const WaitingSnapshot> previous = Snapshot();
  if (!full && !changed && failover == previous->failover) return;

  auto snapshot = std::make_shared<WaitingSnapshot>();
  snapshot->evaluated_at = input.now;
  snapshot->autoscaler = input.autoscaler;
  snapshot->pods.reserve(waiting_.size());
  UpdateHeldBy();
  for (const auto& [key, w] : waiting_) snapshot->pods.push_back(w.shown);
  snapshot->failover = std::move(failover);
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
