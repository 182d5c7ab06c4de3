#include "exporter/model/v2.h"

namespace podwait::v2 {

const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const std::vector<Kind>& Kinds() {
  // Plural names as the CRDs declare them (manifests/crd/core.pingcap.com_<plural>.yaml);
  // component names as api/meta/v1alpha1/types.go. Older v2 releases call the PD scheduling
  // microservice Scheduling (component "scheduling"), newer ones Scheduler ("scheduler").
  static const std::vector<Kind> kinds = {
      {"PD", "PDGroup", "pds", "pdgroups", "pd"},
      {"TiKV", "TiKVGroup", "tikvs", "tikvgroups", "tikv"},
      {"TiDB", "TiDBGroup", "tidbs", "tidbgroups", "tidb"},
      {"TiFlash", "TiFlashGroup", "tiflashes", "tiflashgroups", "tiflash"},
      {"TiCDC", "TiCDCGroup", "ticdcs", "ticdcgroups", "ticdc"},
      {"TSO", "TSOGroup", "tsos", "tsogroups", "tso"},
      {"Scheduling", "SchedulingGroup", "schedulings", "schedulinggroups", "scheduling"},
      {"Scheduler", "SchedulerGroup", "schedulers", "schedulergroups", "scheduler"},
  };
  return kinds;
}

const Kind* FindKind(std::string_view kind) {
  for (const auto& k : Kinds()) {
    if (k.instance_kind == kind || k.group_kind == kind) return &k;
  }
  return nullptr;
}

std::string PodNameOf(std::string_view instance_name, std::string_view component) {
  size_t dash = instance_name.rfind('-');
  if (dash == std::string_view::npos || component.empty()) return {};
  std::string out(instance_name.substr(0, dash));
  out += '-';
  out += component;
  out += instance_name.substr(dash);
  return out;
}

std::string InstanceNameOfPod(std::string_view pod_name, std::string_view component) {
  size_t dash = pod_name.rfind('-');
  if (dash == std::string_view::npos || component.empty()) return {};
  std::string_view head = pod_name.substr(0, dash);  // <prefix>-<component>
  if (head.size() <= component.size() + 1) return {};
  if (head.substr(head.size() - component.size()) != component) return {};
  if (head[head.size() - component.size() - 1] != '-') return {};
  std::string out(head.substr(0, head.size() - component.size() - 1));
  out += pod_name.substr(dash);
  return out;
}

OperatorHold HoldOf(const Cluster* cluster, const std::vector<const Group*>& pd_groups) {
  OperatorHold h;
  if (cluster != nullptr) {
    h.paused = cluster->paused;
    if (cluster->suspend_compute) {
      const Condition* s = FindCondition(cluster->conditions, "Suspended");
      h.suspended = s != nullptr && s->status == ConditionStatus::kTrue;
      h.suspending = !h.suspended;
    }
  }
  for (const Group* g : pd_groups) {
    const Condition* m = FindCondition(g->conditions, "ModeSwitching");
    if (m == nullptr || m->status != ConditionStatus::kTrue) continue;
    h.mode_switch = m->reason.empty() ? "ModeSwitching" : m->reason;
    h.mode_switch_since = m->last_transition;
    break;
  }
  return h;
}

}  // namespace podwait::v2
