#pragma once

// The one evaluation pipeline of the exporter and `explain` (docs/DESIGN.md §7): the stores the
// sources write, their wiring (pods -> cluster registry -> dependency state; TidbClusters ->
// registry + dependency state; DMClusters and tidb-operator v2 clusters -> dependency state), the
// autoscaler state and the Evaluator. The two differ only in where documents come from (reflectors
// and the PD prober, or files) and where the answer goes (metrics and views, or a table).

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "exporter/classify/ca_status.h"
#include "exporter/common/clock.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/change_feed.h"
#include "exporter/evaluate/evaluator.h"
#include "exporter/model/pd_facts.h"
#include "exporter/model/waiting.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/dependency_store.h"
#include "exporter/state/input_stores.h"

namespace podwait {

// The Pipeline is the InputStores the sources write (by reflector, sources/inputs.h, or from
// files); the PD prober hands it its probes (OnPdProbe) and the CA status reading (SetCaStatus).
// Thread-safety: the stores are thread-safe (each its own lock) and are written by the sources'
// threads; SetCaStatus(), OnPdProbe() and the readers (Snapshot() and the rest) may be called from
// any thread; Evaluate() from one thread only (the evaluation loop, or explain's main).
class Pipeline : public InputStores {
 public:
  // `config` and `clock` must outlive the pipeline.
  Pipeline(const Config& config, const Clock& clock);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The state derived from the inputs, for explain and the tests to read.
  const ClusterRegistry& registry() const { return registry_; }
  DependencyStore& dependencies() { return dependencies_; }
  const DependencyStore& dependencies() const { return dependencies_; }

  // The cluster-autoscaler status ConfigMap as last read (sources/ca_status_source.h).
  void SetCaStatus(CaStatusReading reading);
  // One PD probe of `cluster` (pd/prober.h), into its dependency state.
  void OnPdProbe(const ClusterKey& cluster, PdFacts facts);

  // What the PD prober probes: the clusters of this shard, and the PD URLs v2 Clusters give.
  std::vector<ClusterKey> Clusters() const { return registry_.Clusters(); }
  std::map<ClusterKey, std::string> PdUrls() const { return v2_.PdUrls(); }
  // The clusters whose PD is not their own (their TidbCluster's spec): where the prober asks, if
  // anywhere (app/options.h PdTargetsFor).
  std::map<ClusterKey, PdSource> PdSources() const { return dependencies_.PdSources(); }
  // What the views and the dependency metrics show: every cluster's dependency state.
  std::map<ClusterKey, ClusterDependencies> Dependencies() const {
    return dependencies_.Snapshot();
  }
  std::map<ClusterKey, ClusterDependencyView> DependencyViews() const {
    return dependencies_.Views();
  }
  // Pods held (the status log's summary).
  size_t PodCount() const { return pods_.Size(); }

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

  ClusterRegistry registry_;
  DependencyStore dependencies_;
  Evaluator evaluator_;
  ChangeFeed feed_;               // Evaluate()'s thread only
  uint64_t volumes_version_ = 0;  // Evaluate()'s thread only
  const bool volumes_watched_;

  mutable std::mutex ca_mu_;
  CaStatusReading ca_status_;
};

}  // namespace podwait
