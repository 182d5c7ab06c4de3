#pragma once

// The one evaluation pipeline of the exporter and `explain` (docs/DESIGN.md §7): the stores the
// sources write, their wiring (pods -> cluster registry -> dependency state; TidbClusters ->
// registry + dependency state; tidb-operator v2 clusters -> dependency state), the autoscaler
// state and the Evaluator. The two differ only in where documents come from (reflectors and the
// PD prober, or files) and where the answer goes (metrics and views, or a table).

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "exporter/classify/ca_status.h"
#include "exporter/common/clock.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/change_feed.h"
#include "exporter/evaluate/evaluator.h"
#include "exporter/model/waiting.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/dependency_store.h"
#include "exporter/state/event_store.h"
#include "exporter/state/nodeclaim_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/provisioning_request_store.h"
#include "exporter/state/tidbcluster_store.h"
#include "exporter/state/v2_store.h"
#include "exporter/state/volume_store.h"

namespace podwait {

// Thread-safety: the stores are thread-safe (each its own lock) and are written by the sources'
// threads; SetCaStatus() and the readers (Snapshot() and the rest) may be called from any
// thread; Evaluate() from one thread only (the evaluation loop, or explain's main).
class Pipeline {
 public:
  // `config` and `clock` must outlive the pipeline.
  Pipeline(const Config& config, const Clock& clock);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The stores, for the sources to write and the collectors and the prober to read.
  EventStore& events() { return events_; }
  PodStore& pods() { return pods_; }
  TidbClusterStore& tidbclusters() { return tidbclusters_; }
  V2Store& v2() { return v2_; }
  VolumeStore& volumes() { return volumes_; }
  const ClusterRegistry& registry() const { return registry_; }
  DependencyStore& dependencies() { return dependencies_; }
  NodeClaimStore& nodeclaims() { return nodeclaims_; }
  ProvisioningRequestStore& provisioning_requests() { return provisioning_requests_; }
  const DependencyStore& dependencies() const { return dependencies_; }

  // The cluster-autoscaler status ConfigMap as last read (sources/ca_status_source.h).
  void SetCaStatus(CaStatusReading reading);

  // The clusters of the pods, in the registry (Evaluate() does it first; `explain` calls it to
  // probe their PD before it evaluates).
  void DiscoverClusters();

  // One evaluation at `now` of what changed in the stores since the previous one (the first, or
  // one after a relist, is a full one).
  void Evaluate(Timestamp now);

  std::shared_ptr<const WaitingSnapshot> Snapshot() const { return evaluator_.Snapshot(); }
  // When the last evaluation ran (a snapshot is published only when something changed).
  Timestamp LastEvaluated() const { return evaluator_.LastEvaluated(); }
  // Pods the last evaluation classified.
  size_t LastClassified() const { return evaluator_.LastClassified(); }
  const EvaluatorOptions& options() const { return evaluator_.options(); }

 private:
  AutoscalerState Autoscaler(Timestamp now) const;

  EventStore events_;
  PodStore pods_;
  TidbClusterStore tidbclusters_;
  V2Store v2_;
  VolumeStore volumes_;
  ClusterRegistry registry_;
  DependencyStore dependencies_;
  NodeClaimStore nodeclaims_;
  ProvisioningRequestStore provisioning_requests_;
  Evaluator evaluator_;
  ChangeFeed feed_;               // Evaluate()'s thread only
  uint64_t volumes_version_ = 0;  // Evaluate()'s thread only
  const bool volumes_watched_;

  mutable std::mutex ca_mu_;
  CaStatusReading ca_status_;
};

}  // namespace podwait
