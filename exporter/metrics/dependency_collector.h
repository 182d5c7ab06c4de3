#pragma once

#include <functional>
#include <map>
#include <string>

#include "exporter/metrics/metric_writer.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/model/pd_facts.h"
#include "exporter/state/dependency_store.h"

namespace podwait {

// Renders the dependency part of the metric contract (docs/DESIGN.md §5) from the DependencyStore
// at scrape time:
//   podwait_dependency_ready{namespace,tidb_cluster,dependency}  1/0; absent while unknown
//   podwait_dependency_ready_since_timestamp_seconds{...}        only while ready
//   podwait_pd_probe_success{namespace,tidb_cluster}             once the cluster was probed
//   podwait_pd_members{namespace,tidb_cluster,health}            from /health (or the TidbCluster)
//   podwait_pd_leader{namespace,tidb_cluster}
//   podwait_cluster_initialized{namespace,tidb_cluster}          PD is_initialized, when reported
//   podwait_tikv_stores{namespace,tidb_cluster,state}            by state_name, TiFlash excluded
//   podwait_failover_members{namespace,tidb_cluster,component}   from the TidbCluster status
// PD facts come from the source that decided readiness (PD API, else TidbCluster status); a
// cluster whose PD cannot be reached has none. tidb_cluster is "<namespace>-<name>". Thread-safe.
// Written with TextWriter, like the waiting families: at 1,000 clusters these are ~14,000 series,
// which prometheus-cpp's label vectors and stream serializer took ~40 ms to render.
class DependencyCollector final : public MetricWriter {
 public:
  // Each scrape reads `views` (the Pipeline's dependency views).
  using ViewsFn = std::function<std::map<ClusterKey, ClusterDependencyView>()>;
  explicit DependencyCollector(ViewsFn views);
  // `store` must outlive the collector.
  explicit DependencyCollector(const DependencyStore& store);
  // Appends the families in the text exposition format.
  void AppendText(std::string* out) const override;

 private:
  const ViewsFn views_;
};

}  // namespace podwait
