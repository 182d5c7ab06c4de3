#pragma once

#include <prometheus/collectable.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exporter/app/class_events.h"
#include "exporter/app/observers.h"
#include "exporter/app/optional_inputs.h"
#include "exporter/app/pd_access.h"
#include "exporter/app/status_log.h"
#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/common/sync_status.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/http/server.h"
#include "exporter/http/views.h"
#include "exporter/kube/reflector.h"
#include "exporter/kube/token_source.h"
#include "exporter/metrics/dependency_collector.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/metrics/waiting_collector.h"
#include "exporter/pd/prober.h"
#include "exporter/sources/ca_status_source.h"

namespace podwait {

// The exporter (docs/DESIGN.md §7): reflectors (one per row of InputSources() and watched
// namespace) and the PD prober write the Pipeline's stores; the evaluation loop evaluates it once
// a second; one HTTP server serves its metrics and views. Start() returns once everything runs;
// Stop() stops serving and joins every thread within about a second.
class App {
 public:
  App(Config config, const Clock& clock);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // An error when the exporter cannot start (no Kubernetes API configured, the port is taken).
  Result<bool> Start();
  void Stop();
  int port() const { return server_.port(); }

 private:
  // One evaluation now (the loop calls it every second).
  void EvaluateOnce();
  void InstallHandlers();
  // One reflector per row of InputSources() and its reflector options.
  void BuildReflectors();
  // The Event writer of --events.write.
  void BuildEventWriter();
  void EvaluationLoop();
  // The PD prober of the flags, through the API server when --pd.via says so.
  void BuildProber();
  ViewModel MakeViewModel() const;

  Config config_;
  const Clock& clock_;
  const Environment env_;  // the clock above, curl, getenv, posix_spawn
  SelfMetrics self_metrics_;
  SyncStatus sync_;
  WatchFreshness freshness_;  // when the watches last brought data (the status page)
  Timestamp started_at_ = 0;
  int64_t started_ms_ = 0;        // monotonic
  bool first_evaluated_ = false;  // evaluation thread only
  bool inputs_read_ = false;      // evaluation thread only: listed, every PD probed once

  Pipeline pipeline_;
  StatusLog status_log_;  // evaluation thread only

  // Sources.
  std::unique_ptr<TokenSource> tokens_;
  KubeContext kube_;
  std::vector<std::unique_ptr<ReflectorHandler>> handlers_;
  std::unique_ptr<CaStatusSource> ca_status_;  // when read (evaluation thread only)
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  OptionalInputs optional_inputs_;  // of reflectors_; Observe() on the evaluation thread
  std::unique_ptr<SelfMetricsProbeObserver> probe_observer_;
  std::unique_ptr<KubePdRoute> pd_route_;  // PD through the API server (--pd.via), or null
  std::unique_ptr<PdProber> prober_;
  PdSignalSource pd_signals_;  // evaluation thread only
  // --events.write: an Event on a pod per class change (null without the flag).
  std::unique_ptr<SelfMetricsEventObserver> event_observer_;
  std::unique_ptr<EventWriter> event_writer_;
  std::unique_ptr<ClassEvents> class_events_;  // evaluation thread only

  // What /metrics serves, in order: self and process metrics, dependencies, waiting pods, and
  // the invalid UTF-8 count of them all.
  std::vector<std::unique_ptr<MetricWriter>> metric_writers_;
  std::atomic<size_t> last_scrape_bytes_{0};
  HttpServer server_;

  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool stop_loop_ = false;
  bool evaluate_now_ = false;  // a PD answer a pod waits for came: evaluate before the tick
  std::thread loop_;
  bool started_ = false;
};

}  // namespace podwait
