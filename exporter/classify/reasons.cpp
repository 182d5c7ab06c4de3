#include "exporter/classify/reasons.h"

#include <algorithm>

namespace podwait::reason {
namespace {

constexpr std::string_view kAll[] = {
    kInsufficientCpu,
    kInsufficientMemory,
    kInsufficientResources,
    kTooManyPods,
    kHostPortConflict,
    kNodesUnavailable,
    kNoNodes,
    kMaxNodeGroupSize,
    kMaxClusterSize,
    kNodepoolLimit,
    kScaleUpBackoff,
    kScaleUpTimeout,
    kNodeAffinity,
    kUntoleratedTaint,
    kPodAffinity,
    kPodAntiAffinity,
    kTopologySpread,
    kUnboundPvc,
    kVolumeNodeAffinity,
    kUnschedulableOther,
    kScaleUpInProgress,
    kKarpenterNominated,
    kAwaitingDecision,
    kNoSchedulerDecision,
    kSchedulingGated,
    kImagePull,
    kInvalidImage,
    kCrashLoop,
    kContainerConfig,
    kPdNotReady,
    kNoPdLeader,
    kClusterNotInitialized,
    kTikvNotReady,
    kNoTikvStoreUp,
    kDependencyReady,
    kDependencyUnknown,
    kPodInitializing,
    kContainerCreating,
    kContainerWaiting,
    kInitRunning,
    kReadinessProbe,
    kInstanceNotReady,
};

}  // namespace

std::span<const std::string_view> All() { return kAll; }

bool IsKnown(std::string_view r) {
  return std::find(std::begin(kAll), std::end(kAll), r) != std::end(kAll);
}

}  // namespace podwait::reason
