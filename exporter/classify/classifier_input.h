#pragma once

// What the classifier (classifier.h) reads, and what every rule family shares: the knobs
// (ClassifierOptions), the context of one classification, the clock rule Past() and the
// evidence helpers. The families are files of their own beside this one (README.md, "Files").

#include <string>
#include <string_view>
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

namespace rules {

namespace r = reason;

// One classification as the rules see it: the pod, its own events, what is known around it and
// the time. Built by Classify, read by every rule family.
struct Context {
  const PodRecord& pod;
  std::vector<const EventRecord*> events;  // this pod's, oldest first by `last`
  const ClusterDependencies* deps;
  const AutoscalerState& autoscaler;
  const ClassifierOptions& opt;
  Timestamp now;
  const PodVolumeFacts* volumes = nullptr;  // nullptr: unknown
  // The earliest time a comparison made so far (Past) will answer differently; 0: none.
  mutable Timestamp recheck_at = 0;
};

// Whether more than `limit` has passed since `since` — the one way the classifier looks at the
// clock. Once true it stays true; while false, the time it turns true is remembered in the
// context, so the classification knows when it must be looked at again (recheck_at).
bool Past(const Context& ctx, Timestamp since, Timestamp limit);

// " <t> ago" in evidence: the marker, measured from evidence_since (EvidenceText).
inline constexpr char kAgo[] = {kEvidenceAgo, '\0'};

// The evidence cut to kMaxEvidenceLength, at a UTF-8 boundary.
std::string Cut(std::string s);

// A waiting classification; `evidence_since` is kept only when the evidence has kAgo.
Classification Waiting(Stage stage, WaitClass c, std::string_view why, Timestamp start,
                       std::string evidence, Timestamp evidence_since = 0);
Classification NotWaiting(std::string evidence);

inline bool IsTrue(const PodCondition* c) {
  return c != nullptr && c->status == ConditionStatus::kTrue;
}

// "TriggeredScaleUp: pod triggered scale-up: ..."
inline std::string EventEvidence(const EventRecord& e) { return e.reason + ": " + e.message; }

}  // namespace rules
}  // namespace podwait
