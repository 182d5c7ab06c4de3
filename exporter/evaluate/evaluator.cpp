#include "exporter/evaluate/evaluator.h"

#include <vector>

#include "exporter/common/shard.h"
#include "exporter/state/pod_store.h"

namespace podwait {

EvaluatorOptions EvaluatorOptionsFromConfig(const Config& config) {
  EvaluatorOptions o;
  o.classifier.decision_grace = config.autoscaler_decision_grace;
  o.classifier.provision_timeout = config.autoscaler_provision_timeout;
  o.classifier.silence_grace = config.autoscaler_silence_grace;
  o.classifier.dependency_ready_grace = config.dependency_ready_grace;
  o.classifier.pd_bootstrap_grace = config.pd_bootstrap_grace;
  o.classifier.mode_switch_grace = config.mode_switch_grace;
  o.classifier.leader_eviction_grace = config.leader_eviction_grace;
  o.classifier.store_offline_grace = config.store_offline_grace;
  o.classifier.dependency_init_containers = config.dependency_init_containers;
  o.classifier.dependency_map = config.dependency_map;
  o.autoscaler_mode = ParseAutoscalerMode(config.autoscaler).value_or(AutoscalerMode::kAuto);
  o.shard = config.shard;
  o.total_shards = config.total_shards;
  return o;
}

AutoscalerState MakeAutoscalerState(AutoscalerMode mode, const AutoscalerSignals& signals,
                                    const CaStatus* ca_status, Timestamp now,
                                    Timestamp stale_after) {
  AutoscalerState state;
  if (ca_status != nullptr) ApplyCaStatus(*ca_status, &state);
  DetectAutoscaler(mode, signals, now, &state);
  // Only a probe time in the past counts: one ahead of our clock (skew) is not stale.
  state.status_stale[AutoscalerKind::kClusterAutoscaler] =
      state.ca_status_time != 0 && now - state.ca_status_time > stale_after;
  return state;
}

InstanceFn InstanceLookup(const V2Store& store) {
  return [&store](const PodRecord& pod) -> std::optional<InstanceReadiness> {
    std::string name = v2::InstanceNameOfPod(pod.name, pod.component);
    if (name.empty()) return std::nullopt;
    return store.InstanceOf(ClusterKey{pod.namespace_, pod.cluster}, pod.component, name);
  };
}

Evaluator::Evaluator(EvaluatorOptions options)
    : options_(std::move(options)), tracker_(options_.classifier) {}

void Evaluator::Evaluate(const EvaluationInput& in) {
  if (options_.total_shards <= 1) {
    tracker_.Evaluate(in);
    return;
  }
  auto mine = [this](const PodPtr& p) {
    return ShardOf(p->namespace_, p->cluster, options_.total_shards) == options_.shard;
  };
  EvaluationInput shard = in;
  std::vector<PodPtr> shard_pods;
  PodChangeSet shard_changes;
  if (in.changes == nullptr) {
    shard_pods.reserve(in.pods.size() / static_cast<size_t>(options_.total_shards) + 16);
    for (const PodPtr& p : in.pods) {
      if (mine(p)) shard_pods.push_back(p);
    }
    shard.pods = shard_pods;
  } else {
    shard_changes.deleted = in.changes->deleted;
    for (const PodPtr& p : in.changes->upserted) {
      // A pod that moved to another shard (its cluster label changed) is gone from this one.
      if (mine(p)) {
        shard_changes.upserted.push_back(p);
      } else {
        shard_changes.deleted.push_back(p->uid);
      }
    }
    shard.changes = &shard_changes;
  }
  tracker_.Evaluate(shard);
}

}  // namespace podwait
