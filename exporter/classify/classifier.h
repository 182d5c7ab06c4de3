#pragma once

// The classifier (docs/DESIGN.md §4): why a pod waits. A pure function of the pod record, the
// events for it, its cluster's dependency state, the autoscaler state and the time: no I/O, no
// clock reads. Thread-safe (no shared state). README.md in this folder is the decision table as
// implemented, and names the file of each rule family.

#include <span>

#include "exporter/classify/classifier_input.h"
#include "exporter/classify/volumes.h"
#include "exporter/common/clock.h"
#include "exporter/model/types.h"
#include "exporter/model/v2.h"

namespace podwait {

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
//           instance's Ready=False reason in its evidence. A Failed pod whose instance is
//           Ready=False waits (v2 never re-creates it): stage starting, not_ready, reason
//           evicted / pod_failed, the evidence says to delete it.
//           A pod of a cluster tidb-operator v2 holds (deps->hold: paused, suspending,
//           suspended, a PD mode switch for PD and its microservices) or whose instance has a
//           planned wait (leaders evicted, store offline) is `planned`, its stage as it would
//           be, the wait it would otherwise be in kept in the evidence; past the plan's grace
//           (none for paused and suspended) `planned_stuck`. A mode switch waits for the TSO
//           and Scheduling pods rather than holding them: their own problem (capacity,
//           constraints, image, config, crashloop, volume) stays their class, the switch in the
//           evidence.
//   volumes: what is known of the pod's PersistentVolumes (local PV pinned to a node, or not);
//           nullptr when unknown. Only the mixing rule of an unscheduled pod reads it.
// Returns waiting=false for Ready (pod and, when given, instance), Succeeded, Failed (but for a
// v2 instance's, above) and deleted pods.
Classification Classify(const PodRecord& pod, std::span<const EventRecord> events,
                        const ClusterDependencies* deps, const AutoscalerState& autoscaler,
                        const ClassifierOptions& options, Timestamp now,
                        const InstanceReadiness* instance = nullptr,
                        const PodVolumeFacts* volumes = nullptr);

}  // namespace podwait
