#include "exporter/evaluate/pipeline.h"

#include <utility>
#include <vector>

#include "exporter/classify/autoscaler.h"

namespace podwait {
namespace {

// What the autoscalers' presence is read from: the CA status ConfigMap, Karpenter's NodeClaims
// and the last event each autoscaler wrote (kept by the event store as events arrive).
AutoscalerSignals SignalsOf(const EventStore& events, bool ca_status_configmap,
                            const NodeClaimView& nodeclaims) {
  AutoscalerSignals signals;
  signals.status_object[AutoscalerKind::kClusterAutoscaler] = ca_status_configmap;
  signals.status_object[AutoscalerKind::kKarpenter] = !nodeclaims.claims.empty();
  signals.last_event = events.LastAutoscalerEvents();
  return signals;
}

}  // namespace

Pipeline::Pipeline(const Config& config, const Clock& clock)
    : registry_(config),
      dependencies_(config, clock),
      evaluator_(EvaluatorOptionsFromConfig(config)),
      feed_(pods_, &events_, &v2_),
      volumes_watched_(config.volumes_enabled) {
  registry_.SetListener([this](const std::map<ClusterKey, ClusterInfo>& clusters) {
    dependencies_.SyncClusters(clusters);
  });
  TidbClusterListener tidbcluster_listener;
  tidbcluster_listener.replaced = [this](const std::vector<TidbClusterStatus>& all) {
    std::vector<ClusterKey> keys;
    keys.reserve(all.size());
    for (const auto& tc : all) keys.push_back(tc.key);
    registry_.SetTidbClusters(keys);
    dependencies_.ReplaceTidbClusters(all);
  };
  tidbcluster_listener.upserted = [this](const TidbClusterStatus& tc) {
    registry_.UpsertTidbCluster(tc.key);
    dependencies_.OnTidbCluster(tc);
  };
  tidbcluster_listener.removed = [this](const ClusterKey& key) {
    registry_.RemoveTidbCluster(key);
    dependencies_.OnTidbClusterDeleted(key);
  };
  tidbclusters_.SetListener(std::move(tidbcluster_listener));
  // v1 DMClusters: the dm-master state their dm-workers wait for (no registry entry: a DMCluster
  // is no TiDB cluster, and its PD is never asked).
  DmClusterListener dm_listener;
  dm_listener.replaced = [this](const std::vector<DmClusterStatus>& all) {
    dependencies_.ReplaceDmClusters(all);
  };
  dm_listener.upserted = [this](const DmClusterStatus& dc) { dependencies_.OnDmCluster(dc); };
  dm_listener.removed = [this](const ClusterKey& key) { dependencies_.OnDmClusterDeleted(key); };
  dmclusters_.SetListener(std::move(dm_listener));
  v2_.SetListener([this](const ClusterKey& key, const v2::ClusterFacts& facts) {
    dependencies_.OnV2Cluster(key, facts);
  });
}

void Pipeline::SetCaStatus(CaStatusReading reading) {
  std::lock_guard<std::mutex> lock(ca_mu_);
  ca_status_ = std::move(reading);
}

void Pipeline::OnPdProbe(const ClusterKey& cluster, PdFacts facts) {
  dependencies_.OnPdProbe(cluster, std::move(facts));
}

AutoscalerState Pipeline::Autoscaler(Timestamp now) const {
  CaStatusReading ca;
  {
    std::lock_guard<std::mutex> lock(ca_mu_);
    ca = ca_status_;
  }
  std::shared_ptr<const NodeClaimView> nodeclaims = nodeclaims_.View();
  AutoscalerState state = MakeAutoscalerState(
      options().autoscaler_mode, SignalsOf(events_, ca.configmap_present, *nodeclaims),
      ca.status.get(), now, options().classifier.silence_grace);
  if (options().autoscaler_mode.MayUse(AutoscalerKind::kKarpenter)) {
    state.nodeclaims = std::move(nodeclaims);
  }
  if (options().autoscaler_mode.MayUse(AutoscalerKind::kClusterAutoscaler)) {
    state.provisioning_requests = provisioning_requests_.View();
  }
  return state;
}

void Pipeline::DiscoverClusters() { registry_.SetPodClusters(pods_.Clusters()); }

void Pipeline::Evaluate(Timestamp now) {
  // Cluster discovery follows the pod store (kept as pods change, no scan).
  DiscoverClusters();
  // Only what changed since the last evaluation (the evaluator finds the rest: clusters whose
  // dependency state changed, classifications whose time has come).
  const ChangeFeed::Changes changes = feed_.Read();
  const std::map<ClusterKey, ClusterDependencies> deps = dependencies_.Snapshot();
  const std::vector<FailureMember> failures = dependencies_.FailureMembers();
  EvaluationInput in;
  if (changes.full) {
    in.pods = changes.all;
  } else {
    in.changes = &changes.set;
  }
  // Read one pod's events at a time, only for the pods the evaluation classifies.
  in.events = [this](const PodRecord& pod) {
    return events_.EventsFor(pod.namespace_, pod.name, pod.uid);
  };
  in.instance = InstanceLookup(v2_);
  // Volume facts only where the claims are watched (otherwise the pinning stays unknown); the
  // waiting pods of namespaces whose claims or volumes changed are classified again.
  std::vector<std::string> volume_namespaces =
      volumes_.ChangedNamespacesSince(volumes_version_, &volumes_version_);
  if (volumes_watched_) {
    in.volumes = [this](const PodRecord& pod) { return volumes_.FactsFor(pod); };
    in.volume_namespaces = volume_namespaces;
  }
  in.dependencies = &deps;
  in.autoscaler = Autoscaler(now);
  in.failure_members = failures;
  in.now = now;
  evaluator_.Evaluate(in);
}

}  // namespace podwait
