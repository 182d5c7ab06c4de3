#pragma once

// `kubectl podwait` (explain --live): a read of the cluster into a Pipeline, the exporter's way.
// First the token (an exec plugin runs once, within the deadline) and one request that the API
// server answers (GET /version), so that a server that refuses, does not resolve or hangs, a
// plugin that hangs and refused credentials end the read at once with what went wrong. Then the
// reflectors of InputSources() (the exporter's client, resources, selectors and RBAC) list once,
// and the exporter's PD prober probes every cluster once (through the API server's service proxy
// where --pd.via says so). With keep_watching (-w) both go on until the LiveCluster is destroyed.
// The caller evaluates.

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/net/environment.h"

namespace podwait {

struct LiveReadOptions {
  // Read the kubeconfig context's namespace ("default" without one, as kubectl): *config's
  // namespaces are set to it.
  bool context_namespace = false;
  // Non-empty: the pods it selects are listed as well (asked of the API server), by (namespace,
  // name).
  std::string label_selector;
  // The first read as a whole: token, lists and the PD probe (each request to the API server is
  // bounded by config.kube_request_timeout too).
  Timestamp timeout = 30 * kSecond;
  bool keep_watching = false;  // the watches and the PD prober run on
};

// The cluster as read. The reflectors keep the pipeline's stores current (and with keep_watching
// the prober probes PD on the exporter's cadences, told by Refresh) until destruction, which stops
// them, a running exec plugin too, within about a second.
class LiveCluster {
 public:
  struct State;
  explicit LiveCluster(std::unique_ptr<State> state);
  ~LiveCluster();
  LiveCluster(const LiveCluster&) = delete;
  LiveCluster& operator=(const LiveCluster&) = delete;

  // The pods the label selector selects now; nullopt without one.
  std::optional<std::set<std::pair<std::string, std::string>>> Selected() const;
  // Hands what is read by polling (the cluster-autoscaler status) to the pipeline and tells the
  // prober what the last evaluation saw (the waiting clusters, PdSignalSource); call it before
  // each evaluation.
  void Refresh(Pipeline& pipeline) const;

 private:
  std::unique_ptr<State> state_;
};

// Reads the cluster of *config's Kubernetes flags into `pipeline`. Fails, naming what, when the
// API server cannot be reached or does not answer (within --request-timeout, else timeout), the
// credentials are refused or cannot be had, or a resource is not listed within `timeout` (RBAC, a
// server error). `pipeline` and *config must outlive the result.
Result<std::unique_ptr<LiveCluster>> ReadCluster(Config* config, const LiveReadOptions& options,
                                                 Pipeline& pipeline, const Environment& env = {});

}  // namespace podwait
