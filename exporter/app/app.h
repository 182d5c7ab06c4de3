#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/sync_status.h"
#include "exporter/config/config.h"
#include "exporter/http/server.h"
#include "exporter/metrics/self_metrics.h"

namespace podwait {

// Wires the exporter together: sources -> state -> classifier -> metrics, and the HTTP server.
// Start() returns once everything runs; Stop() stops serving and joins every thread.
class App {
 public:
  App(Config config, const Clock& clock);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Returns false with *error set when the exporter cannot start (e.g. the port is taken).
  bool Start(std::string* error);
  void Stop();
  int port() const { return server_.port(); }

 private:
  void InstallHandlers();

  Config config_;
  const Clock& clock_;
  SelfMetrics self_metrics_;
  SyncStatus sync_;
  std::vector<std::shared_ptr<const prometheus::Collectable>> collectables_;
  HttpServer server_;
  bool started_ = false;
};

}  // namespace podwait
