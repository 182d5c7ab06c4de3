#include "exporter/sources/inputs.h"

#include <string>
#include <utility>

#include "exporter/sources/dmcluster.h"
#include "exporter/sources/events.h"
#include "exporter/sources/nodeclaims.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/provisioning_requests.h"
#include "exporter/sources/reflector_options.h"
#include "exporter/sources/tidbcluster_source.h"
#include "exporter/sources/v2_source.h"
#include "exporter/sources/volumes.h"

namespace podwait {
namespace {

constexpr std::string_view kTidbClusterApi = "/apis/pingcap.com/v1alpha1";

template <typename Handler, typename... Args>
ReflectorHandler& Keep(InputContext& ctx, Args&&... args) {
  ctx.handlers.push_back(std::make_unique<Handler>(std::forward<Args>(args)...));
  return *ctx.handlers.back();
}

bool Always(const InputContext&) { return true; }

ReflectorHandler& PodHandler(InputContext& ctx, const ReflectorOptions& o) {
  PodParseOptions options = PodParseOptions::FromConfig(ctx.config);
  options.source = PodSourceTag(o);
  return Keep<PodSource>(ctx, ctx.stores.pods(), options, ReflectorNamespace(o));
}

ReflectorHandler& EventHandler(InputContext& ctx, const ReflectorOptions& o) {
  return Keep<EventSource>(ctx, ctx.stores.events(), &ctx.stores.pods(), ctx.clock,
                           ReflectorNamespace(o));
}

bool TidbClustersEnabled(const InputContext& ctx) { return ctx.config.tidbcluster_enabled; }

std::vector<ReflectorOptions> TidbClusterReflectors(const Config& config) {
  return ReflectorOptionsPerNamespace(config, "tidbclusters", kTidbClusterApi);
}

// The handler of a v1 object kept whole by namespace/name, writing `store`.
template <typename Source, typename T>
ReflectorHandler& ClusterObjectHandler(InputContext& ctx, const ReflectorOptions& o,
                                       ClusterObjectStore<T>& store) {
  ClusterObjectCallbacks<T> callbacks;
  callbacks.replace = [&store, scope = ReflectorNamespace(o)](const std::vector<T>& listed) {
    store.Replace(scope, listed);
  };
  callbacks.upsert = [&store](const T& object) { store.Upsert(object); };
  callbacks.remove = [&store](const ClusterKey& key) { store.Remove(key); };
  return Keep<Source>(ctx, std::move(callbacks));
}

ReflectorHandler& TidbClusterHandler(InputContext& ctx, const ReflectorOptions& o) {
  return ClusterObjectHandler<TidbClusterSource>(ctx, o, ctx.stores.tidbclusters());
}

// v1 DMClusters (pingcap.com/v1alpha1 dmclusters), with the TidbClusters: the dm-master state a
// v1 dm-worker waits for. A 404 (no DMCluster CRD) disables it (the start's line says so).
std::vector<ReflectorOptions> DmClusterReflectors(const Config& config) {
  return ReflectorOptionsPerNamespace(config, "dmclusters", kTidbClusterApi);
}

ReflectorHandler& DmClusterHandler(InputContext& ctx, const ReflectorOptions& o) {
  return ClusterObjectHandler<DmClusterSource>(ctx, o, ctx.stores.dmclusters());
}

bool V2Enabled(const InputContext& ctx) { return ctx.config.v2_enabled; }

// One reflector per v2 resource (and watched namespace); a resource whose CRD is not installed
// answers 404 and is skipped (one log line, /readyz not held).
std::vector<ReflectorOptions> V2Reflectors(const Config& config) {
  std::vector<ReflectorOptions> all;
  for (const V2Resource& r : V2Resources()) {
    for (ReflectorOptions& o :
         ReflectorOptionsPerNamespace(config, r.plural, "/apis/" + std::string(v2::kApiVersion))) {
      all.push_back(std::move(o));
    }
  }
  return all;
}

ReflectorHandler& V2Handler(InputContext& ctx, const ReflectorOptions& o) {
  V2Resource resource;
  for (const V2Resource& r : V2Resources()) {
    if (r.plural == o.resource) resource = r;
  }
  return Keep<V2Source>(ctx, ctx.stores.v2(), std::move(resource), ReflectorNamespace(o));
}

// The CA status is read unless no autoscaler or only Karpenter is configured.
bool CaStatusEnabled(const InputContext& ctx) {
  const AutoscalerMode mode = AutoscalerModeOf(ctx.config);
  return ctx.config.ca_status_enabled && mode.MayUse(AutoscalerKind::kClusterAutoscaler);
}

std::vector<ReflectorOptions> CaStatusReflectors(const Config& config) {
  return {ConfigMapReflectorOptions(config)};
}

ReflectorHandler& CaStatusHandler(InputContext& ctx, const ReflectorOptions&) {
  ctx.ca_status =
      std::make_unique<CaStatusSource>(ctx.config.ca_status_name, ctx.on_ca_status_error);
  return ctx.ca_status->handler();
}

bool VolumesEnabled(const InputContext& ctx) { return ctx.config.volumes_enabled; }

ReflectorHandler& ClaimHandler(InputContext& ctx, const ReflectorOptions& o) {
  return Keep<ClaimSource>(ctx, ctx.stores.volumes(), ReflectorNamespace(o));
}

ReflectorHandler& VolumeHandler(InputContext& ctx, const ReflectorOptions&) {
  return Keep<VolumeSource>(ctx, ctx.stores.volumes());
}

// Karpenter's NodeClaims are cluster-scoped: read unless the autoscaler mode rules Karpenter out,
// and only when every namespace is watched (--namespaces empty: the modes with a ClusterRole).
bool NodeClaimsEnabled(const InputContext& ctx) {
  return AutoscalerModeOf(ctx.config).MayUse(AutoscalerKind::kKarpenter) &&
         ctx.config.namespaces.empty();
}

std::vector<ReflectorOptions> NodeClaimReflectors(const Config& config) {
  return {NodeClaimReflectorOptions(config)};
}

ReflectorHandler& NodeClaimHandler(InputContext& ctx, const ReflectorOptions&) {
  return Keep<NodeClaimSource>(ctx, ctx.stores.nodeclaims());
}

std::vector<ReflectorOptions> NodeClaimEventReflectors(const Config& config) {
  return {NodeClaimEventReflectorOptions(config)};
}

ReflectorHandler& NodeClaimEventHandler(InputContext& ctx, const ReflectorOptions&) {
  return Keep<NodeClaimEventSource>(ctx, ctx.stores.nodeclaims(), ctx.clock);
}

// ProvisioningRequests are cluster-autoscaler's: read unless the autoscaler mode rules it out.
// Namespaced, so they follow --namespaces like the pods.
bool ProvisioningRequestsEnabled(const InputContext& ctx) {
  return AutoscalerModeOf(ctx.config).MayUse(AutoscalerKind::kClusterAutoscaler);
}

ReflectorHandler& ProvisioningRequestHandler(InputContext& ctx, const ReflectorOptions& o) {
  return Keep<ProvisioningRequestSource>(ctx, ctx.stores.provisioning_requests(),
                                         ReflectorNamespace(o));
}

constexpr InputSource kInputs[] = {
    {"pods", "/api/v1", Always, PodReflectorOptions, PodHandler},
    {"events", "/api/v1", Always, EventReflectorOptions, EventHandler},
    {"tidbclusters", kTidbClusterApi, TidbClustersEnabled, TidbClusterReflectors,
     TidbClusterHandler, "tidbclusters"},
    {"<v2 resources>", "/apis/core.pingcap.com/v1alpha1", V2Enabled, V2Reflectors, V2Handler, "v2"},
    {"configmaps", "/api/v1", CaStatusEnabled, CaStatusReflectors, CaStatusHandler, "ca_status"},
    {"persistentvolumeclaims", "/api/v1", VolumesEnabled, ClaimReflectorOptions, ClaimHandler,
     "volumes"},
    {"persistentvolumes", "/api/v1", VolumesEnabled, VolumeReflectorOptions, VolumeHandler,
     "volumes"},
    {"nodeclaims", kNodeClaimApi, NodeClaimsEnabled, NodeClaimReflectors, NodeClaimHandler,
     "nodeclaims"},
    {"events", "/api/v1", NodeClaimsEnabled, NodeClaimEventReflectors, NodeClaimEventHandler},
    {"provisioningrequests", kProvisioningRequestApi, ProvisioningRequestsEnabled,
     ProvisioningRequestReflectorOptions, ProvisioningRequestHandler, "provisioningrequests"},
    {"dmclusters", kTidbClusterApi, TidbClustersEnabled, DmClusterReflectors, DmClusterHandler,
     "dmclusters"},
};

}  // namespace

std::span<const InputSource> InputSources() { return kInputs; }

AutoscalerMode AutoscalerModeOf(const Config& config) {
  return ParseAutoscalerMode(config.autoscaler).value_or(AutoscalerMode::kAuto);
}

}  // namespace podwait
