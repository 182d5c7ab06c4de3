#pragma once

// The evaluation, shared by the live exporter and `explain` (docs/DESIGN.md, "Architecture"):
// plain inputs — the pods, their events, the clusters' dependency state, the autoscaler's
// signals, the time — in, the waiting snapshot out. The exporter's App feeds it from its stores
// once a second; `explain` feeds it from files once. Neither wires the pipeline its own way.

#include <map>
#include <memory>
#include <optional>
#include <span>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/classify/classifier.h"
#include "exporter/config/config.h"
#include "exporter/model/types.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/v2_store.h"
#include "exporter/state/waiting_tracker.h"

namespace podwait {

struct EvaluatorOptions {
  ClassifierOptions classifier;
  AutoscalerMode autoscaler_mode = AutoscalerMode::kAuto;
  // This shard's pods only (ShardOf of the pod's TiDB cluster).
  int shard = 0;
  int total_shards = 1;
};
EvaluatorOptions EvaluatorOptionsFromConfig(const Config& config);

struct EvaluatorInputs {
  // nullptr: a full evaluation of `pods`; otherwise what changed since the previous evaluation
  // (ChangeFeed), and `pods` is not read.
  const PodChangeSet* changes = nullptr;
  std::span<const PodPtr> pods;
  EventsFn events;      // one pod's events; may be empty: no events
  InstanceFn instance;  // a v2 pod's instance readiness; may be empty: no v2 instances
  AutoscalerSignals autoscaler_signals;
  const CaStatus* ca_status = nullptr;  // the cluster-autoscaler status ConfigMap, if read
  const std::map<ClusterKey, ClusterDependencies>* dependencies = nullptr;
  std::span<const FailureMember> failure_members;
  Timestamp now = 0;
};

// What the autoscalers are doing: the CA status ConfigMap's node groups (if any) and which
// autoscaler is present (DetectAutoscaler).
AutoscalerState MakeAutoscalerState(AutoscalerMode mode, const AutoscalerSignals& signals,
                                    const CaStatus* ca_status, Timestamp now);

// The instance lookup of a V2Store: the instance v2 names after the pod
// (v2::InstanceNameOfPod) in the pod's cluster. `store` must outlive the function.
InstanceFn InstanceLookup(const V2Store& store);

// What changed in the stores since the previous Read(): the input of an incremental evaluation.
// Reads the pod store's changes and the pods named by the event and v2 stores' change records;
// when any of them no longer reaches back to the previous read (or on the first read), the
// answer is a full one: every pod.
class ChangeFeed {
 public:
  // `events` and `v2` may be nullptr; every store must outlive the feed.
  ChangeFeed(const PodStore& pods, const EventStore* events, const V2Store* v2);

  struct Changes {
    bool full = true;
    std::vector<PodPtr> all;  // every pod, when full
    PodChangeSet set;         // what changed, when not full
  };
  Changes Read();

 private:
  const PodStore& pods_;
  const EventStore* const events_;
  const V2Store* const v2_;
  uint64_t pod_version_ = 0, event_version_ = 0, v2_version_ = 0;
};

// Evaluate() is called from one thread; Snapshot() from any thread, and never waits for an
// evaluation (WaitingTracker's contract).
class Evaluator {
 public:
  explicit Evaluator(EvaluatorOptions options);
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  void Evaluate(const EvaluatorInputs& inputs);
  std::shared_ptr<const WaitingSnapshot> Snapshot() const { return tracker_.Snapshot(); }
  // When the last evaluation ran (a snapshot is published only when something changed).
  Timestamp LastEvaluated() const { return tracker_.LastEvaluated(); }
  // Pods the last evaluation classified.
  size_t LastClassified() const { return tracker_.LastClassified(); }
  const EvaluatorOptions& options() const { return options_; }

 private:
  const EvaluatorOptions options_;
  WaitingTracker tracker_;
};

}  // namespace podwait
