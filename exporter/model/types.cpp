#include "exporter/model/types.h"

#include "exporter/common/time_format.h"
#include "exporter/model/v2.h"

namespace podwait {
const std::vector<ComponentInfo>& Components() {
  static const std::vector<ComponentInfo> components = [] {
    std::vector<ComponentInfo> out;
    for (const v2::Kind& k : v2::Kinds()) out.push_back({k.component, k.needs});
    // tidb-operator v1's own: Pump writes binlogs to PD's cluster (waits for PD); the rest serve
    // the cluster from outside it.
    using enum Dependency;
    for (ComponentInfo c : std::initializer_list<ComponentInfo>{{"pump", {kPd}, true},
                                                                {"discovery", {}, false},
                                                                {"monitor", {}, false},
                                                                {"ng-monitoring", {}, false},
                                                                {"tidb-dashboard", {}, false},
                                                                {"initializer", {}, false}}) {
      out.push_back(std::move(c));
    }
    return out;
  }();
  return components;
}

std::string_view ComponentLabel(std::string_view component) {
  if (component.empty()) return {};
  for (const ComponentInfo& c : Components()) {
    if (c.name == component) return c.name;
  }
  return kOtherComponent;
}

PodOwner PodOwnerOf(std::string_view app_name, std::string_view component) {
  // Discovery (a TidbCluster's or a DMCluster's), monitor, ng-monitoring, tidb-dashboard,
  // initializer: by component, whatever the name label says.
  for (const ComponentInfo& c : Components()) {
    if (c.name == component && !c.of_cluster) return PodOwner::kNotACluster;
  }
  // label.NewDM(): a DMCluster's dm-master and dm-worker pods.
  if (app_name == "dm-cluster") return PodOwner::kDmCluster;
  // label.NewTiDBNGMonitoring(), NewTiDBDashboard(), NewGroup() (a TidbClusterGroup) and the
  // backup tools' labels (NewBackup(), NewRestore(), NewBackupSchedule()): never a cluster's pods.
  for (std::string_view other : {"tidb-ng-monitoring", "tidb-dashboard", "tidb-cluster-group",
                                 "backup", "restore", "backup-schedule"}) {
    if (app_name == other) return PodOwner::kNotACluster;
  }
  return PodOwner::kTidbCluster;
}

const DependencyMap& DefaultDependencyMap() {
  static const DependencyMap map = [] {
    DependencyMap m;
    for (const ComponentInfo& c : Components()) {
      if (!c.needs.empty()) m[std::string(c.name)] = c.needs;
    }
    return m;
  }();
  return map;
}

std::string EvidenceText(const Classification& c, Timestamp now) {
  const size_t at = c.evidence.find(kEvidenceAgo);
  if (at == std::string::npos) return c.evidence;
  std::string out = c.evidence.substr(0, at);
  out += FormatDuration(now > c.evidence_since ? now - c.evidence_since : 0) + " ago";
  for (size_t i = at + 1; i < c.evidence.size(); ++i) {
    if (c.evidence[i] != kEvidenceAgo) out += c.evidence[i];
  }
  return out;
}

std::vector<std::string_view> HoldNames(const OperatorHold& hold) {
  std::vector<std::string_view> out;
  if (hold.paused) out.push_back("paused");
  if (hold.suspending) out.push_back("suspending");
  if (hold.suspended) out.push_back("suspended");
  if (!hold.mode_switch.empty()) out.push_back("pd_mode_switch");
  return out;
}

}  // namespace podwait
