#pragma once

// The evaluation of the Pipeline (evaluate/pipeline.h): one EvaluationInput — the pods, their
// events, the clusters' dependency state, the autoscaler state, the time — in, the waiting
// snapshot out.

#include <map>
#include <memory>
#include <optional>
#include <span>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/classify/classifier.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/waiting_tracker.h"
#include "exporter/model/types.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/v2_store.h"

namespace podwait {

struct EvaluatorOptions {
  ClassifierOptions classifier;
  AutoscalerMode autoscaler_mode = AutoscalerMode::kAuto;
  // This shard's pods only (ShardOf of the pod's TiDB cluster).
  int shard = 0;
  int total_shards = 1;
};
EvaluatorOptions EvaluatorOptionsFromConfig(const Config& config);

// What the autoscalers are doing: the CA status ConfigMap's node groups (if any), which
// autoscaler is present (DetectAutoscaler) and whose status is older than `stale_after`.
AutoscalerState MakeAutoscalerState(AutoscalerMode mode, const AutoscalerSignals& signals,
                                    const CaStatus* ca_status, Timestamp now,
                                    Timestamp stale_after = kDefaultSilenceGrace);

// The instance lookup of a V2Store: the instance v2 names after the pod
// (v2::InstanceNameOfPod) in the pod's cluster. `store` must outlive the function.
InstanceFn InstanceLookup(const V2Store& store);

// Evaluate() is called from one thread; Snapshot() from any thread, and never waits for an
// evaluation (WaitingTracker's contract).
class Evaluator {
 public:
  explicit Evaluator(EvaluatorOptions options);
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Evaluates this shard's pods of `input` (the others are dropped, or deleted from the tracker
  // when a change moved them to another shard).
  void Evaluate(const EvaluationInput& input);
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
