#pragma once

// The fixed, low-cardinality vocabulary of the `reason` label (DESIGN §4). Every reason the
// classifier emits is one of these constants; nothing else (no free text) ever reaches a label.
// README.md in this folder lists, for each reason, the class it goes with and the evidence.

#include <span>
#include <string_view>

namespace podwait::reason {

// --- unscheduled: resources short (class capacity, or scale_up/scheduling while an autoscaler
// acts)
inline constexpr std::string_view kInsufficientCpu = "insufficient_cpu";
inline constexpr std::string_view kInsufficientMemory = "insufficient_memory";
// Any other resource: ephemeral-storage, GPUs, hugepages, volume slots, DRA devices.
inline constexpr std::string_view kInsufficientResources = "insufficient_resources";
inline constexpr std::string_view kTooManyPods = "too_many_pods";
inline constexpr std::string_view kHostPortConflict = "host_port_conflict";
// Every node that could fit is going away or unusable (being deleted by the autoscaler,
// not-ready, unreachable, cordoned, control-plane only): a fresh node would fit.
inline constexpr std::string_view kNodesUnavailable = "nodes_unavailable";
inline constexpr std::string_view kNoNodes = "no_nodes";
// --- unscheduled: an autoscaler cannot add capacity (class capacity)
inline constexpr std::string_view kMaxNodeGroupSize = "max_node_group_size";
inline constexpr std::string_view kMaxClusterSize = "max_cluster_size";
inline constexpr std::string_view kNodepoolLimit = "nodepool_limit";  // Karpenter spec.limits
inline constexpr std::string_view kScaleUpBackoff = "scale_up_backoff";
inline constexpr std::string_view kScaleUpTimeout = "scale_up_timeout";
// --- unscheduled: more nodes cannot fix it (class constraints)
inline constexpr std::string_view kNodeAffinity = "node_affinity";
inline constexpr std::string_view kUntoleratedTaint = "untolerated_taint";
inline constexpr std::string_view kPodAffinity = "pod_affinity";
inline constexpr std::string_view kPodAntiAffinity = "pod_anti_affinity";
inline constexpr std::string_view kTopologySpread = "topology_spread";
inline constexpr std::string_view kUnboundPvc = "unbound_pvc";
inline constexpr std::string_view kVolumeNodeAffinity = "volume_node_affinity";
inline constexpr std::string_view kUnschedulableOther = "unschedulable_other";
// --- unscheduled: an autoscaler is adding capacity (class scale_up)
inline constexpr std::string_view kScaleUpInProgress = "scale_up_in_progress";
inline constexpr std::string_view kKarpenterNominated = "karpenter_nominated";
// --- unscheduled: nobody has decided yet (class scheduling)
inline constexpr std::string_view kAwaitingDecision = "awaiting_decision";
inline constexpr std::string_view kNoSchedulerDecision = "no_scheduler_decision";
// --- class gated
inline constexpr std::string_view kSchedulingGated = "scheduling_gated";
// --- containers that cannot run (classes image, crashloop, config)
inline constexpr std::string_view kImagePull = "image_pull";
inline constexpr std::string_view kInvalidImage = "invalid_image";
inline constexpr std::string_view kCrashLoop = "crash_loop";
inline constexpr std::string_view kContainerConfig = "container_config";
// --- dependencies (classes dependency, dependency_stuck; dependency_unknown with
// starting/not_ready)
inline constexpr std::string_view kPdNotReady = "pd_not_ready";
inline constexpr std::string_view kNoPdLeader = "no_pd_leader";
inline constexpr std::string_view kClusterNotInitialized = "cluster_not_initialized";
inline constexpr std::string_view kTikvNotReady = "tikv_not_ready";
inline constexpr std::string_view kNoTikvStoreUp = "no_tikv_store_up";
inline constexpr std::string_view kDependencyReady = "dependency_ready";
inline constexpr std::string_view kDependencyUnknown = "dependency_unknown";
// --- normal start-up and readiness (classes starting, not_ready)
inline constexpr std::string_view kPodInitializing = "pod_initializing";
inline constexpr std::string_view kContainerCreating = "container_creating";
inline constexpr std::string_view kContainerWaiting = "container_waiting";
inline constexpr std::string_view kInitRunning = "init_running";
inline constexpr std::string_view kReadinessProbe = "readiness_probe";
// The pod is Ready but its tidb-operator v2 instance is not (Ready=False): a v2 TiKV without a
// readiness probe whose store does not serve yet.
inline constexpr std::string_view kInstanceNotReady = "instance_not_ready";

// Every reason above, in the order above.
std::span<const std::string_view> All();
bool IsKnown(std::string_view reason);

}  // namespace podwait::reason
