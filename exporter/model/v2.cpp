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
  // What each waits for, and how it behaves meanwhile, is read in its start-up: docs/DESIGN.md §4
  // ("v2 components") says where.
  using enum Dependency;
  using enum StartUp;
  // clang-format off
  static const std::vector<Kind> kinds = {
      {"PD", "PDGroup", "pds", "pdgroups", "pd", {}, kOwnQuorum},
      // TiKV's PD client gives up ("PD cluster failed to respond"); TiDB too ("PD server timeout").
      {"TiKV", "TiKVGroup", "tikvs", "tikvgroups", "tikv", {kPd}, kExits},
      // With PD microservices (PDGroup mode ms) TiDB and TiCDC take their timestamps from the TSO
      // primary, which their PD client finds through PD (tidb: path = status.pd,
      // pkg/configs/tidb/config.go; ticdc: `/cdc server --pd status.pd`,
      // pkg/controllers/ticdc/tasks/pod.go): tso is theirs in such a cluster only. TiFlash is
      // pointed at PD only (raft.pd_addr, pkg/configs/tiflash/config.go): its start-up
      // registers its store and takes no timestamp of its own; tso is not its dependency.
      {"TiDB", "TiDBGroup", "tidbs", "tidbgroups", "tidb", {kPd, kTso, kTikv}, kExits},
      {"TiFlash", "TiFlashGroup", "tiflashes", "tiflashgroups", "tiflash", {kPd, kTikv}, kNotReady},
      {"TiCDC", "TiCDCGroup", "ticdcs", "ticdcgroups", "ticdc", {kPd, kTso, kTikv}, kNotReady},
      // PD microservices: backend-endpoints is the PD service (pkg/configs/<component>/config.go);
      // `pd-server services <name>` reads the cluster id and joins its primary election through
      // PD's etcd at start, and exits when it cannot.
      {"TSO", "TSOGroup", "tsos", "tsogroups", "tso", {kPd}, kExits},
      {"Scheduling", "SchedulingGroup", "schedulings", "schedulinggroups", "scheduling", {kPd},
       kExits},
      {"Scheduler", "SchedulerGroup", "schedulers", "schedulergroups", "scheduler", {kPd}, kExits},
      {"ResourceManager", "ResourceManagerGroup", "resourcemanagers", "resourcemanagergroups",
       "resource-manager", {kPd}, kExits},
      {"Router", "RouterGroup", "routers", "routergroups", "router", {kPd}, kExits},
      // TiKV's worker: pd.endpoints is status.pd, TiKV's PD client, which gives up as TiKV's does.
      {"TiKVWorker", "TiKVWorkerGroup", "tikvworkers", "tikvworkergroups", "tikv-worker", {kPd},
       kExits},
      // pd-addrs is status.pd, but TiProxy's etcd client to PD dials lazily: it listens and
      // answers /api/debug/health without PD.
      {"TiProxy", "TiProxyGroup", "tiproxies", "tiproxygroups", "tiproxy", {}, kRegardless},
      // DM masters form their own etcd quorum (initial-cluster / join among DM instances), no PD.
      {"DM", "DMGroup", "dms", "dmgroups", "dm-master", {}, kOwnQuorum},
      // dm-worker registers with the DM masters (join) at start and exits when none answers.
      {"DMWorker", "DMWorkerGroup", "dmworkers", "dmworkergroups", "dm-worker", {kDmMaster},
       kExits},
  };
  // clang-format on
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

bool InPdMicroservicesMode(const std::vector<const Group*>& pd_groups) {
  for (const Group* g : pd_groups) {
    if (g->pd_mode == "ms" && g->pd_status_mode == "ms") return true;
  }
  return false;
}

}  // namespace podwait::v2

namespace podwait {

bool InstanceHoldsBackReadyPod(const InstanceReadiness& instance) {
  if (instance.ready != ConditionStatus::kFalse) return false;
  return instance.reason != kInstancePodNotCreated && instance.reason != kInstancePodTerminating &&
         instance.reason != kInstancePodNotReady;
}

}  // namespace podwait
