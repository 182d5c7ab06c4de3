#pragma once

// kube-scheduler's default filter plugins, in the order it runs them, and which one wrote a
// reason of a FitError. The mixing rule of the classifier (README.md, "Mixed resource and
// constraint reasons") is a fact about this order: the scheduler reports, per node, the first
// filter that failed, so a node reported short of room (NodeResourcesFit) passed every filter
// before it and was never checked by the filters after it.
//
// Source: kubernetes/kubernetes pkg/scheduler/apis/config/v1/default_plugins.go
// (getDefaultPlugins: MultiPoint NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
// NodePorts, NodeResourcesFit, VolumeRestrictions, EBSLimits, GCEPDLimits, NodeVolumeLimits,
// AzureDiskLimits, VolumeBinding, VolumeZone, PodTopologySpread, InterPodAffinity; with
// DynamicResourceAllocation, DynamicResources before DefaultPreemption) and the failure messages
// of pkg/scheduler/framework/plugins/<plugin>/ (ErrReason* constants).

#include <cstdint>
#include <span>
#include <string_view>

#include "exporter/classify/messages.h"

namespace podwait {

enum class SchedulerFilter : uint8_t {
  kNodeUnschedulable,
  kNodeName,
  kTaintToleration,
  kNodeAffinity,
  kNodePorts,
  kNodeResourcesFit,
  kVolumeRestrictions,
  kNodeVolumeLimits,  // also EBSLimits, GCEPDLimits, AzureDiskLimits (same message)
  kVolumeBinding,
  kVolumeZone,
  kPodTopologySpread,
  kInterPodAffinity,
  kDynamicResources,
  kUnknown,  // a message no default filter writes (an out-of-tree plugin, a plugin error)
};

struct SchedulerFilterInfo {
  SchedulerFilter filter;
  std::string_view name;  // the plugin's Name (pkg/scheduler/framework/plugins/names)
  // Lower-case fragments of its failure messages (ErrReason*); a reason containing one was
  // written by this filter. Earlier rows win.
  std::span<const std::string_view> fragments;
  // Whether what it checks is about the pod's volumes (the facts a PV watch can add).
  bool volume;
};

// The default filters in run order (the table's order is the scheduler's).
std::span<const SchedulerFilterInfo> DefaultSchedulerFilters();

// The filter that wrote a reason (from its text as written); kUnknown when none of the table.
SchedulerFilter FilterOf(const FitReason& reason);
const SchedulerFilterInfo* FilterInfo(SchedulerFilter filter);

// Whether `filter` runs after NodeResourcesFit: a node reported short of room was never checked
// by it. kUnknown counts as after (nothing is known about what the node passed).
bool RunsAfterResourceFit(SchedulerFilter filter);

// Schedulers before 1.10 named a failed predicate instead of writing a message ("MatchNodeSelector
// (2)", "PodToleratesNodeTaints (1)", pkg/scheduler/algorithm/predicates/error.go): the message a
// current scheduler writes for the same check, or "" when `text` is not such a name.
std::string_view MessageForLegacyPredicate(std::string_view text);

}  // namespace podwait
