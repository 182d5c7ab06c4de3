#pragma once

#include <prometheus/collectable.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exporter/app/observers.h"
#include "exporter/app/status_log.h"
#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/common/clock.h"
#include "exporter/common/sync_status.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/evaluator.h"
#include "exporter/http/server.h"
#include "exporter/http/views.h"
#include "exporter/kube/reflector.h"
#include "exporter/kube/token_source.h"
#include "exporter/metrics/dependency_collector.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/metrics/waiting_collector.h"
#include "exporter/pd/prober.h"
#include "exporter/sources/configmap.h"
#include "exporter/sources/events.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/tidbcluster_source.h"
#include "exporter/sources/v2_source.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/dependency_store.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/tidbcluster_store.h"
#include "exporter/state/v2_store.h"

namespace podwait {

// Wires the exporter together (docs/DESIGN.md, "Architecture"): sources (reflectors for pods,
// events, TidbClusters, tidb-operator v2 objects and the cluster-autoscaler status; the PD
// prober) -> state (stores,
// dependency state) -> the evaluation loop (the Evaluator, once a second) -> metrics and views,
// served by one HTTP server. Start() returns once everything runs; Stop() stops serving and joins
// every thread within about a second.
class App {
 public:
  App(Config config, const Clock& clock);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Returns false with *error set when the exporter cannot start (no Kubernetes API configured,
  // the port is taken).
  bool Start(std::string* error);
  void Stop();
  int port() const { return server_.port(); }

  // One evaluation now (the loop calls it every second). Exposed for tests.
  void EvaluateOnce();

 private:
  void InstallHandlers();
  // Callbacks of the TidbCluster reflector of one namespace ("" = all namespaces).
  TidbClusterCallbacks TidbClusterCallbacksFor(const std::string& scope);
  void EvaluationLoop();
  // The CA status ConfigMap's status, parsed again only when the ConfigMap changed.
  const CaStatus* CurrentCaStatus();
  ViewModel MakeViewModel() const;

  Config config_;
  const Clock& clock_;
  const Environment env_;  // the clock above, curl, getenv, posix_spawn
  SelfMetrics self_metrics_;
  SyncStatus sync_;

  // State.
  EventStore events_;
  PodStore pods_;
  TidbClusterStore tidbclusters_;
  V2Store v2_;
  ClusterRegistry registry_;
  DependencyStore dependencies_;
  Evaluator evaluator_;
  ChangeFeed changes_;    // evaluation thread only
  StatusLog status_log_;  // evaluation thread only

  // Sources.
  std::unique_ptr<TokenSource> tokens_;
  KubeContext kube_;
  std::vector<std::unique_ptr<PodSource>> pod_sources_;
  std::vector<std::unique_ptr<EventSource>> event_sources_;
  std::vector<std::unique_ptr<TidbClusterSource>> tidbcluster_sources_;
  std::vector<std::unique_ptr<V2Source>> v2_sources_;
  std::unique_ptr<ConfigMapSource> ca_status_source_;
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  std::unique_ptr<SelfMetricsProbeObserver> probe_observer_;
  std::unique_ptr<PdProber> prober_;

  // The CA status kept across evaluations (evaluation thread only).
  bool ca_status_present_ = false;
  uint64_t ca_status_version_ = 0;
  std::optional<CaStatus> ca_status_;

  std::vector<std::shared_ptr<const prometheus::Collectable>> collectables_;
  std::unique_ptr<WaitingCollector> waiting_collector_;        // writes its text directly
  std::unique_ptr<DependencyCollector> dependency_collector_;  // so does this one
  std::atomic<size_t> last_scrape_bytes_{0};
  HttpServer server_;

  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool stop_loop_ = false;
  std::thread loop_;
  bool started_ = false;
};

}  // namespace podwait
