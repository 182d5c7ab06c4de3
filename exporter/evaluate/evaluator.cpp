#include "exporter/evaluate/evaluator.h"

#include <vector>

#include "exporter/common/shard.h"

namespace podwait {

EvaluatorOptions EvaluatorOptionsFromConfig(const Config& config) {
  EvaluatorOptions o;
  o.classifier.decision_grace = config.autoscaler_decision_grace;
  o.classifier.provision_timeout = config.autoscaler_provision_timeout;
  o.classifier.dependency_ready_grace = config.dependency_ready_grace;
  o.classifier.pd_bootstrap_grace = config.pd_bootstrap_grace;
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

ChangeFeed::ChangeFeed(const PodStore& pods, const EventStore* events, const V2Store* v2)
    : pods_(pods), events_(events), v2_(v2) {}

ChangeFeed::Changes ChangeFeed::Read() {
  Changes out;
  PodChanges pods = pods_.ChangesSince(pod_version_);
  std::vector<PodName> named;
  uint64_t event_version = event_version_, v2_version = v2_version_;
  bool exact = !pods.full;
  if (events_ != nullptr)
    exact &= events_->ChangedPodsSince(event_version_, &named, &event_version);
  if (v2_ != nullptr) exact &= v2_->ChangedPodsSince(v2_version_, &named, &v2_version);
  pod_version_ = pods.version;
  event_version_ = event_version;
  v2_version_ = v2_version;
  if (!exact) {
    out.full = true;
    out.all = pods.full ? std::move(pods.upserted) : pods_.Snapshot();
    return out;
  }
  out.full = false;
  out.set.upserted = std::move(pods.upserted);
  for (const auto& [ns, name] : named) {
    if (PodPtr p = pods_.Get(ns, name)) out.set.upserted.push_back(std::move(p));
  }
  out.set.deleted.reserve(pods.deleted.size());
  for (auto& d : pods.deleted) out.set.deleted.push_back(std::move(d.uid));
  return out;
}

void Evaluator::Evaluate(const EvaluatorInputs& in) {
  auto mine = [this](const PodPtr& p) {
    return options_.total_shards <= 1 ||
           ShardOf(p->namespace_, p->cluster, options_.total_shards) == options_.shard;
  };
  std::vector<PodPtr> shard_pods;
  std::span<const PodPtr> pods = in.pods;
  PodChangeSet shard_changes;
  const PodChangeSet* changes = in.changes;
  if (options_.total_shards > 1 && changes == nullptr) {
    shard_pods.reserve(in.pods.size() / static_cast<size_t>(options_.total_shards) + 16);
    for (const PodPtr& p : in.pods) {
      if (mine(p)) shard_pods.push_back(p);
    }
    pods = shard_pods;
  } else if (options_.total_shards > 1) {
    shard_changes.deleted = changes->deleted;
    for (const PodPtr& p : changes->upserted) {
      // A pod that moved to another shard (its cluster label changed) is gone from this one.
      if (mine(p)) {
        shard_changes.upserted.push_back(p);
      } else {
        shard_changes.deleted.push_back(p->uid);
      }
    }
    changes = &shard_changes;
  }
  EvaluationInput input;
  input.changes = changes;
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
