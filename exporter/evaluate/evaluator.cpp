#include "exporter/evaluate/evaluator.h"

#include <vector>

#include "exporter/common/shard.h"

namespace podwait {

EvaluatorOptions EvaluatorOptionsFromConfig(const Config& config) {
  EvaluatorOptions o;
  o.classifier.decision_grace = config.autoscaler_decision_grace;
  o.classifier.provision_timeout = config.autoscaler_provision_timeout;
  o.classifier.dependency_ready_grace = config.dependency_ready_grace;
  o.classifier.dependency_init_containers = config.dependency_init_containers;
  o.classifier.dependency_map = config.dependency_map;
  o.autoscaler_mode = ParseAutoscalerMode(config.autoscaler).value_or(AutoscalerMode::kAuto);
  o.shard = config.shard;
  o.total_shards = config.total_shards;
  return o;
}

AutoscalerState MakeAutoscalerState(AutoscalerMode mode, const AutoscalerSignals& signals,
                                    const CaStatus* ca_status, Timestamp now) {
  AutoscalerState state;
  if (ca_status != nullptr) ApplyCaStatus(*ca_status, &state);
  DetectAutoscaler(mode, signals, now, &state);
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
    : options_(std::move(options)),
      tracker_([this](const PodRecord& pod, std::span<const EventRecord> events,
                      const ClusterDependencies* deps, const AutoscalerState& autoscaler,
                      Timestamp now, const InstanceReadiness* instance) {
        return Classify(pod, events, deps, autoscaler, options_.classifier, now, instance);
      }) {}

void Evaluator::Evaluate(const EvaluatorInputs& in) {
  std::vector<PodPtr> mine;
  std::span<const PodPtr> pods = in.pods;
  if (options_.total_shards > 1) {
    mine.reserve(in.pods.size() / static_cast<size_t>(options_.total_shards) + 16);
    for (const PodPtr& p : in.pods) {
      if (ShardOf(p->namespace_, p->cluster, options_.total_shards) == options_.shard) {
        mine.push_back(p);
      }
    }
    pods = mine;
  }
  EvaluationInput input;
  input.pods = pods;
  input.events = in.events;
  input.instance = in.instance;
  input.dependencies = in.dependencies;
  input.autoscaler =
      MakeAutoscalerState(options_.autoscaler_mode, in.autoscaler_signals, in.ca_status, in.now);
  input.failure_members = in.failure_members;
  input.now = in.now;
  tracker_.Evaluate(input);
}

}  // namespace podwait
