#pragma once

// How the exporter and `kubectl podwait` reach PD and tell the prober what matters
// (docs/DESIGN.md §3, "PD HTTP API"):
// - the route through the Kubernetes API server's service proxy (--pd.via): the kube client's
//   request budget and credentials behind pd/'s PdApiServerRoute;
// - the signals of the evaluation side (PdProber::Signal): which clusters have a pod waiting in
//   a stage PD's answer may decide, and a stamp of what else tells of PD (PdSignalSource).

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/waiting.h"
#include "exporter/pd/prober.h"
#include "exporter/state/dependency_store.h"

namespace podwait {

// PD requests through the API server of `kube`: its request budget (a token only when one is at
// hand), its TLS and bearer token, its log of transport failures. `kube` outlives the route.
class KubePdRoute final : public PdApiServerRoute {
 public:
  explicit KubePdRoute(const KubeContext& kube) : kube_(kube) {}
  bool TryTake(int64_t now_ms) override;
  void Authorize(HttpRequest* request) override;
  void OnAnswer(const HttpResponse& response) override;

 private:
  const KubeContext& kube_;
};

// Whether PD goes through the API server for the endpoint: --pd.via=apiserver, or auto with an
// API server from a kubeconfig or --kube.api-url (outside the cluster Service names do not
// resolve); never with --pd.via=direct.
bool PdViaApiServer(PdVia via, const KubeEndpoint& endpoint);

// The targets of PdTargetsFor (app/options.h), each whose PD address is a cluster Service
// (PdServiceOf) turned into that Service through the API server at `api_url` with `route`.
// Other addresses (an IP, a name outside the cluster) stay direct.
std::vector<PdTarget> ThroughApiServer(std::vector<PdTarget> targets, const std::string& api_url,
                                       PdApiServerRoute* route);

// The clusters with a pod waiting in a stage PD's answer may decide (scheduled: in its init
// containers or started and not ready; an unscheduled pod waits for a node, whatever PD says).
std::set<ClusterKey> PdWaitingClusters(const WaitingSnapshot& snapshot);
// Per cluster, a stamp of its TidbCluster status, v2 facts and Ready PD pods (not PD's own
// answer: a probe's result must not bring another probe); none for a cluster the prober has no
// target for (PdSource::Probed).
std::map<ClusterKey, uint64_t> PdStatusStamps(
    const std::map<ClusterKey, ClusterDependencyView>& views);

// The prober's signals after each evaluation (evaluation thread only), computed only when they
// may have changed: the waiting clusters when a new snapshot was published (a pod that starts
// waiting is told at the evaluation that sees it), the stamps every kStampEvery calls (copying
// every cluster's view each second was a third of the exporter's CPU at rest).
class PdSignalSource {
 public:
  static constexpr int kStampEvery = 5;
  using Views = std::map<ClusterKey, ClusterDependencyView>;
  // nullopt: nothing new to tell. `views` (the Pipeline's DependencyViews) is called only when
  // the stamps are due.
  std::optional<std::map<ClusterKey, PdClusterSignal>> Next(
      const std::shared_ptr<const WaitingSnapshot>& snapshot, const std::function<Views()>& views);

 private:
  std::shared_ptr<const WaitingSnapshot> snapshot_;
  std::set<ClusterKey> waiting_;
  std::map<ClusterKey, uint64_t> stamps_;
  std::set<ClusterKey> unprobed_;  // PD elsewhere with no address to ask (PdSource::Probed)
  int calls_ = 0;
};

}  // namespace podwait
