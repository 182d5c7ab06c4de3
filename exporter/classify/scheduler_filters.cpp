#include "exporter/classify/scheduler_filters.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace podwait {
namespace {

using F = SchedulerFilter;

// pkg/scheduler/framework/plugins/nodeunschedulable: "node(s) were unschedulable" (and the
// untolerated unschedulable taint, written by TaintToleration in newer releases).
constexpr std::string_view kUnschedulable[] = {"were unschedulable", "unschedulable"};
// nodename: "node(s) didn't match the requested node name".
constexpr std::string_view kNodeName[] = {"requested node name"};
// tainttoleration: "node(s) had untolerated taint {k: v}"; before 1.25 "node(s) had taint {k: v},
// that the pod didn't tolerate"; 1.6/1.7 predicate "PodToleratesNodeTaints".
constexpr std::string_view kTaint[] = {"taint", "did not tolerate", "didn't tolerate"};
// nodeaffinity: "node(s) didn't match Pod's node affinity/selector"; older "node(s) didn't match
// node selector", predicate "MatchNodeSelector".
constexpr std::string_view kNodeAffinity[] = {"node affinity", "node selector", "matchnodeselector",
                                              "nodeselector"};
// nodeports: "node(s) didn't have free ports for the requested pod ports"; "PodFitsHostPorts".
constexpr std::string_view kNodePorts[] = {"free ports", "podfitshostports"};
// noderesources/fit.go: "Insufficient <resource>", "Too many pods"; "PodFitsResources".
constexpr std::string_view kFit[] = {"insufficient ", "too many pods", "podfitsresources"};
// volumerestrictions: "node(s) had no available disk", "node has pod using PersistentVolumeClaim
// with the same name and ReadWriteOncePod access mode"; predicate "NoDiskConflict".
constexpr std::string_view kVolumeRestrictions[] = {"no available disk", "readwriteoncepod",
                                                    "nodiskconflict"};
// nodevolumelimits: "node(s) exceed max volume count"; predicates "MaxEBSVolumeCount", ...
constexpr std::string_view kVolumeLimits[] = {"max volume count", "volumecount"};
// volumebinding: "node(s) had volume node affinity conflict", "node(s) didn't find available
// persistent volumes to bind", "node(s) did not have enough free storage", and the PreFilter's
// "pod has unbound immediate PersistentVolumeClaims"; predicate "NoVolumeNodeConflict".
constexpr std::string_view kVolumeBinding[] = {
    "volume node affinity", "persistent volumes to bind",
    "enough free storage",  "unbound immediate persistentvolumeclaims",
    "volumenodeconflict",   "persistentvolumeclaim"};
// volumezone: "node(s) had no available volume zone"; predicate "NoVolumeZoneConflict".
constexpr std::string_view kVolumeZone[] = {"volume zone", "volumezone"};
// podtopologyspread: "node(s) didn't match pod topology spread constraints" (and "(missing
// required label)").
constexpr std::string_view kSpread[] = {"topology spread"};
// interpodaffinity: "node(s) didn't match pod affinity rules", "node(s) didn't match pod
// anti-affinity rules", "node(s) didn't satisfy existing pods anti-affinity rules";
// predicate "MatchInterPodAffinity".
constexpr std::string_view kInterPod[] = {"pod affinity", "anti-affinity", "interpodaffinity"};
// dynamicresources: "cannot allocate all claims", "resourceclaim not found", "waiting for
// resource driver", "unschedulable ... resourceclaim".
constexpr std::string_view kDra[] = {"allocate all claims", "resourceclaim", "resource claim",
                                     "resource driver", "deviceclass"};

constexpr std::array kFilters = {
    // DynamicResources first in this lookup only: its messages name "resourceclaim", which the
    // volume fragments must not take. The run order is kept by the enum values.
    SchedulerFilterInfo{F::kDynamicResources, "DynamicResources", kDra, false},
    SchedulerFilterInfo{F::kNodeUnschedulable, "NodeUnschedulable", kUnschedulable, false},
    SchedulerFilterInfo{F::kNodeName, "NodeName", kNodeName, false},
    SchedulerFilterInfo{F::kTaintToleration, "TaintToleration", kTaint, false},
    SchedulerFilterInfo{F::kNodeAffinity, "NodeAffinity", kNodeAffinity, false},
    SchedulerFilterInfo{F::kNodePorts, "NodePorts", kNodePorts, false},
    SchedulerFilterInfo{F::kNodeResourcesFit, "NodeResourcesFit", kFit, false},
    SchedulerFilterInfo{F::kVolumeRestrictions, "VolumeRestrictions", kVolumeRestrictions, true},
    SchedulerFilterInfo{F::kNodeVolumeLimits, "NodeVolumeLimits", kVolumeLimits, true},
    SchedulerFilterInfo{F::kVolumeBinding, "VolumeBinding", kVolumeBinding, true},
    SchedulerFilterInfo{F::kVolumeZone, "VolumeZone", kVolumeZone, true},
    SchedulerFilterInfo{F::kPodTopologySpread, "PodTopologySpread", kSpread, false},
    SchedulerFilterInfo{F::kInterPodAffinity, "InterPodAffinity", kInterPod, false},
};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::span<const SchedulerFilterInfo> DefaultSchedulerFilters() { return kFilters; }

const SchedulerFilterInfo* FilterInfo(SchedulerFilter filter) {
  for (const auto& f : kFilters) {
    if (f.filter == filter) return &f;
  }
  return nullptr;
}

SchedulerFilter FilterOf(const FitReason& reason) {
  const std::string l = Lower(reason.text);
  // "volume node affinity" is VolumeBinding's, not NodeAffinity's; "pod topology spread" is
  // PodTopologySpread's. "unschedulable" is looked at last: the unschedulable taint is
  // TaintToleration's (both run before NodeResourcesFit).
  for (const auto& f : kFilters) {
    if (f.filter == F::kNodeUnschedulable) continue;
    if (f.filter == F::kNodeAffinity && l.find("volume") != std::string::npos) continue;
    if (f.filter == F::kInterPodAffinity && l.find("topology") != std::string::npos) continue;
    for (std::string_view frag : f.fragments) {
      if (l.find(frag) != std::string::npos) return f.filter;
    }
  }
  for (std::string_view frag : kUnschedulable) {
    if (l.find(frag) != std::string::npos) return F::kNodeUnschedulable;
  }
  return F::kUnknown;
}

std::string_view MessageForLegacyPredicate(std::string_view text) {
  // pkg/scheduler/algorithm/predicates/error.go (1.6-1.9): the predicate failure reasons.
  static constexpr std::pair<std::string_view, std::string_view> kPredicates[] = {
      {"MatchNodeSelector", "node(s) didn't match node selector"},
      {"PodToleratesNodeTaints", "node(s) had taints that the pod didn't tolerate"},
      {"PodFitsHostPorts", "node(s) didn't have free ports for the requested pod ports"},
      {"HostName", "node(s) didn't match the requested node name"},
      {"NoDiskConflict", "node(s) had no available disk"},
      {"NoVolumeZoneConflict", "node(s) had no available volume zone"},
      {"NoVolumeNodeConflict", "node(s) had volume node affinity conflict"},
      {"MaxEBSVolumeCount", "node(s) exceed max volume count"},
      {"MaxGCEPDVolumeCount", "node(s) exceed max volume count"},
      {"MaxAzureDiskVolumeCount", "node(s) exceed max volume count"},
      {"MatchInterPodAffinity", "node(s) didn't match pod affinity/anti-affinity"},
      {"CheckNodeMemoryPressure", "node(s) had memory pressure"},
      {"CheckNodeDiskPressure", "node(s) had disk pressure"},
      {"CheckNodeCondition", "node(s) were not ready"},
      {"NodeNotReady", "node(s) were not ready"},
      {"NodeOutOfDisk", "node(s) were out of disk space"},
      {"NodeUnschedulable", "node(s) were unschedulable"},
  };
  for (const auto& [name, message] : kPredicates) {
    if (text == name) return message;
  }
  return {};
}

bool RunsAfterResourceFit(SchedulerFilter filter) {
  return static_cast<uint8_t>(filter) > static_cast<uint8_t>(F::kNodeResourcesFit);
}

}  // namespace podwait
