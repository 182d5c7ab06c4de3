#pragma once

// The compact records that flow from sources to state to the classifier, and the classifier's
// output. Only the fields classification needs are kept (docs/DESIGN.md §7): never whole documents.

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/shared_string.h"
#include "exporter/model/vocabulary.h"

namespace podwait {

// ---------------------------------------------------------------------------------------------
// Pods

enum class ConditionStatus : uint8_t { kUnknown, kTrue, kFalse };

struct PodCondition {
  std::string type;  // PodScheduled, Initialized, ContainersReady, Ready, ...
  ConditionStatus status = ConditionStatus::kUnknown;
  std::string reason;   // e.g. Unschedulable, SchedulingGated, ContainersNotInitialized
  std::string message;  // e.g. the scheduler's FitError text
  Timestamp last_transition = 0;
};

enum class ContainerState : uint8_t { kUnknown, kWaiting, kRunning, kTerminated };

struct ContainerStatus {
  std::string name;
  ContainerState state = ContainerState::kUnknown;
  std::string reason;   // waiting reason (CrashLoopBackOff, ...) or terminated reason
  std::string message;  // waiting/terminated message, truncated to a bounded length
  int32_t restart_count = 0;
  bool ready = false;
  int32_t exit_code = 0;  // of the terminated state, or of lastState.terminated
  Timestamp started_at = 0;
};

// What a pod with tidb-operator's labels belongs to (tidb-operator v1.6.6 pkg/apis/label/label.go):
// a TiDB cluster (label.New(): app.kubernetes.io/name=tidb-cluster, or a v2 pod), a v1 DMCluster
// (label.NewDM(): name dm-cluster; its dm-master and dm-worker pods), or an object that is no
// cluster at all: a TidbMonitor (label.NewMonitor() has name tidb-cluster too, but component
// monitor), a TidbNGMonitoring (name tidb-ng-monitoring, component ng-monitoring), a
// TidbDashboard (name and component tidb-dashboard), a discovery (component discovery) or the
// initializer Job (component initializer). Only a kTidbCluster pod makes a TiDB cluster: PD probes
// and dependency series; the others are classified as any pod (no dependency), and a v1 DMCluster's
// dm-workers wait for its dm-masters (docs/DESIGN.md §4, "Topologies").
enum class PodOwner : uint8_t { kTidbCluster, kDmCluster, kNotACluster };
inline constexpr std::string_view kPodOwnerNames[] = {"tidb-cluster", "dm-cluster",
                                                      "not-a-cluster"};
constexpr std::string_view PodOwnerName(PodOwner o) {
  return kPodOwnerNames[static_cast<size_t>(o)];
}
// The label that says which kind of object made the pod (label.go's NameLabelKey).
inline constexpr std::string_view kAppNameLabel = "app.kubernetes.io/name";
// From the pod's app.kubernetes.io/name and component label values ("" when absent).
PodOwner PodOwnerOf(std::string_view app_name, std::string_view component);

enum class PodPhase : uint8_t { kPending, kRunning, kSucceeded, kFailed, kUnknown };

// The parts of a pod that only a full record has (see PodRecord): its conditions, containers and
// claims. A compact record of a Ready pod has none, and keeps no room for them either.
struct PodDetail {
  std::vector<PodCondition> conditions;
  // The PersistentVolumeClaims of spec.volumes (persistentVolumeClaim.claimName, and the claim an
  // ephemeral volume gets: <pod>-<volume>).
  std::vector<std::string> claims;
  // The ProvisioningRequest the pod consumes (its annotation
  // autoscaling.x-k8s.io/consume-provisioning-request, or the deprecated
  // cluster-autoscaler.kubernetes.io/ one), in the pod's namespace; empty: none. Bounded length.
  std::string provisioning_request;
  // A Failed pod's status.reason (Evicted, NodeShutdown, OutOfcpu, ...) and status.message (the
  // kubelet's explanation); empty for a pod in any other phase. Bounded length.
  std::string status_reason;
  std::string status_message;
  std::vector<ContainerStatus> init_containers;  // status order
  std::vector<ContainerStatus> containers;
};

// What the exporter keeps of a pod. A pod that is Ready and not being deleted is kept compact (see
// ParsePod): `compact_ready` is set, the Ready condition's lastTransitionTime is kept in
// `compact_ready_since` and the record has no detail: no conditions, container statuses or names,
// no messages. Such a pod is not waiting, and its readiness is all the classifier, the tracker and
// the cluster registry read of it. At 100,000 pods (docs/DESIGN.md §8) each byte per pod is 100
// kB, so fields nobody reads are not kept, and the detail a Ready pod does not have costs it one
// pointer (four empty vectors and a string would cost 128 bytes). Read readiness with IsReady() and
// ReadySince(), which answer for compact and full records alike.
//
// The detail is shared between copies of a record and copied on the first write to it
// (mutable_detail()), so copying a record is cheap and records stored as PodPtr stay immutable.
struct PodRecord {
  // Namespace, cluster and component are shared: a fleet has few distinct values of each.
  std::string uid;
  SharedString namespace_;
  std::string name;
  SharedString cluster;    // value of the cluster label (TidbCluster name), may be empty
  SharedString component;  // value of the component label (pd, tikv, tidb, ...), may be empty
  std::string resource_version;
  Timestamp created = 0;
  Timestamp deleted = 0;              // deletionTimestamp; non-zero means the pod is being deleted
  Timestamp compact_ready_since = 0;  // its Ready condition's lastTransitionTime (0: unknown)
  PodPhase phase = PodPhase::kUnknown;
  bool compact_ready = false;  // a compact record of a Ready pod (see above)
  // The pod belongs to a tidb-operator v2 instance CR (it carries the pingcap.com/instance label);
  // the instance's name is v2::InstanceNameOfPod(name, component) (model/v2.h).
  bool v2_instance = false;
  // Which pod reflector wrote the record (PodParseOptions::source): the store lets only that
  // source delete or replace it, so two pod reflectors with disjoint selectors share one store.
  uint8_t source = 0;
  // What made the pod (PodOwnerOf): only a TiDB cluster's pods make a cluster.
  PodOwner owner = PodOwner::kTidbCluster;

  // The detail; an empty one when the record has none (always, for a compact record).
  const PodDetail& detail() const { return detail_ != nullptr ? *detail_ : EmptyDetail(); }
  // The detail to fill in: created on first use, copied first when another record shares it.
  PodDetail& mutable_detail() {
    if (detail_ == nullptr) {
      detail_ = std::make_shared<PodDetail>();
    } else if (detail_.use_count() > 1) {
      detail_ = std::make_shared<PodDetail>(*detail_);
    }
    return *detail_;
  }
  bool has_detail() const { return detail_ != nullptr; }

  // Returns the condition of that type, or nullptr (always nullptr for a compact record: use
  // IsReady() and ReadySince() for readiness).
  const PodCondition* Condition(std::string_view type) const {
    for (const auto& c : detail().conditions) {
      if (c.type == type) return &c;
    }
    return nullptr;
  }
  // Whether the Ready condition is True.
  bool IsReady() const {
    if (compact_ready) return true;
    const PodCondition* ready = Condition("Ready");
    return ready != nullptr && ready->status == ConditionStatus::kTrue;
  }
  // When a Ready pod became Ready (the condition's lastTransitionTime); 0 when it is not Ready or
  // the time is unknown.
  Timestamp ReadySince() const {
    if (compact_ready) return compact_ready_since;
    const PodCondition* ready = Condition("Ready");
    return ready != nullptr && ready->status == ConditionStatus::kTrue ? ready->last_transition : 0;
  }
  // "namespace/name"
  std::string Key() const { return namespace_ + "/" + name; }

 private:
  static const PodDetail& EmptyDetail() {
    static const PodDetail empty;
    return empty;
  }
  // Written only through mutable_detail(), which never writes a detail another record shares.
  std::shared_ptr<PodDetail> detail_;
};

// Whether a pod counts as a Ready PD pod (the readiness fallback when the PD API cannot be
// reached): component pd, not being deleted, condition Ready=True.
inline bool IsReadyPdPod(const PodRecord& pod) {
  return pod.component == "pd" && pod.deleted == 0 && pod.IsReady();
}

// ---------------------------------------------------------------------------------------------
// Events on pods

struct EventRecord {
  std::string uid;  // the event's own uid
  std::string pod_uid;
  std::string namespace_;
  std::string pod_name;
  std::string reason;   // FailedScheduling, TriggeredScaleUp, NotTriggerScaleUp, Nominated, ...
  std::string message;  // bounded length
  std::string source;   // source.component or reportingController (default-scheduler,
                        // cluster-autoscaler, karpenter)
  Timestamp first = 0;  // firstTimestamp or eventTime
  Timestamp last = 0;   // lastTimestamp, series.lastObservedTime or eventTime
  int32_t count = 1;
};

// ---------------------------------------------------------------------------------------------
// Dependencies (per TiDB cluster)

struct DependencyStatus {
  Readiness readiness = Readiness::kUnknown;
  Timestamp ready_since = 0;  // when it last became ready; 0 if never seen ready
  DependencyReason reason = DependencyReason::kNone;  // why not ready (or unknown)
  bool operator==(const DependencyStatus&) const = default;
};

// component -> the dependencies it waits for: tikv=pd, tidb=pd+tso+tikv, tiflash=pd+tikv,
// ticdc=pd+tso+tikv (tso only where it applies), pump=pd, the PD microservices tso, scheduling,
// scheduler, resource-manager and router =pd, tikv-worker=pd (the default of --dependency.map: the
// needs of Components(), below).
using DependencyMap = std::map<std::string, std::vector<Dependency>>;
const DependencyMap& DefaultDependencyMap();

// The components tidb-operator names its pods with (the component label's values): every v2
// kind's (v2::Kinds(), model/v2.cpp: pd, tikv, tidb, tiflash, ticdc, the PD microservices,
// tikv-worker, tiproxy, dm-master, dm-worker; v1 uses the same names for the same processes),
// then v1's own, which have no v2 kind (pkg/apis/label/label.go on release-1.6: pump, discovery,
// monitor, ng-monitoring, tidb-dashboard, initializer), each with the dependencies it waits for.
struct ComponentInfo {
  std::string_view name;
  std::vector<Dependency> needs;
  // Whether a pod of this component is a member of a TiDB cluster (its PD's cluster). The v1
  // objects that serve a cluster from outside it (discovery, TidbMonitor, TidbNGMonitoring,
  // TidbDashboard, the initializer Job) are not: a pod of theirs makes no cluster (PodOwnerOf).
  bool of_cluster = true;
};
const std::vector<ComponentInfo>& Components();
// A pod's component as a label value of a series that outlives the pod
// (podwait_stage_duration_seconds): one of Components(), "" for a pod without one, else
// kOtherComponent. Whoever may create a labelled pod then adds at most one series, not one per
// value. The view points at static storage.
inline constexpr std::string_view kOtherComponent = "other";
std::string_view ComponentLabel(std::string_view component);

// Classification defaults, for the flags and ClassifierOptions alike (exporter/classify/README.md
// says what each does).
inline constexpr Timestamp kDefaultDecisionGrace = 60 * kSecond;
inline constexpr Timestamp kDefaultProvisionTimeout = 15 * kMinute;
// How long an autoscaler may say nothing about an unschedulable pod short of resources, and how
// old its status object may get, before podwait calls it silent (--autoscaler.silence-grace).
// cluster-autoscaler looks at every unschedulable pod each loop (10s) and rewrites its status
// ConfigMap each loop; Karpenter batches pods for seconds.
inline constexpr Timestamp kDefaultSilenceGrace = 5 * kMinute;
// How long the API server keeps an event (kube-apiserver --event-ttl, 1h by default): a verdict
// older than this may be gone, so its absence proves nothing.
inline constexpr Timestamp kEventTtl = 60 * kMinute;
inline constexpr Timestamp kDefaultDependencyReadyGrace = 2 * kMinute;
// A PD member waiting for its peers to form a quorum (--pd.bootstrap-grace): PD members wait for
// peers that may themselves wait for nodes (a scale-up takes minutes), so minutes, never under 3.
inline constexpr Timestamp kDefaultPdBootstrapGrace = 5 * kMinute;
inline constexpr Timestamp kMinPdBootstrapGrace = 3 * kMinute;
inline constexpr std::string_view kDefaultDependencyInitContainer = "wait-for-pd";
// Planned waits of tidb-operator v2 (exporter/classify/README.md, "Planned waits"): how long each
// may last before it is planned_stuck. A PD mode switch brings up a TSO group, waits for its
// primary and restarts the PD instances one by one (--v2.mode-switch-grace); a TiKV restart
// evicts its leaders first (the operator gives up waiting after 5m) and restarts the pod
// (--v2.leader-eviction-grace); a scale-in moves every region off the store first, hours for a
// large store (--v2.store-offline-grace).
inline constexpr Timestamp kDefaultModeSwitchGrace = 30 * kMinute;
inline constexpr Timestamp kDefaultLeaderEvictionGrace = 15 * kMinute;
inline constexpr Timestamp kDefaultStoreOfflineGrace = 120 * kMinute;

// A TiDB cluster: the namespace and the value of the cluster label (the TidbCluster name).
struct ClusterKey {
  std::string namespace_;
  std::string name;
  auto operator<=>(const ClusterKey&) const = default;
  // The metric label tidb_cluster: "<namespace>-<name>" (docs/DESIGN.md §5).
  std::string TidbClusterLabel() const { return namespace_ + "-" + name; }
  // "namespace/name"
  std::string Key() const { return namespace_ + "/" + name; }
};

// What tidb-operator v2 does to a whole cluster on purpose (model/v2.h, the Cluster and its
// PDGroups): reconciliation paused (spec.paused), compute suspending or suspended
// (spec.suspendAction.suspendCompute and the Suspended condition), a PD mode switch under way
// (a PDGroup's ModeSwitching=True). Pods of such a cluster wait as planned.
struct OperatorHold {
  bool paused = false;
  bool suspending = false;
  bool suspended = false;
  std::string mode_switch;          // the ModeSwitching reason while True (WaitingForTSOGroup, ...)
  Timestamp mode_switch_since = 0;  // its lastTransitionTime
  bool Any() const { return paused || suspending || suspended || !mode_switch.empty(); }
  bool operator==(const OperatorHold&) const = default;
};
// The holds in force, by the names of podwait_cluster_hold's `hold` label: paused, suspending,
// suspended, pd_mode_switch (in that order).
std::vector<std::string_view> HoldNames(const OperatorHold& hold);

struct ClusterDependencies {
  DependencyStatus pd;
  DependencyStatus tikv;
  OperatorHold hold;  // tidb-operator v2 only; empty otherwise
  // Where PD lives when it is not the cluster's own (PdSourceText, model/tidbcluster_status.h:
  // "PD of tidb/basic (spec.cluster, no spec.pd)"); empty for a cluster with its own PD.
  std::string pd_source;
  // Left as it is (unknown, no reason) for a cluster without DM or DMWorker instances.
  DependencyStatus dm_master;
  // Left as it is (unknown, no reason) for a cluster not in PD microservices mode.
  DependencyStatus tso;
  const DependencyStatus& Get(Dependency d) const {
    return const_cast<ClusterDependencies*>(this)->Get(d);
  }
  DependencyStatus& Get(Dependency d) {
    switch (d) {
      case Dependency::kPd:
        return pd;
      case Dependency::kTikv:
        return tikv;
      case Dependency::kDmMaster:
        return dm_master;
      case Dependency::kTso:
        return tso;
    }
    return pd;
  }
  // False for a v1 DMCluster that no TiDB cluster shares its name with: it has dm-master, no PD
  // and no TiKV (docs/DESIGN.md §4, "Topologies").
  bool tidb_cluster = true;
  // PD and TiKV: every TiDB cluster has them. The others only some clusters have.
  static constexpr bool AlwaysApplies(Dependency d) {
    return d == Dependency::kPd || d == Dependency::kTikv;
  }
  // Whether the cluster has that dependency at all: PD and TiKV for a TiDB cluster; dm-master and
  // tso once the dependency store evaluated them (a cluster with DM or DMWorker instances, a v1
  // DMCluster; a cluster in PD microservices mode). The views, the metrics and the pod rules
  // leave out what does not apply.
  bool Applies(Dependency d) const {
    if (AlwaysApplies(d)) return tidb_cluster;
    const DependencyStatus& s = Get(d);
    return s.readiness != Readiness::kUnknown || s.reason != DependencyReason::kNone;
  }
  bool operator==(const ClusterDependencies&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Autoscaler

// The autoscalers of exporter/model/autoscalers.h's table (kNone: no autoscaler wrote it).
enum class AutoscalerKind : uint8_t { kNone, kClusterAutoscaler, kKarpenter };
inline constexpr size_t kAutoscalerKindCount = 3;  // kNone included

// One value per autoscaler kind, indexed by the kind (the kNone slot stays unused).
template <typename T>
struct PerAutoscaler {
  std::array<T, kAutoscalerKindCount> values{};
  T& operator[](AutoscalerKind k) { return values[static_cast<size_t>(k)]; }
  const T& operator[](AutoscalerKind k) const { return values[static_cast<size_t>(k)]; }
  bool operator==(const PerAutoscaler&) const = default;
};

// What the cluster-autoscaler status ConfigMap says about one node group.
struct NodeGroupStatus {
  std::string name;
  bool scale_up_in_progress = false;
  bool backoff = false;
  // backoffInfo of the YAML format (CA >= 1.30; the text format has neither): the cloud
  // provider's error code (QUOTA_EXCEEDED, RESOURCE_POOL_EXHAUSTED, ...) and its message.
  std::string backoff_code;
  std::string backoff_message;
  bool operator==(const NodeGroupStatus&) const = default;
};

// A Karpenter NodeClaim (karpenter.sh/v1) as the classifier reads it: the stages of bringing its
// node up (its Launched, Registered and Initialized conditions, karpenter's
// pkg/apis/v1/nodeclaim_status.go) and its node pool.
enum class NodeClaimStage : uint8_t { kLaunched, kRegistered, kInitialized };
inline constexpr std::string_view kNodeClaimStageConditions[] = {"Launched", "Registered",
                                                                 "Initialized"};

struct NodeClaimCondition {
  ConditionStatus status = ConditionStatus::kUnknown;  // absent: Unknown
  std::string reason;                                  // NodeNotFound, LaunchFailed, ...
  std::string message;                                 // bounded length
  Timestamp since = 0;                                 // lastTransitionTime
  bool operator==(const NodeClaimCondition&) const = default;
};

struct NodeClaimFacts {
  std::string name;
  std::string nodepool;  // label karpenter.sh/nodepool
  std::string node_name;
  Timestamp created = 0;
  bool deleting = false;                     // deletionTimestamp set
  std::array<NodeClaimCondition, 3> stages;  // by NodeClaimStage
  const NodeClaimCondition& Condition(NodeClaimStage s) const {
    return stages[static_cast<size_t>(s)];
  }
  bool operator==(const NodeClaimFacts&) const = default;
};

// A launch failure Karpenter reported in an event on a NodeClaim before deleting it
// (InsufficientCapacityError, NodeClassNotReady: karpenter pkg/controllers/nodeclaim/lifecycle/).
struct NodeClaimFailure {
  std::string nodeclaim;
  std::string reason;   // the event's reason
  std::string message;  // bounded length
  Timestamp at = 0;
  bool operator==(const NodeClaimFailure&) const = default;
};

// The NodeClaims podwait watches, by name, and the launch failures of recent ones.
struct NodeClaimView {
  bool synced = false;  // the NodeClaim list arrived: a name not listed is gone
  std::map<std::string, NodeClaimFacts, std::less<>> claims;
  std::map<std::string, NodeClaimFailure, std::less<>> failures;
  const NodeClaimFacts* Find(std::string_view name) const {
    auto it = claims.find(name);
    return it == claims.end() ? nullptr : &it->second;
  }
  const NodeClaimFailure* FailureOf(std::string_view name) const {
    auto it = failures.find(name);
    return it == failures.end() ? nullptr : &it->second;
  }
};

// A ProvisioningRequest (autoscaling.x-k8s.io/v1, namespaced; cluster-autoscaler's
// apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go) as the classifier reads it: its
// conditions Accepted, Provisioned, Failed, BookingExpired and CapacityRevoked.
enum class ProvReqCondition : uint8_t {
  kAccepted,
  kProvisioned,
  kFailed,
  kBookingExpired,
  kCapacityRevoked
};
inline constexpr std::string_view kProvReqConditions[] = {"Accepted", "Provisioned", "Failed",
                                                          "BookingExpired", "CapacityRevoked"};

struct ProvisioningRequestFacts {
  std::string namespace_;
  std::string name;
  std::string provisioning_class;  // spec.provisioningClassName
  // By ProvReqCondition; an absent condition is Unknown with no reason.
  std::array<NodeClaimCondition, 5> conditions;
  const NodeClaimCondition& Condition(ProvReqCondition c) const {
    return conditions[static_cast<size_t>(c)];
  }
  // "namespace/name"
  std::string Key() const { return namespace_ + "/" + name; }
  bool operator==(const ProvisioningRequestFacts&) const = default;
};

// The ProvisioningRequests podwait watches, by "namespace/name".
struct ProvisioningRequestView {
  std::map<std::string, ProvisioningRequestFacts, std::less<>> requests;
  const ProvisioningRequestFacts* Find(std::string_view namespace_, std::string_view name) const {
    auto it = requests.find(std::string(namespace_) + "/" + std::string(name));
    return it == requests.end() ? nullptr : &it->second;
  }
};

struct AutoscalerState {
  // Per kind: detected (its status object or recent events) or forced by flag.
  PerAutoscaler<bool> detected;
  bool forced_none = false;                  // --autoscaler=none
  std::vector<NodeGroupStatus> node_groups;  // from the CA status ConfigMap
  bool cluster_scale_up_backoff = false;     // cluster-wide ScaleUp: Backoff
  // When cluster-autoscaler last wrote its status (the YAML's clusterWide.health.lastProbeTime or
  // top-level time, the text format's "Cluster-autoscaler status at <time>:"); 0: unknown.
  Timestamp ca_status_time = 0;
  // Per kind: its status object stopped moving (older than the silence grace at the evaluation).
  PerAutoscaler<bool> status_stale;
  // Karpenter's NodeClaims; nullptr when they are not watched. Compared by pointer: the store
  // hands out a new view only when a NodeClaim or a launch failure changed.
  std::shared_ptr<const NodeClaimView> nodeclaims;
  // cluster-autoscaler's ProvisioningRequests; nullptr when they are not watched. Compared by
  // pointer, like the NodeClaims.
  std::shared_ptr<const ProvisioningRequestView> provisioning_requests;
  // That autoscaler counts: detected and not switched off by --autoscaler=none.
  bool Present(AutoscalerKind k) const { return !forced_none && detected[k]; }
  bool Any() const {
    for (bool d : detected.values) {
      if (d) return !forced_none;
    }
    return false;
  }
  bool operator==(const AutoscalerState&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Classification

struct Classification {
  bool waiting = false;  // false: Ready, Succeeded, Failed or being deleted
  Stage stage = Stage::kUnscheduled;
  WaitClass wait_class = WaitClass::kScheduling;
  std::string reason;  // normalized, low-cardinality (snake_case)
  Timestamp stage_start = 0;
  // The condition or event message that decided, for humans. A relative time in it ("scale-up
  // 12m ago") is kept as kEvidenceAgo, measured from evidence_since, so that the classification
  // itself does not change with the clock: EvidenceText() writes it out at the time it is shown.
  std::string evidence;
  Timestamp evidence_since = 0;
  // The earliest time at which this classification can change with time alone (a grace or
  // timeout the classifier compared the time against runs out), 0 when none can. Until then, a
  // pod whose inputs did not change classifies the same (incremental evaluation relies on it).
  Timestamp recheck_at = 0;
  // A `dependency` / `dependency_stuck` row: the dependencies it waits on (the one not ready, or
  // every needed one when all are ready), whose waiting pods hold it (WaitingPod::held_by).
  DependencySet waits_on = {};
  bool operator==(const Classification&) const = default;
};

// Where the evidence's relative time goes (one byte that no message the classifier quotes
// carries; EvidenceText drops any further ones).
inline constexpr char kEvidenceAgo = '\x01';

// The evidence as shown at `now`: kEvidenceAgo becomes "12m0s ago".
std::string EvidenceText(const Classification& c, Timestamp now);

}  // namespace podwait
