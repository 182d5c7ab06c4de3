#pragma once

// The classifier (docs/DESIGN.md §4): why a pod waits. A pure function of the pod record, the
// events for it, its cluster's dependency state, the autoscaler state and the time: no I/O, no
// clock reads. Thread-safe (no shared state). README.md in this folder is the decision table as
// implemented.

#include <map>
#include <span>
#include <string>
#include <vector>

#include "exporter/classify/volumes.h"
#include "exporter/common/clock.h"
#include "exporter/model/types.h"
#include "exporter/model/v2.h"

namespace podwait {

// The classification knobs. Defaults equal Config's (exporter/config/config.h); the exporter maps
// its Config onto this (podwait_classify does not depend on podwait_config).
struct ClassifierOptions {
  // An unschedulable pod is `scheduling` this long while an autoscaler is present (it has not
  // decided yet). A pod without a PodScheduled verdict is `scheduling` regardless; after this
  // long its reason becomes no_scheduler_decision.
  Timestamp decision_grace = kDefaultDecisionGrace;
  // A scale-up (TriggeredScaleUp, Karpenter nomination) older than this has failed: `capacity`,
  // reason scale_up_timeout. cluster-autoscaler's --max-node-provision-time defaults to 15m.
  Timestamp provision_timeout = kDefaultProvisionTimeout;
  // An autoscaler present but without a verdict on a pod short of resources for this long, or
  // whose status is older than this, is silent (autoscaler_silent).
  Timestamp silence_grace = kDefaultSilenceGrace;
  // A pod still waiting this long after its dependencies became ready is `dependency_stuck`; a
  // freshly started pod is `starting` this long before a failing readiness probe is `not_ready`.
  Timestamp dependency_ready_grace = kDefaultDependencyReadyGrace;
  // A running PD member that is not Ready while PD has no leader or is not initialized is forming
  // its quorum: `starting`/pd_bootstrap this long from its stage start, then
  // `not_ready`/pd_no_quorum (--pd.bootstrap-grace).
  Timestamp pd_bootstrap_grace = kDefaultPdBootstrapGrace;
  // A pod whose containers are held back by a volume (multi-attach, attach or mount failure) or
  // its sandbox is `starting` this long from its stage start, then `volume`: the attach-detach
  // controller force-detaches a volume still attached elsewhere after 6 minutes
  // (maxWaitForUnmountDuration) and the kubelet waits about 2 more to mount it; a volume not
  // attached and mounted by then will not be without help.
  Timestamp volume_grace = 8 * kMinute;
  // Init containers that wait for a dependency (wait-for-pd and the like).
  std::vector<std::string> dependency_init_containers = {
      std::string(kDefaultDependencyInitContainer)};
  // component -> the dependencies it waits for (--dependency.map).
  DependencyMap dependency_map = DefaultDependencyMap();
  // Planned waits of tidb-operator v2 (README.md, "Planned waits"): `planned` this long, then
  // `planned_stuck` (--v2.mode-switch-grace, --v2.leader-eviction-grace,
  // --v2.store-offline-grace). A paused or suspended cluster has no grace.
  Timestamp mode_switch_grace = kDefaultModeSwitchGrace;
  Timestamp leader_eviction_grace = kDefaultLeaderEvictionGrace;
  Timestamp store_offline_grace = kDefaultStoreOfflineGrace;
};

// Evidence is cut to this many bytes (at a UTF-8 boundary).
inline constexpr size_t kMaxEvidenceLength = 512;

// Classifies one pod at `now`.
//   events: the events whose involvedObject is this pod (any order); events of an earlier pod with
//           the same name (another uid, or older than the pod) are ignored.
//   deps:   the pod's TiDB cluster's dependency state; nullptr when the cluster is unknown (every
//           dependency then counts as unknown).
//   instance: the Ready condition of the pod's tidb-operator v2 instance CR; nullptr when the pod
//           has none (v1) or it is not known. A Ready pod whose instance holds it back
//           (InstanceHoldsBackReadyPod: Ready=False InstanceNotHealthy or an unknown reason) is
//           waiting (stage starting from the condition's lastTransitionTime, classified like a
//           running pod that is not ready, reason instance_not_healthy / instance_not_ready when
//           no dependency explains it); the pod reasons (PodNotReady, ...) on a Ready pod are the
//           operator's stale view: not waiting. A waiting pod that is not Ready itself gets the
//           instance's Ready=False reason in its evidence.
//           A pod of a cluster tidb-operator v2 holds (deps->hold: paused, suspending,
//           suspended, a PD mode switch for PD and its microservices) or whose instance has a
//           planned wait (leaders evicted, store offline) is `planned`, its stage as it would
//           be, the wait it would otherwise be in kept in the evidence; past the plan's grace
//           (none for paused and suspended) `planned_stuck`.
//   volumes: what is known of the pod's PersistentVolumes (local PV pinned to a node, or not);
//           nullptr when unknown. Only the mixing rule of an unscheduled pod reads it.
// Returns waiting=false for Ready (pod and, when given, instance), Succeeded, Failed and deleted
// pods.
Classification Classify(const PodRecord& pod, std::span<const EventRecord> events,
                        const ClusterDependencies* deps, const AutoscalerState& autoscaler,
                        const ClassifierOptions& options, Timestamp now,
                        const InstanceReadiness* instance = nullptr,
                        const PodVolumeFacts* volumes = nullptr);

}  // namespace podwait
