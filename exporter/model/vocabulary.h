#pragma once

// podwait's vocabulary, as tables (docs/DESIGN.md, "Classification"): the stages, the classes
// (whether each is an expected wait, and in which stages it occurs), the reasons of the `reason`
// label (and the classes each goes with), the dependencies and their why-not reasons. Every
// name is written once, here; code, `podwait-exporter contract`, the dashboards and the docs
// checks read these tables. A new class is a row of kClasses plus its classifier rule and tests;
// a new reason is a row of PODWAIT_REASONS.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace podwait {

// ---------------------------------------------------------------------------------------------
// Stages and classes

enum class Stage : uint8_t { kUnscheduled, kInitializing, kStarting };

enum class WaitClass : uint8_t {
  kDependency,
  kDependencyStuck,
  kScaleUp,
  kCapacity,
  kConstraints,
  kGated,
  kImage,
  kCrashloop,
  kConfig,
  kScheduling,
  kStarting,
  kNotReady,
  kVolume,
  kPlanned,
  kPlannedStuck,
};

// A set of stages or classes, as a bit set of their enum values.
template <typename E>
class EnumSet {
 public:
  constexpr EnumSet() = default;
  template <typename... Es>
  constexpr explicit EnumSet(Es... es) : bits_((Bit(es) | ... | 0u)) {}
  constexpr bool Contains(E e) const { return (bits_ & Bit(e)) != 0; }
  constexpr bool Empty() const { return bits_ == 0; }
  constexpr void Insert(E e) { bits_ |= Bit(e); }
  constexpr bool operator==(const EnumSet&) const = default;

 private:
  static constexpr uint32_t Bit(E e) { return 1u << static_cast<uint32_t>(e); }
  uint32_t bits_ = 0;
};
using StageSet = EnumSet<Stage>;
using ClassSet = EnumSet<WaitClass>;

struct StageInfo {
  Stage stage;
  std::string_view name;
  std::string_view condition;    // when a pod is in it
  std::string_view stage_start;  // the timestamp its waiting time counts from
};
inline constexpr StageInfo kStages[] = {
    {Stage::kUnscheduled, "unscheduled", "PodScheduled not True", "creationTimestamp"},
    {Stage::kInitializing, "initializing", "scheduled, Initialized not True",
     "PodScheduled lastTransitionTime"},
    {Stage::kStarting, "starting", "initialized, containers not all ready",
     "the later of Initialized and Ready lastTransitionTime"},
};

struct ClassInfo {
  WaitClass wait_class;
  std::string_view name;
  bool expected;  // a wait "as designed": no page for it
  StageSet stages;
  std::string_view meaning;
};
inline constexpr ClassInfo kClasses[] = {
    {WaitClass::kDependency, "dependency", true, StageSet(Stage::kInitializing, Stage::kStarting),
     "waiting for a component it needs, which is not ready"},
    {WaitClass::kDependencyStuck, "dependency_stuck", false,
     StageSet(Stage::kInitializing, Stage::kStarting),
     "still waiting although its dependencies have been ready longer than the ready grace"},
    {WaitClass::kScaleUp, "scale_up", true, StageSet(Stage::kUnscheduled),
     "unschedulable, and an autoscaler is adding a node for it"},
    {WaitClass::kCapacity, "capacity", false, StageSet(Stage::kUnscheduled),
     "unschedulable for lack of resources, and nothing is adding capacity"},
    {WaitClass::kConstraints, "constraints", false, StageSet(Stage::kUnscheduled),
     "unschedulable for reasons more nodes cannot fix"},
    {WaitClass::kGated, "gated", true, StageSet(Stage::kUnscheduled), "scheduling gates"},
    {WaitClass::kImage, "image", false, StageSet(Stage::kInitializing, Stage::kStarting),
     "an image cannot be pulled"},
    {WaitClass::kCrashloop, "crashloop", false, StageSet(Stage::kInitializing, Stage::kStarting),
     "a container restarts in a loop"},
    {WaitClass::kConfig, "config", false, StageSet(Stage::kInitializing, Stage::kStarting),
     "a container cannot be created"},
    {WaitClass::kScheduling, "scheduling", true, StageSet(Stage::kUnscheduled),
     "the scheduler or autoscaler has not decided yet"},
    {WaitClass::kStarting, "starting", true, StageSet(Stage::kInitializing, Stage::kStarting),
     "normal start-up"},
    {WaitClass::kNotReady, "not_ready", false, StageSet(Stage::kStarting),
     "running, but readiness fails with its dependencies ready; or a tidb-operator v2 pod that "
     "Failed and that nothing recreates"},
    {WaitClass::kVolume, "volume", false, StageSet(Stage::kInitializing, Stage::kStarting),
     "a volume cannot be attached or mounted, or the pod sandbox cannot be created, past the "
     "volume grace"},
    {WaitClass::kPlanned, "planned", true,
     StageSet(Stage::kUnscheduled, Stage::kInitializing, Stage::kStarting),
     "tidb-operator holds it on purpose: cluster paused or suspended, a PD mode switch, leaders "
     "evicted before a restart, a store taken offline"},
    {WaitClass::kPlannedStuck, "planned_stuck", false,
     StageSet(Stage::kUnscheduled, Stage::kInitializing, Stage::kStarting),
     "a PD mode switch, leader eviction or store offline still under way past its grace"},
};
inline constexpr int kStageCount = static_cast<int>(std::size(kStages));
inline constexpr int kWaitClassCount = static_cast<int>(std::size(kClasses));

constexpr const StageInfo& Info(Stage s) { return kStages[static_cast<size_t>(s)]; }
constexpr const ClassInfo& Info(WaitClass c) { return kClasses[static_cast<size_t>(c)]; }
constexpr std::string_view StageName(Stage s) { return Info(s).name; }
constexpr std::string_view WaitClassName(WaitClass c) { return Info(c).name; }
// Whether a class is an expected wait ("as designed").
constexpr bool IsExpected(WaitClass c) { return Info(c).expected; }
std::optional<Stage> ParseStage(std::string_view name);

// --events.write (docs/DESIGN.md §8, "Events"): the reporting controller of podwait's Events,
// each class's Event reason, "Podwait" and the class in CamelCase (scale_up -> PodwaitScaleUp),
// and its type, Normal for an expected wait and Warning for a problem.
inline constexpr std::string_view kEventReportingController = "podwait.pingcap.com/exporter";
std::string EventReason(WaitClass c);
constexpr std::string_view EventType(WaitClass c) { return IsExpected(c) ? "Normal" : "Warning"; }
std::optional<WaitClass> ParseWaitClass(std::string_view name);

// ---------------------------------------------------------------------------------------------
// Reasons: the fixed, low-cardinality vocabulary of the `reason` label. Nothing else (no free
// text) ever reaches a label. exporter/classify/README.md says, for each, the evidence.
//
// PODWAIT_REASONS(X) calls X(constant, name, classes...) once per reason.
#define PODWAIT_REASONS(X)                                                                      \
  /* unscheduled: resources short */                                                            \
  X(kInsufficientCpu, "insufficient_cpu", kCapacity)                                            \
  X(kInsufficientMemory, "insufficient_memory", kCapacity)                                      \
  /* any other resource: ephemeral-storage, GPUs, hugepages, volume slots, DRA devices */       \
  X(kInsufficientResources, "insufficient_resources", kCapacity)                                \
  X(kTooManyPods, "too_many_pods", kCapacity)                                                   \
  X(kHostPortConflict, "host_port_conflict", kCapacity)                                         \
  /* every node that could fit is going away or unusable: a fresh node would fit */             \
  X(kNodesUnavailable, "nodes_unavailable", kCapacity)                                          \
  X(kNoNodes, "no_nodes", kCapacity)                                                            \
  /* unscheduled: an autoscaler cannot add capacity */                                          \
  X(kMaxNodeGroupSize, "max_node_group_size", kCapacity)                                        \
  X(kMaxClusterSize, "max_cluster_size", kCapacity)                                             \
  X(kNodepoolLimit, "nodepool_limit", kCapacity) /* Karpenter spec.limits */                    \
  X(kScaleUpBackoff, "scale_up_backoff", kCapacity)                                             \
  /* cluster-autoscaler skipped a node group as "not ready for scale-up": too many of its nodes \
     are unready (clusterstate's health check), or its size or quota could not be read */       \
  X(kNodeGroupNotReady, "node_group_not_ready", kCapacity)                                      \
  /* a node group in backoff, by its backoffInfo.errorCode (CA >= 1.30; ca_status.h) */         \
  X(kBackoffQuotaExceeded, "backoff_quota_exceeded", kCapacity)                                 \
  X(kBackoffStockout, "backoff_stockout", kCapacity)                                            \
  X(kBackoffIpSpaceExhausted, "backoff_ip_space_exhausted", kCapacity)                          \
  X(kBackoffPermissions, "backoff_permissions", kCapacity)                                      \
  X(kBackoffReservation, "backoff_reservation", kCapacity)                                      \
  X(kBackoffTimeout, "backoff_timeout", kCapacity)                                              \
  X(kBackoffCloudProviderError, "backoff_cloud_provider_error", kCapacity)                      \
  X(kBackoffOther, "backoff_other", kCapacity)                                                  \
  X(kScaleUpTimeout, "scale_up_timeout", kCapacity)                                             \
  /* an autoscaler is present but said nothing about the pod past the silence grace, or its     \
     status stopped moving: the autoscaler is broken, not the capacity */                       \
  X(kAutoscalerSilent, "autoscaler_silent", kCapacity)                                          \
  /* Karpenter could not launch the pod's NodeClaim: the cloud has no capacity of the chosen    \
     instance types, its NodeClass is not ready, or the launch keeps failing */                 \
  X(kKarpenterInsufficientCapacity, "karpenter_insufficient_capacity", kCapacity)               \
  X(kKarpenterNodeClassNotReady, "karpenter_nodeclass_not_ready", kCapacity)                    \
  X(kKarpenterLaunchFailed, "karpenter_launch_failed", kCapacity)                               \
  /* the ProvisioningRequest the pod consumes failed, its booking expired or its capacity       \
     was revoked (cluster-autoscaler, autoscaling.x-k8s.io/v1) */                               \
  X(kProvisioningRequestFailed, "provisioning_request_failed", kCapacity)                       \
  X(kProvisioningRequestBookingExpired, "provisioning_request_booking_expired", kCapacity)      \
  X(kProvisioningRequestCapacityRevoked, "provisioning_request_capacity_revoked", kCapacity)    \
  /* unscheduled: more nodes cannot fix it */                                                   \
  X(kNodeAffinity, "node_affinity", kConstraints)                                               \
  X(kUntoleratedTaint, "untolerated_taint", kConstraints)                                       \
  X(kPodAffinity, "pod_affinity", kConstraints)                                                 \
  X(kPodAntiAffinity, "pod_anti_affinity", kConstraints)                                        \
  X(kTopologySpread, "topology_spread", kConstraints)                                           \
  X(kUnboundPvc, "unbound_pvc", kConstraints)                                                   \
  X(kVolumeNodeAffinity, "volume_node_affinity", kConstraints)                                  \
  /* the scheduler's VolumeBinding PreBind step: the PVC's provisioner failed (SchedulerError   \
     `binding volumes: provisioning failed for PVC ...`) */                                     \
  X(kVolumeProvisioningFailed, "volume_provisioning_failed", kConstraints)                      \
  X(kUnschedulableOther, "unschedulable_other", kConstraints)                                   \
  /* dynamic resource allocation (the scheduler's DynamicResources plugin): no node can         \
     allocate the pod's ResourceClaims (judged like any resource reason), a claim that does not \
     exist or is being deleted, and a claim being created or allocated right now */             \
  X(kDraClaimsUnallocatable, "dra_claims_unallocatable", kCapacity)                             \
  X(kDraClaimMissing, "dra_claim_missing", kConstraints)                                        \
  X(kDraClaimPending, "dra_claim_pending", kScheduling)                                         \
  /* unscheduled: an autoscaler is adding capacity */                                           \
  X(kScaleUpInProgress, "scale_up_in_progress", kScaleUp)                                       \
  X(kKarpenterNominated, "karpenter_nominated", kScaleUp)                                       \
  /* the stage of the pod's NodeClaim: the instance is being bought, its node is joining        \
     the cluster, its node is starting (startup taints, daemons) */                             \
  X(kKarpenterLaunching, "karpenter_launching", kScaleUp)                                       \
  X(kKarpenterRegistering, "karpenter_registering", kScaleUp)                                   \
  X(kKarpenterInitializing, "karpenter_initializing", kScaleUp)                                 \
  /* the pod's ProvisioningRequest is accepted (capacity is being found or bought) or           \
     provisioned (the capacity is there, the scheduler places the pod next) */                  \
  X(kProvisioningRequestAccepted, "provisioning_request_accepted", kScaleUp)                    \
  X(kProvisioningRequestProvisioned, "provisioning_request_provisioned", kScaleUp)              \
  /* unscheduled: nobody has decided yet */                                                     \
  X(kAwaitingDecision, "awaiting_decision", kScheduling)                                        \
  X(kNoSchedulerDecision, "no_scheduler_decision", kScheduling)                                 \
  X(kSchedulingGated, "scheduling_gated", kGated)                                               \
  /* containers that cannot run */                                                              \
  X(kImagePull, "image_pull", kImage)                                                           \
  X(kInvalidImage, "invalid_image", kImage)                                                     \
  X(kCrashLoop, "crash_loop", kCrashloop)                                                       \
  X(kContainerConfig, "container_config", kConfig)                                              \
  /* dependencies */                                                                            \
  X(kPdNotReady, "pd_not_ready", kDependency)                                                   \
  X(kNoPdLeader, "no_pd_leader", kDependency)                                                   \
  X(kClusterNotInitialized, "cluster_not_initialized", kDependency)                             \
  X(kTikvNotReady, "tikv_not_ready", kDependency)                                               \
  X(kNoTikvStoreUp, "no_tikv_store_up", kDependency)                                            \
  /* a tidb-operator v2 DMWorker while no majority of its DM masters is Ready */                \
  X(kDmMasterNotReady, "dm_master_not_ready", kDependency)                                      \
  /* a TiDB or TiCDC of a tidb-operator v2 cluster in PD microservices mode (PDGroup mode ms)   \
     while no TSO instance is Ready: PD allocates no timestamps then */                         \
  X(kTsoNotReady, "tso_not_ready", kDependency)                                                 \
  X(kDependencyReady, "dependency_ready", kDependency, kDependencyStuck)                        \
  /* the dependency's readiness cannot be told: the stage's plain class, never dependency */    \
  X(kDependencyUnknown, "dependency_unknown", kStarting, kNotReady)                             \
  /* normal start-up and readiness */                                                           \
  X(kPodInitializing, "pod_initializing", kStarting)                                            \
  X(kContainerCreating, "container_creating", kStarting)                                        \
  X(kContainerWaiting, "container_waiting", kStarting)                                          \
  X(kInitRunning, "init_running", kStarting)                                                    \
  X(kReadinessProbe, "readiness_probe", kStarting, kNotReady)                                   \
  /* a running PD member, not Ready, while PD has no leader or is not initialized: forming its  \
     quorum (--pd.bootstrap-grace); past that grace it did not form: pd_no_quorum */            \
  X(kPdBootstrap, "pd_bootstrap", kStarting)                                                    \
  X(kPdNoQuorum, "pd_no_quorum", kNotReady)                                                     \
  /* the pod is Ready but its tidb-operator v2 instance is not (a v2 TiKV without a readiness   \
     probe whose store does not serve yet) */                                                   \
  X(kInstanceNotReady, "instance_not_ready", kStarting, kNotReady)                              \
  /* the same, the instance Ready=False InstanceNotHealthy: the operator's health check of the  \
     component fails (a TiKV store not serving yet) */                                          \
  X(kInstanceNotHealthy, "instance_not_healthy", kStarting, kNotReady)                          \
  /* a Failed pod of a tidb-operator v2 instance that is not Ready: v2 never recreates it       \
     (the kubelet evicted it, or it failed otherwise); someone has to delete it */              \
  X(kEvicted, "evicted", kNotReady)                                                             \
  X(kPodFailed, "pod_failed", kNotReady)                                                        \
  /* volumes and the pod sandbox, before any container starts: `starting` within the volume     \
     grace, `volume` past it */                                                                 \
  X(kVolumeMultiAttach, "volume_multi_attach", kStarting, kVolume)                              \
  X(kVolumeAttachFailed, "volume_attach_failed", kStarting, kVolume)                            \
  X(kVolumeMountTimeout, "volume_mount_timeout", kStarting, kVolume)                            \
  X(kVolumeMountFailed, "volume_mount_failed", kStarting, kVolume)                              \
  X(kSandboxCreation, "sandbox_creation", kStarting, kVolume)                                   \
  /* tidb-operator v2 holds the pod on purpose (classify/README.md, "Planned waits"): the       \
     cluster's reconciliation paused, its compute suspending or suspended (no grace), a PD mode \
     switch, a TiKV's leaders evicted before its restart, a store taken offline (scale-in) */   \
  X(kClusterPaused, "cluster_paused", kPlanned)                                                 \
  X(kClusterSuspending, "cluster_suspending", kPlanned)                                         \
  X(kClusterSuspended, "cluster_suspended", kPlanned)                                           \
  X(kPdModeSwitch, "pd_mode_switch", kPlanned, kPlannedStuck)                                   \
  X(kLeaderEviction, "leader_eviction", kPlanned, kPlannedStuck)                                \
  X(kStoreOffline, "store_offline", kPlanned, kPlannedStuck)

namespace reason {
#define PODWAIT_REASON_CONSTANT(constant, name, ...) \
  inline constexpr std::string_view constant = name;
PODWAIT_REASONS(PODWAIT_REASON_CONSTANT)
#undef PODWAIT_REASON_CONSTANT
}  // namespace reason

struct ReasonInfo {
  std::string_view name;
  ClassSet classes;  // the classes a pod with this reason can be in
};
namespace vocabulary_detail {
using enum WaitClass;
#define PODWAIT_REASON_ROW(constant, name, ...) ReasonInfo{name, ClassSet(__VA_ARGS__)},
inline constexpr ReasonInfo kReasons[] = {PODWAIT_REASONS(PODWAIT_REASON_ROW)};
#undef PODWAIT_REASON_ROW
}  // namespace vocabulary_detail
using vocabulary_detail::kReasons;

// The row of a reason, or nullptr when it is not in the vocabulary.
const ReasonInfo* FindReason(std::string_view name);
// Whether the vocabulary allows a waiting pod in this stage, class and reason.
bool Allowed(Stage stage, WaitClass wait_class, std::string_view reason);

// ---------------------------------------------------------------------------------------------
// Dependencies

// dm-master: the DM masters of a tidb-operator v2 cluster (its DM instances), which its DMWorkers
// register with; it applies only to a cluster with DM or DMWorker instances. tso: the TSO
// instances of a tidb-operator v2 cluster in PD microservices mode (its PDGroup's mode `ms`, no
// mode switch under way), from which TiDB and TiCDC take timestamps; it applies only to such a
// cluster (ClusterDependencies::Applies). In the order a pod's dependencies are looked at: PD
// first (PD down takes the others down), TSO before TiKV (no timestamp, no transaction).
enum class Dependency : uint8_t { kPd, kTikv, kDmMaster, kTso };
inline constexpr Dependency kAllDependencies[] = {Dependency::kPd, Dependency::kTso,
                                                  Dependency::kTikv, Dependency::kDmMaster};
struct DependencyInfo {
  Dependency dependency;
  std::string_view name;              // the `dependency` label
  std::string_view not_ready_reason;  // the pod's reason when this one is not ready
};
inline constexpr DependencyInfo kDependencies[] = {
    {Dependency::kPd, "pd", reason::kPdNotReady},
    {Dependency::kTikv, "tikv", reason::kTikvNotReady},
    {Dependency::kDmMaster, "dm-master", reason::kDmMasterNotReady},
    {Dependency::kTso, "tso", reason::kTsoNotReady},
};
constexpr std::string_view DependencyName(Dependency d) {
  return kDependencies[static_cast<size_t>(d)].name;
}
// The dependencies a `dependency` / `dependency_stuck` row waits on (Classification::waits_on).
using DependencySet = EnumSet<Dependency>;
std::optional<Dependency> ParseDependency(std::string_view name);

enum class Readiness : uint8_t { kUnknown, kNotReady, kReady };
inline constexpr std::string_view kReadinessNames[] = {"unknown", "not_ready", "ready"};
// "ready", "not_ready", "unknown".
constexpr std::string_view ReadinessName(Readiness r) {
  return kReadinessNames[static_cast<size_t>(r)];
}

// Why a dependency is not ready (or cannot be told), as the dependency store decides it.
enum class DependencyReason : uint8_t {
  kNone,
  kPdNotReady,
  kNoPdLeader,
  kPdUnhealthyMajority,
  kClusterNotInitialized,
  kTikvNotReady,
  kNoTikvStoreUp,
  kTikvNotBootstrapped,
  kDependencyUnknown,
  kDmMasterNotReady,
  // Unknown because PD cannot be asked from where podwait runs (the API server refuses the
  // user's requests to PD's service proxy): podwait's access, not the cluster's problem.
  kPdNotReachableFromHere,
  // Unknown because the cluster's PD is not its own and nothing of it answered (docs/DESIGN.md §4,
  // "Topologies"): PD in another Kubernetes, or a referenced cluster's PD podwait cannot see. The
  // absence of a local PD is no outage.
  kPdElsewhere,
  kTsoNotReady,
};
struct DependencyReasonInfo {
  DependencyReason reason;
  std::string_view name;  // shown in /api/v1/pods, the status page and logs
  // The `reason` label of a pod waiting on it; empty: the dependency's own not_ready_reason
  // (the label vocabulary keeps one reason per fact a pod can wait for).
  std::string_view pod_reason;
};
inline constexpr DependencyReasonInfo kDependencyReasons[] = {
    {DependencyReason::kNone, "", ""},
    {DependencyReason::kPdNotReady, "pd_not_ready", reason::kPdNotReady},
    {DependencyReason::kNoPdLeader, "no_pd_leader", reason::kNoPdLeader},
    {DependencyReason::kPdUnhealthyMajority, "pd_unhealthy_majority", ""},
    {DependencyReason::kClusterNotInitialized, "cluster_not_initialized",
     reason::kClusterNotInitialized},
    {DependencyReason::kTikvNotReady, "tikv_not_ready", reason::kTikvNotReady},
    {DependencyReason::kNoTikvStoreUp, "no_tikv_store_up", reason::kNoTikvStoreUp},
    {DependencyReason::kTikvNotBootstrapped, "tikv_not_bootstrapped", ""},
    {DependencyReason::kDependencyUnknown, "dependency_unknown", reason::kDependencyUnknown},
    {DependencyReason::kDmMasterNotReady, "dm_master_not_ready", reason::kDmMasterNotReady},
    {DependencyReason::kPdNotReachableFromHere, "pd_not_reachable_from_here",
     reason::kDependencyUnknown},
    {DependencyReason::kPdElsewhere, "pd_elsewhere", reason::kDependencyUnknown},
    {DependencyReason::kTsoNotReady, "tso_not_ready", reason::kTsoNotReady},
};
constexpr std::string_view DependencyReasonName(DependencyReason r) {
  return kDependencyReasons[static_cast<size_t>(r)].name;
}
// The reason label of a pod that waits because dependency `d` is not ready for reason `r`.
constexpr std::string_view PodReasonFor(Dependency d, DependencyReason r) {
  const std::string_view own = kDependencyReasons[static_cast<size_t>(r)].pod_reason;
  return own.empty() || own == reason::kDependencyUnknown
             ? kDependencies[static_cast<size_t>(d)].not_ready_reason
             : own;
}
// The DependencyReason of a name ("" and unknown names: kNone).
DependencyReason ParseDependencyReason(std::string_view name);

}  // namespace podwait
