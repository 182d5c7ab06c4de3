#pragma once

// Facts of tidb-operator v2 objects (API group core.pingcap.com/v1alpha1): the Cluster, the
// component groups and the component instances. Only what podwait reads is kept, never the
// documents. The fields and their meanings follow pingcap/tidb-operator's api/core/v1alpha1/
// (cluster_types.go, common_types.go, *_types.go); tests/fixtures/v2/README.md lists the source
// of each.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/model/types.h"

namespace podwait::v2 {

// The API group and version of every v2 kind.
inline constexpr std::string_view kApiGroup = "core.pingcap.com";
inline constexpr std::string_view kApiVersion = "core.pingcap.com/v1alpha1";
// The Cluster kind and its plural, listed and watched beside every Kind() below.
inline constexpr std::string_view kClusterKind = "Cluster";
inline constexpr std::string_view kClusterResource = "clusters";

// A metav1.Condition as v2 writes it on its objects (Ready, Synced, Available, ...).
struct Condition {
  std::string type;
  ConditionStatus status = ConditionStatus::kUnknown;
  std::string reason;  // Ready, Unready, PodNotCreated, PodNotReady, InstanceNotHealthy, ...
  Timestamp last_transition = 0;
  int64_t observed_generation = 0;
};

// The condition of that type in `conditions`, or nullptr.
const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type);

// A Cluster (kind Cluster): the PD URL its controller writes (status.pd, e.g.
// "http://pd-pd.tidb:2379", https with TLS between components), the PD cluster id (status.id,
// empty until PD answered) and its conditions (Available, Progressing, Suspended).
struct Cluster {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string pd_url;            // status.pd; empty until a PDGroup exists
  std::string cluster_id;        // status.id
  bool tls = false;              // spec.tlsCluster.enabled
  bool paused = false;           // spec.paused: every controller of the cluster stops reconciling
  bool suspend_compute = false;  // spec.suspendAction.suspendCompute: pods deleted, PVCs kept
  std::vector<Condition> conditions;
  ClusterKey Key() const { return {namespace_, name}; }
};

// How a component's process behaves while what it needs is down, read in its own start-up
// (docs/DESIGN.md §4 "v2 components" says, per kind, where): the dependency map's default for the
// component follows from it.
enum class StartUp : uint8_t {
  kExits,       // gives up and exits (the pod crash-loops) while a dependency is down
  kNotReady,    // runs, not Ready, until its dependencies answer
  kRegardless,  // starts and turns Ready without them (dials lazily): no dependency to blame
  kOwnQuorum,   // forms a quorum with its own peers (PD, DM masters): waits for nothing else
};
inline constexpr std::string_view kStartUpNames[] = {"exits", "not_ready", "regardless",
                                                     "own_quorum"};
// "exits", "not_ready", "regardless", "own_quorum" (as `podwait-exporter contract` prints them).
constexpr std::string_view StartUpName(StartUp s) { return kStartUpNames[static_cast<size_t>(s)]; }

// The v2 component kinds podwait knows: their instance kind, group kind, plural resource names,
// the component name they write in the pingcap.com/component label and their pods' name part,
// and what the component waits for when it starts (the default of --dependency.map).
struct Kind {
  std::string_view instance_kind;      // PD, TiKV, TiDB, TiFlash, TiCDC, TSO, Scheduling, ...
  std::string_view group_kind;         // PDGroup, TiKVGroup, ...
  std::string_view instance_resource;  // pds, tikvs, tidbs, tiflashes, ...
  std::string_view group_resource;     // pdgroups, tikvgroups, ...
  std::string_view component;          // pd, tikv, tidb, tiflash, ticdc, tso, scheduling, ...
  std::vector<Dependency> needs;       // the dependencies it waits for (PD first)
  StartUp start_up = StartUp::kNotReady;
};
// Every kind above, PD first.
const std::vector<Kind>& Kinds();
// The kind whose instance_kind or group_kind is `kind`, or nullptr.
const Kind* FindKind(std::string_view kind);

// An instance (PD, TiKV, TiDB, ..., TiProxy, DM, DMWorker: a kind of Kinds()): one pod each.
struct Instance {
  std::string kind;       // instance kind: PD, TiKV, ...
  std::string component;  // pd, tikv, ...
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string cluster;  // spec.cluster.name (else the pingcap.com/cluster label)
  std::string group;    // the pingcap.com/group label (else the controlling group owner)
  int64_t generation = 0;
  std::optional<Condition> ready;   // the Ready condition, when written
  std::optional<Condition> synced;  // the Synced condition, when written
  // TiKV: LeadersEvicted (api/core/v1alpha1/tikv_types.go), False/Evicting while its leaders are
  // moved away before a restart, True/Evicted once they are. TiKV and TiFlash: Offlined
  // (common_types.go), False/Processing while the store is removed (scale-in), True once removed.
  std::optional<Condition> leaders_evicted;
  std::optional<Condition> offlined;
  std::string store_id;     // TiKV/TiFlash status.id (empty until the store registered)
  std::string store_state;  // TiKV/TiFlash status.state: Preparing, Serving, Removing, ...
  std::string pod_name;     // the pod it owns: <name prefix>-<component>-<suffix>
  ClusterKey Key() const { return {namespace_, cluster}; }
  // Whether the Ready condition is True.
  bool IsReady() const { return ready && ready->status == ConditionStatus::kTrue; }
};

// A group (PDGroup, TiKVGroup, ...): desired and observed replicas and its conditions.
struct Group {
  std::string kind;  // group kind
  std::string component;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string cluster;
  std::optional<int64_t> spec_replicas;   // spec.replicas
  std::optional<int64_t> replicas;        // status.replicas
  std::optional<int64_t> ready_replicas;  // status.readyReplicas
  // PDGroup (api/core/v1alpha1/pd_types.go): the PD mode asked for
  // (spec.template.spec.mode, "" normal or "ms" microservices) and the one reached
  // (status.mode, written once every PD instance converged: pkg/controllers/pdgroup/tasks/
  // mode_switch.go setModeSwitchComplete). Empty for the other groups.
  std::string pd_mode;
  std::string pd_status_mode;
  std::vector<Condition> conditions;
  ClusterKey Key() const { return {namespace_, cluster}; }
};

// The pod name v2 gives an instance's pod (pkg/apiutil/core/v1alpha1/instance.go): the instance
// name cut at its last '-', the component between: "tikv-x7k2p" -> "tikv-tikv-x7k2p". Empty when
// the name has no '-' (v2 panics there; podwait derives nothing).
std::string PodNameOf(std::string_view instance_name, std::string_view component);

// The inverse of PodNameOf: the instance a v2 pod belongs to, "tikv-tikv-x7k2p" with component
// "tikv" -> "tikv-x7k2p". Empty when the pod name is not <prefix>-<component>-<suffix>.
std::string InstanceNameOfPod(std::string_view pod_name, std::string_view component);

// What the Cluster and its PDGroups say of the whole cluster (docs/DESIGN.md §4, "Planned
// waits"): paused; suspended when suspendCompute is set and the Suspended condition is True
// (pkg/controllers/cluster/tasks/status.go sets it once every group is), suspending while it is
// set and the condition is not True yet; the first PDGroup (by name) whose ModeSwitching is True.
OperatorHold HoldOf(const Cluster* cluster, const std::vector<const Group*>& pd_groups);

// Whether a PDGroup asks for PD microservices mode and has reached it (spec.template.spec.mode and
// status.mode both "ms", api/core/v1alpha1/pd_types.go PDModeMS): the PD pods run `pd-server
// services api` (pkg/controllers/pd/tasks/pod.go) and allocate no timestamps.
bool InPdMicroservicesMode(const std::vector<const Group*>& pd_groups);

}  // namespace podwait::v2

namespace podwait {

// What the classifier needs of a pod's v2 instance: its Ready condition. A pod that is Ready while
// its instance is Ready=False (a v2 TiKV without readiness probe, its store not yet serving) is
// waiting (exporter/classify/README.md).
struct InstanceReadiness {
  ConditionStatus ready = ConditionStatus::kUnknown;
  std::string reason;   // the condition's reason (InstanceNotHealthy, PodNotReady, ...)
  std::string kind;     // the instance kind (TiKV, ...), for the evidence
  Timestamp since = 0;  // the condition's lastTransitionTime
  // A planned wait of the instance itself (InstancePlanOf): its reason (reason::kLeaderEviction,
  // reason::kStoreOffline; empty: none), the condition that says so and its lastTransitionTime.
  std::string plan_reason;
  std::string plan_condition;  // "LeadersEvicted=True Evicted"
  Timestamp plan_since = 0;
};

// The Ready=False reasons tidb-operator v2 writes on an instance
// (pkg/controllers/common/task_status.go TaskInstanceConditionReady, in this order of checks).
inline constexpr std::string_view kInstancePodNotCreated = "PodNotCreated";
inline constexpr std::string_view kInstancePodTerminating = "PodTerminating";
inline constexpr std::string_view kInstancePodNotReady = "PodNotReady";
inline constexpr std::string_view kInstanceNotHealthy = "InstanceNotHealthy";

// Whether an instance's Ready condition holds back a pod that is Ready itself: Ready=False for a
// reason about the instance (InstanceNotHealthy: the operator's health check of the component
// fails), or for a reason podwait does not know. The reasons about the pod (PodNotCreated,
// PodTerminating, PodNotReady) describe an earlier state of a pod that is Ready now: the operator
// has not looked again yet, and the pod's own Ready is the truth.
bool InstanceHoldsBackReadyPod(const InstanceReadiness& instance);

}  // namespace podwait

namespace podwait::v2 {

// What the dependency store reads of one v2 cluster (the readiness fallback when the PD API
// cannot be reached, and the dependency facts of the metrics): its instances' Ready conditions
// and its TiKV stores' states. v2 has no failover members (a failed instance is replaced by its
// group, nothing is recorded), so there is nothing of that kind here.
struct ClusterFacts {
  bool present = false;  // the cluster has a Cluster object or any instance
  std::string pd_url;    // the Cluster's status.pd
  int pd_instances = 0;
  int pd_instances_ready = 0;
  int tikv_instances = 0;
  int tikv_serving_ready = 0;  // TiKV instances Ready=True with state Serving
  // The latest Ready lastTransitionTime of the Ready PD instances / the Ready, Serving TiKV
  // instances; 0 when none is written. The cluster's own dates of readiness.
  Timestamp pd_ready_since = 0;
  Timestamp tikv_ready_since = 0;
  // DM masters (DM instances, component dm-master) and DMWorker instances: the dm-master
  // dependency of the cluster's DMWorkers.
  int dm_instances = 0;
  int dm_instances_ready = 0;
  int dm_worker_instances = 0;
  Timestamp dm_ready_since = 0;  // the latest Ready lastTransitionTime of the Ready DM instances
  // PD microservices mode: a PDGroup of the cluster asks for mode ms and has reached it, and no
  // mode switch is under way (hold.mode_switch empty): PD then allocates no timestamps, the TSO
  // instances do. Their count and the Ready ones: the tso dependency of TiDB and TiCDC.
  bool pd_ms_mode = false;
  int tso_instances = 0;
  int tso_instances_ready = 0;
  Timestamp tso_ready_since = 0;  // the latest Ready lastTransitionTime of the Ready TSO instances
  std::vector<std::pair<std::string, int>> tikv_store_states;  // status.state -> count, sorted
  OperatorHold hold;  // paused, suspending, suspended, a PD mode switch (HoldOf)
  bool operator==(const ClusterFacts&) const = default;
};

}  // namespace podwait::v2
