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

#include "exporter/classify/messages.h"

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

}  // namespace podwait
