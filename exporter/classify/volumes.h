#pragma once

// What is known of an unscheduled pod's volumes, for the mixing rule (scheduler_filters.h): a
// volume filter (VolumeBinding, VolumeZone, ...) runs after NodeResourcesFit, so a node reported
// short of room was never checked against the pod's volumes. Whether a new node could ever host
// the pod then depends on the volume: a local PersistentVolume (node affinity on
// kubernetes.io/hostname) is pinned to one node, a zonal one is not. The facts come from the
// PVC/PV watch (state/volume_store.h); without them the pinning is unknown.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/classify/messages.h"
#include "exporter/model/types.h"

namespace podwait {

enum class VolumePinning : uint8_t {
  kUnknown,  // no PVC/PV facts (no watch, a PVC not bound yet, a PV not seen)
  kNode,     // a bound PV's required node affinity names one kubernetes.io/hostname
  kNotNode,  // every bound PV is reachable from more than one node (zonal, network storage)
};

struct PodVolumeFacts {
  VolumePinning pinning = VolumePinning::kUnknown;
  std::string volume;  // for kNode: the PV; "" otherwise
  std::string node;    // for kNode: the node it is pinned to
};

// The scheduler's verdict, decided by a constraint despite resource reasons in the same message.
struct MixedConstraint {
  std::string_view reason;  // reason::k*
  std::string note;         // why the constraint decides (for the evidence)
};

// The mixing rule (README.md, "Mixed resource and constraint reasons") for a FitError that has
// resource reasons. nullopt: the resources decide (`capacity`). Otherwise the constraint that
// excludes every node:
//  - every node reported it (older schedulers listed all failures of each node), or
//  - a volume filter, which runs after NodeResourcesFit, failed beside resource reasons and the
//    pod's volume is pinned to one node, or its pinning is unknown (a node short of room was never
//    checked against the volume: `capacity` would page for nodes that cannot help).
std::optional<MixedConstraint> ConstraintDecidesMix(const FitError& fit,
                                                    const PodVolumeFacts* volumes);

// A pod whose containers have not started because a volume cannot be attached or mounted, or its
// sandbox cannot be created. Wordings (the event reasons of pkg/kubelet/events/event.go):
//  - FailedAttachVolume "Multi-Attach error for volume \"pvc-...\" Volume is already exclusively
//    attached to one node and can't be attached to another" (the attach-detach controller,
//    pkg/controller/volume/attachdetach/reconciler/reconciler.go): volume_multi_attach; other
//    FailedAttachVolume ("AttachVolume.Attach failed for volume ..."): volume_attach_failed.
//  - FailedMount "Unable to attach or mount volumes: unmounted volumes=[...], unattached
//    volumes=[...]: timed out waiting for the condition" (the kubelet's volume manager,
//    pkg/kubelet/volumemanager/volume_manager.go; "context deadline exceeded" in newer
//    releases): volume_mount_timeout; other FailedMount ("MountVolume.SetUp failed for volume
//    ..."): volume_mount_failed.
//  - FailedCreatePodSandBox "Failed to create pod sandbox: rpc error: ..." (the kubelet's
//    kuberuntime, CNI errors among them), or the pod's PodReadyToStartContainers (PodHasNetwork
//    before 1.29) condition False: sandbox_creation.
struct VolumeWait {
  std::string_view reason;  // reason::k*
  std::string evidence;     // the event, quoted ("FailedMount: Unable to ..."), or the condition
  bool from_event = false;  // false: only the sandbox condition says so
};

// The newest such event of this stage (its `last` not before `stage_start`), else the sandbox
// condition; nullopt when a container of the pod runs or ran (its volumes and sandbox were set up)
// or nothing says so. `events` are the pod's own.
std::optional<VolumeWait> FindVolumeWait(const PodRecord& pod,
                                         const std::vector<const EventRecord*>& events,
                                         Timestamp stage_start);

}  // namespace podwait
