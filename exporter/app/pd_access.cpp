#include "exporter/app/pd_access.h"

#include <string_view>

#include "exporter/common/shard.h"

namespace podwait {
namespace {

constexpr std::string_view kProxyResource = "pd (services/proxy)";

// What of a cluster's view, other than PD's own answer, may tell that PD changed.
uint64_t StatusStamp(const ClusterDependencyView& v) {
  std::string s = std::to_string(v.ready_pd_pods) + "|" + PdSourceText(v.pd_source);
  s += v.has_tidbcluster ? "|tc " : "|- ";
  s += std::to_string(v.tc_pd_members_healthy) + " " + std::to_string(v.tc_pd_members_unhealthy) +
       (v.tc_pd_has_leader ? " leader" : " -");
  for (const auto& [state, n] : v.tc_tikv_stores) s += " " + state + "=" + std::to_string(n);
  if (v.v2) {
    const v2::ClusterFacts& f = *v.v2;
    s += "|v2 " + f.pd_url + " " + std::to_string(f.pd_instances) + " " +
         std::to_string(f.pd_instances_ready) + " " + std::to_string(f.tikv_instances) + " " +
         std::to_string(f.tikv_serving_ready);
    for (const auto& [state, n] : f.tikv_store_states) s += " " + state + "=" + std::to_string(n);
  }
  return Fnv1a64(s);
}

}  // namespace

bool KubePdRoute::TryTake(int64_t now_ms) { return !kube_.budget || kube_.budget->TryTake(now_ms); }

void KubePdRoute::Authorize(HttpRequest* request) {
  request->tls = kube_.endpoint.tls;
  if (kube_.tokens == nullptr) return;
  const std::string token = kube_.tokens->Token();
  if (!token.empty()) request->headers.emplace_back("Authorization", "Bearer " + token);
}

void KubePdRoute::OnAnswer(const HttpResponse& response) {
  if (response.status == 401 && kube_.tokens != nullptr) kube_.tokens->Invalidate();
  if (!kube_.server_log || response.cancelled) return;
  const int64_t now = kube_.env.clock->MonotonicMs();
  if (response.status != 0) {
    kube_.server_log->OnAnswer(std::string(kProxyResource), kube_.endpoint.api_url, now);
  } else if (!response.error.empty()) {
    kube_.server_log->OnTransportError(std::string(kProxyResource), kube_.endpoint.api_url,
                                       response.error, now);
  }
}

bool PdViaApiServer(PdVia via, const KubeEndpoint& endpoint) {
  switch (via) {
    case PdVia::kDirect:
      return false;
    case PdVia::kApiServer:
      return true;
    case PdVia::kAuto:
      return !endpoint.in_cluster();
  }
  return false;
}

std::vector<PdTarget> ThroughApiServer(std::vector<PdTarget> targets, const std::string& api_url,
                                       PdApiServerRoute* route) {
  for (PdTarget& t : targets) {
    std::optional<PdServiceAddress> service = PdServiceOf(t.base_url);
    if (!service) continue;
    t.base_url = ServiceProxyBaseUrl(api_url, *service);
    t.tls = TlsOptions{};
    t.via = route;
  }
  return targets;
}

std::set<ClusterKey> PdWaitingClusters(const WaitingSnapshot& snapshot) {
  std::set<ClusterKey> waiting;
  const WaitingPod* last = nullptr;  // pods are sorted by namespace and cluster
  for (const WaitingPod& pod : snapshot.pods) {
    // A TidbMonitor's or a DMCluster's pod is no TiDB cluster's: its PD is never asked.
    if (pod.classification.stage == Stage::kUnscheduled || pod.cluster.empty() ||
        pod.owner != PodOwner::kTidbCluster) {
      continue;
    }
    if (last != nullptr && last->namespace_ == pod.namespace_ && last->cluster == pod.cluster) {
      continue;
    }
    last = &pod;
    waiting.insert(waiting.end(), ClusterKey{pod.namespace_, pod.cluster});
  }
  return waiting;
}

std::map<ClusterKey, uint64_t> PdStatusStamps(
    const std::map<ClusterKey, ClusterDependencyView>& views) {
  std::map<ClusterKey, uint64_t> stamps;
  for (const auto& [key, view] : views) {
    // A cluster whose PD is elsewhere with no address to ask has nothing to probe.
    if (view.deps.tidb_cluster && view.pd_source.Probed())
      stamps.emplace_hint(stamps.end(), key, StatusStamp(view));
  }
  return stamps;
}

std::optional<std::map<ClusterKey, PdClusterSignal>> PdSignalSource::Next(
    const std::shared_ptr<const WaitingSnapshot>& snapshot, const std::function<Views()>& views) {
  bool changed = false;
  if (snapshot != nullptr && snapshot != snapshot_) {
    snapshot_ = snapshot;
    waiting_ = PdWaitingClusters(*snapshot);
    changed = true;
  }
  if (calls_++ % kStampEvery == 0) {
    const std::map<ClusterKey, ClusterDependencyView> all = views();
    stamps_ = PdStatusStamps(all);
    unprobed_.clear();
    for (const auto& [key, view] : all) {
      if (!view.deps.tidb_cluster || !view.pd_source.Probed())
        unprobed_.insert(unprobed_.end(), key);
    }
    changed = true;
  }
  if (!changed) return std::nullopt;
  std::map<ClusterKey, PdClusterSignal> signals;
  for (const auto& [key, stamp] : stamps_)
    signals.emplace_hint(signals.end(), key, PdClusterSignal{false, stamp});
  // A signal naming a cluster the prober has no target for would make it list again.
  for (const ClusterKey& key : waiting_) {
    if (unprobed_.count(key) == 0) signals[key].waiting = true;
  }
  return signals;
}

}  // namespace podwait
