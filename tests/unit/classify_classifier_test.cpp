// The classifier, table-driven. Every row is a pod document: a real one from
// tests/fixtures/real/k8s/, a made-up one from tests/fixtures/made-up/classify/ (see its
// SOURCES.txt) or a made-up tidb-operator v2 pod from tests/fixtures/v2/pods/ (see its README.md,
// which names the v2 source file each follows), optionally patched in YAML before it is turned
// into a PodRecord by the pod source's parser (only the fields classification needs). Rows whose
// patch makes them differ from the document say what they change. Event messages are the
// real-shaped ones of classify_messages_test.cpp (each cited there).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "exporter/classify/classifier.h"
#include "exporter/classify/event_normalizer.h"
#include "exporter/classify/volumes.h"
#include "exporter/common/time_format.h"
#include "exporter/model/vocabulary.h"
#include "exporter/sources/pods.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

namespace r = reason;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------------
// YAML pod document -> PodRecord: the pod source's own parser (sources/pods.h), full records.

// A scalar a patch set from a number (`c["restartCount"] = 7`) has no tag; mark the integers
// plain, as they would be in a document, so they convert to JSON numbers.
void MarkPatchedIntegers(YAML::Node node) {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    const size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
    if (node.Tag().empty() && s.size() > sign &&
        s.find_first_not_of("0123456789", sign) == std::string::npos) {
      node.SetTag("?");
    }
  } else if (node.IsSequence()) {
    for (YAML::Node child : node) MarkPatchedIntegers(child);
  } else if (node.IsMap()) {
    for (auto kv : node) MarkPatchedIntegers(kv.second);
  }
}

PodRecord PodFromYaml(const YAML::Node& doc) {
  MarkPatchedIntegers(doc);
  rapidjson::Document json;
  testing::YamlToJson(doc, &json, json.GetAllocator());
  PodParseOptions options;
  options.compact_ready = false;
  Result<PodRecord> parsed = ParsePod(json, options);
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return *parsed;
}

// ---------------------------------------------------------------------------------------------
// Documents and patches

constexpr const char* kUnsched = "tests/fixtures/made-up/classify/tikv-unschedulable.yaml";
constexpr const char* kInit = "tests/fixtures/made-up/classify/tidb-init-wait-for-pd.yaml";
constexpr const char* kRunning = "tests/fixtures/made-up/classify/tikv-running-not-ready.yaml";
constexpr const char* kReady = "tests/fixtures/made-up/classify/tikv-ready.yaml";
constexpr const char* kVolumePod =
    "tests/fixtures/made-up/classify/tikv-containercreating-volume.yaml";
constexpr const char* kRealTaint =
    "tests/fixtures/real/k8s/pod-pending-unschedulable-autoscaler-taint.status.yaml";
constexpr const char* kRealPvc =
    "tests/fixtures/real/k8s/pod-pending-unschedulable-unbound-pvc.status.yaml";
constexpr const char* kRealPurple = "tests/fixtures/real/k8s/pod-stuck-in-init-purple.yaml";
// tidb-operator v2 pods (made up, JSON as the API server returns them;
// tests/fixtures/v2/README.md).
constexpr const char* kV2TikvCrash = "tests/fixtures/v2/pods/tikv-crashloop-no-pd-leader.json";
constexpr const char* kV2TidbCrash = "tests/fixtures/v2/pods/tidb-crashloop-no-pd-leader.json";
constexpr const char* kV2TidbRunning = "tests/fixtures/v2/pods/tidb-running-not-ready.json";
constexpr const char* kV2TikvReady = "tests/fixtures/v2/pods/tikv-ready-instance-not-ready.json";
constexpr const char* kV2PdRunning = "tests/fixtures/v2/pods/pd-running-not-ready-no-leader.json";
constexpr const char* kV2TikvWorkerCrash =
    "tests/fixtures/v2/pods/tikv-worker-crashloop-no-pd-leader.json";
constexpr const char* kV2RmCrash =
    "tests/fixtures/v2/pods/resource-manager-crashloop-no-pd-leader.json";
constexpr const char* kV2RouterCrash = "tests/fixtures/v2/pods/router-crashloop-no-pd-leader.json";
constexpr const char* kV2DmWorkerCrash =
    "tests/fixtures/v2/pods/dm-worker-crashloop-no-dm-master.json";
constexpr const char* kV2TiproxyReady = "tests/fixtures/v2/pods/tiproxy-ready.json";
constexpr const char* kV2TikvEvicted = "tests/fixtures/v2/pods/tikv-evicted.json";

Timestamp V2At(const std::string& hhmmss) {
  return ParseRfc3339("2025-03-10T" + hhmmss + "Z").value();
}

Timestamp At(const std::string& hhmmss) {
  return ParseRfc3339("2024-05-02T" + hhmmss + "Z").value();
}

using Patch = std::function<void(YAML::Node&)>;

YAML::Node ConditionNode(YAML::Node doc, const std::string& type) {
  YAML::Node conds = doc["status"]["conditions"];
  for (size_t i = 0; i < conds.size(); ++i) {
    if (conds[i]["type"].as<std::string>() == type) return conds[i];
  }
  YAML::Node c;
  c["type"] = type;
  conds.push_back(c);
  return conds[conds.size() - 1];
}

// The scheduler's message on PodScheduled.
Patch FitMessage(std::string message) {
  return [message](YAML::Node& d) { ConditionNode(d, "PodScheduled")["message"] = message; };
}
Patch Condition(std::string type, std::string status, std::string reason, std::string message,
                std::string ltt) {
  return [=](YAML::Node& d) {
    YAML::Node c = ConditionNode(d, type);
    c["status"] = status;
    c["reason"] = reason;
    c["message"] = message;
    c["lastTransitionTime"] = ltt;
  };
}
Patch NoConditions() {
  return [](YAML::Node& d) { d["status"].remove("conditions"); };
}
// status.{initContainerStatuses,containerStatuses}[i].state (a YAML flow mapping), restartCount.
Patch State(const char* list, size_t i, std::string state, int restarts = 0) {
  return [=](YAML::Node& d) {
    YAML::Node c = d["status"][list][i];
    c["state"] = YAML::Load(state);
    c["restartCount"] = restarts;
  };
}
Patch InitState(std::string state, int restarts = 0) {
  return State("initContainerStatuses", 0, std::move(state), restarts);
}
Patch MainState(std::string state, int restarts = 0) {
  return State("containerStatuses", 0, std::move(state), restarts);
}
Patch RenameMain(std::string name) {
  return [name](YAML::Node& d) {
    d["spec"]["containers"][0]["name"] = name;
    d["status"]["containerStatuses"][0]["name"] = name;
  };
}
// A second main container (a sidecar) with that state, in spec and status.
Patch AddSidecar(std::string name, std::string state) {
  return [=](YAML::Node& d) {
    YAML::Node spec;
    spec["name"] = name;
    spec["image"] = "busybox:1.36";
    d["spec"]["containers"].push_back(spec);
    YAML::Node st;
    st["name"] = name;
    st["ready"] = false;
    st["restartCount"] = 0;
    st["state"] = YAML::Load(state);
    d["status"]["containerStatuses"].push_back(st);
  };
}
// A native sidecar (an init container with restartPolicy: Always, Kubernetes 1.29+), with that
// state, in spec and status: the kubelet starts it before the main containers and keeps it running.
Patch AddNativeSidecar(std::string name, std::string state) {
  return [=](YAML::Node& d) {
    YAML::Node spec;
    spec["name"] = name;
    spec["image"] = "busybox:1.36";
    spec["restartPolicy"] = "Always";
    d["spec"]["initContainers"].push_back(spec);
    YAML::Node st;
    st["name"] = name;
    st["ready"] = false;
    st["restartCount"] = 0;
    st["started"] = true;
    st["state"] = YAML::Load(state);
    d["status"]["initContainerStatuses"].push_back(st);
  };
}
Patch RenameInit(std::string name) {
  return [name](YAML::Node& d) {
    d["spec"]["initContainers"][0]["name"] = name;
    d["status"]["initContainerStatuses"][0]["name"] = name;
  };
}
Patch Component(std::string c) {
  return [c](YAML::Node& d) {
    if (c.empty()) {
      d["metadata"]["labels"].remove("app.kubernetes.io/component");
    } else {
      d["metadata"]["labels"]["app.kubernetes.io/component"] = c;
    }
  };
}
Patch Field(std::vector<std::string> path, std::string value) {
  return [=](YAML::Node& d) {
    YAML::Node n = d;
    for (size_t i = 0; i + 1 < path.size(); ++i) n.reset(n[path[i]]);
    n[path.back()] = value;
  };
}
Patch Remove(std::vector<std::string> path) {
  return [=](YAML::Node& d) {
    YAML::Node n = d;
    for (size_t i = 0; i + 1 < path.size(); ++i) n.reset(n[path[i]]);
    n.remove(path.back());
  };
}
// The status-only real fixtures get the metadata of a tidb-operator TiKV pod.
Patch TikvMetadata(std::string created) {
  return [created](YAML::Node& d) {
    d["metadata"] = YAML::Load(
        "{name: demo-tikv-3, namespace: tidb, uid: 5e0f4a23-1b7c-4d6e-9f80-b2c3d4e5f005, "
        "labels: {app.kubernetes.io/component: tikv, app.kubernetes.io/instance: demo, "
        "app.kubernetes.io/managed-by: tidb-operator}}");
    d["metadata"]["creationTimestamp"] = created;
  };
}

// ---------------------------------------------------------------------------------------------
// Dependencies, autoscaler, events

DependencyStatus Ready(Timestamp since) {
  return {Readiness::kReady, since, DependencyReason::kNone};
}
DependencyStatus NotReady(std::string_view why = "") {
  return {Readiness::kNotReady, 0, ParseDependencyReason(why)};
}
DependencyStatus Unknown() {
  return {Readiness::kUnknown, 0, DependencyReason::kDependencyUnknown};
}
ClusterDependencies Deps(DependencyStatus pd, DependencyStatus tikv) {
  ClusterDependencies d;
  d.pd = pd;
  d.tikv = tikv;
  return d;
}
// PD down brings TiKV down with it.
ClusterDependencies PdDown(std::string why = "") {
  return Deps(NotReady(why), NotReady("tikv_not_ready"));
}
ClusterDependencies AllReady(Timestamp since) { return Deps(Ready(since), Ready(since)); }
// PD and TiKV ready since `since`; the DM masters as given.
ClusterDependencies WithDmMaster(DependencyStatus dm, Timestamp since) {
  ClusterDependencies d = AllReady(since);
  d.dm_master = dm;
  return d;
}
// PD and TiKV ready since `since`; the TSO instances (PD microservices mode) as given.
ClusterDependencies WithTso(DependencyStatus tso, Timestamp since) {
  ClusterDependencies d = AllReady(since);
  d.tso = tso;
  return d;
}

constexpr const char* kThisPod = "";  // the row's pod uid
constexpr const char* kNoUid = "-";   // an event without involvedObject.uid
constexpr const char* kOtherPod = "0c1d2e3f-aaaa-4bbb-8ccc-000000000099";  // a previous incarnation

struct RowEvent {
  std::string reason, source, message;
  Timestamp first = 0, last = 0;
  int count = 1;
  std::string uid = kThisPod;
};

// Real-shaped messages (sources in classify_messages_test.cpp).
const std::string kTriggered = "pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)}]";
const std::string kFit3Mem =
    "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No "
    "preemption victims found for incoming pod.";

struct Row {
  std::string name;
  std::string doc;
  std::vector<Patch> patches;
  std::vector<RowEvent> events;
  std::optional<ClusterDependencies> deps = AllReady(At("09:00:00"));
  AutoscalerState autoscaler;
  std::function<void(ClassifierOptions&)> options;
  std::optional<InstanceReadiness> instance;  // the pod's v2 instance's Ready condition
  std::optional<PodVolumeFacts> volumes;      // what the PVC/PV watch knows of its volumes
  Timestamp now = 0;
  // expected
  bool waiting = true;
  Stage stage = Stage::kUnscheduled;
  WaitClass wait_class = WaitClass::kScheduling;
  std::string reason;
  Timestamp stage_start = 0;
  std::string evidence;  // a substring of the evidence

  Row(std::string n, std::string d) : name(std::move(n)), doc(std::move(d)) {}
  Row& With(Patch p) {
    patches.push_back(std::move(p));
    return *this;
  }
  Row& Ev(std::string reason_, std::string source, std::string message, Timestamp first,
          Timestamp last = 0, int count = 1, std::string uid = kThisPod) {
    events.push_back({std::move(reason_), std::move(source), std::move(message), first,
                      last != 0 ? last : first, count, std::move(uid)});
    return *this;
  }
  Row& WithDeps(ClusterDependencies d) {
    deps = d;
    return *this;
  }
  Row& NoCluster() {
    deps.reset();
    return *this;
  }
  Row& Ca() {
    autoscaler.detected[AutoscalerKind::kClusterAutoscaler] = true;
    return *this;
  }
  Row& Karpenter() {
    autoscaler.detected[AutoscalerKind::kKarpenter] = true;
    return *this;
  }
  Row& ForcedNone() {
    autoscaler.forced_none = true;
    return *this;
  }
  Row& Group(std::string group, bool in_progress, bool backoff, std::string code = "",
             std::string message = "") {
    autoscaler.node_groups.push_back(
        {std::move(group), in_progress, backoff, std::move(code), std::move(message)});
    return *this;
  }
  // Karpenter's NodeClaims are watched and listed (a claim named by a nomination but not here
  // is gone).
  Row& NodeClaimsWatched() {
    EditClaims();
    return *this;
  }
  // A NodeClaim whose conditions Launched, Registered, Initialized have these statuses; the
  // first that is not True has `reason` and `message`.
  Row& NodeClaim(std::string claim, std::array<ConditionStatus, 3> stages, std::string why = "",
                 std::string message = "", bool deleting = false) {
    NodeClaimFacts nc;
    nc.name = claim;
    nc.nodepool = "default";
    nc.deleting = deleting;
    bool first = true;
    for (size_t i = 0; i < 3; ++i) {
      nc.stages[i].status = stages[i];
      if (stages[i] != ConditionStatus::kTrue && first) {
        nc.stages[i].reason = why;
        nc.stages[i].message = message;
        first = false;
      }
    }
    EditClaims().claims.insert_or_assign(std::move(claim), std::move(nc));
    return *this;
  }
  Row& LaunchFailure(std::string claim, std::string why, std::string message) {
    EditClaims().failures.insert_or_assign(
        claim, NodeClaimFailure{claim, std::move(why), std::move(message), At("10:00:08")});
    return *this;
  }
  NodeClaimView& EditClaims() {
    auto v = autoscaler.nodeclaims ? std::make_shared<NodeClaimView>(*autoscaler.nodeclaims)
                                   : std::make_shared<NodeClaimView>();
    v->synced = true;
    autoscaler.nodeclaims = v;
    return *v;
  }
  // The pod consumes the ProvisioningRequest `request` (its annotation; `deprecated_key`: the
  // cluster-autoscaler.kubernetes.io/ one Kueue wrote before).
  Row& Consumes(std::string request, bool deprecated_key = false) {
    const char* key = deprecated_key
                          ? "cluster-autoscaler.kubernetes.io/consume-provisioning-request"
                          : "autoscaling.x-k8s.io/consume-provisioning-request";
    return With([request, key](YAML::Node& d) { d["metadata"]["annotations"][key] = request; });
  }
  // ProvisioningRequests are watched; `request` (in the pod's namespace) has these conditions
  // True (an Accepted one also has Provisioned=False CapacityIsNotFound unless Provisioned is
  // among them).
  Row& ProvReq(std::string request, std::vector<ProvReqCondition> true_conditions,
               std::string why = "", std::string message = "") {
    auto v = autoscaler.provisioning_requests
                 ? std::make_shared<ProvisioningRequestView>(*autoscaler.provisioning_requests)
                 : std::make_shared<ProvisioningRequestView>();
    if (!request.empty()) {
      ProvisioningRequestFacts pr;
      pr.namespace_ = "tidb";
      pr.name = std::move(request);
      auto& provisioned = pr.conditions[static_cast<size_t>(ProvReqCondition::kProvisioned)];
      provisioned = {ConditionStatus::kFalse, "CapacityIsNotFound",
                     "Capacity is not found, CA will try to find it later.", At("10:00:10")};
      for (ProvReqCondition c : true_conditions) {
        pr.conditions[static_cast<size_t>(c)] = {ConditionStatus::kTrue, why, message,
                                                 At("10:00:20")};
      }
      v->requests.insert_or_assign(pr.Key(), std::move(pr));
    }
    autoscaler.provisioning_requests = v;
    return *this;
  }
  // cluster-autoscaler's status last written at `probed` and older than the silence grace.
  Row& StatusStale(Timestamp probed) {
    autoscaler.ca_status_time = probed;
    autoscaler.status_stale[AutoscalerKind::kClusterAutoscaler] = true;
    return *this;
  }
  Row& ClusterBackoff() {
    autoscaler.cluster_scale_up_backoff = true;
    return *this;
  }
  Row& Options(std::function<void(ClassifierOptions&)> f) {
    options = std::move(f);
    return *this;
  }
  Row& Instance(ConditionStatus ready, std::string why, Timestamp since,
                std::string kind = "TiKV") {
    if (!instance) instance = InstanceReadiness{};
    instance->ready = ready;
    instance->reason = std::move(why);
    instance->kind = std::move(kind);
    instance->since = since;
    return *this;
  }
  // The pod's cluster held by tidb-operator v2 (paused, suspended, a PD mode switch).
  Row& Hold(OperatorHold h) {
    if (!deps) deps = ClusterDependencies{};
    deps->hold = std::move(h);
    return *this;
  }
  // A planned wait of the pod's v2 instance (LeadersEvicted, Offlined), its Ready condition
  // unknown unless Instance() set it.
  Row& Plan(std::string_view why, std::string condition, Timestamp since) {
    if (!instance) {
      instance = InstanceReadiness{};
      instance->kind = "TiKV";
    }
    instance->plan_reason = std::string(why);
    instance->plan_condition = std::move(condition);
    instance->plan_since = since;
    return *this;
  }
  Row& Volumes(VolumePinning pinning, std::string pv = "", std::string node = "") {
    volumes = PodVolumeFacts{pinning, std::move(pv), std::move(node)};
    return *this;
  }
  Row& Now(Timestamp t) {
    now = t;
    return *this;
  }
  Row& Expect(Stage s, WaitClass c, std::string_view why, Timestamp start,
              std::string evidence_part = "") {
    stage = s;
    wait_class = c;
    reason = std::string(why);
    stage_start = start;
    evidence = std::move(evidence_part);
    return *this;
  }
  Row& NotWaiting() {
    waiting = false;
    return *this;
  }
};

// gtest prints the row by its name, not as bytes.
void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

using S = Stage;
using C = WaitClass;

std::vector<Row> Rows() {
  std::vector<Row> rows;
  auto add = [&rows](Row row) { rows.push_back(std::move(row)); };
  const Timestamp t0 = At("10:00:00");  // creation of every made-up pod
  const Timestamp unsched_since = At("10:00:01");

  // ===== unscheduled: autoscaler adding capacity (scale_up) and its failures (capacity) ======
  add(Row("ScaleUpTriggered", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0, "eks-tikv-ng 3->4"));
  add(Row("ScaleUpExactlyAtProvisionTimeout", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:15:30"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  add(Row("ScaleUpJustPastProvisionTimeout", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:15:30") + 1)
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpTimeout, t0, "did not bring a node"));
  add(Row("ScaleUpOlderThanTimeout", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("11:00:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpTimeout, t0, "59m30s ago"));
  // Both unschedulable (the scheduler keeps failing, also after the scale-up) and scaling up.
  add(Row("UnschedulableWithScaleUpEvent", kUnsched)
          .Ca()
          .Ev("FailedScheduling", "default-scheduler", kFit3Mem, At("10:00:01"))
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Ev("FailedScheduling", "default-scheduler", kFit3Mem, At("10:00:01"), At("10:04:00"), 6)
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  // CA >= 1.30: the group's backoffInfo says why (a fixed set of reasons; the message is evidence).
  add(Row("ScaleUpGroupInBackoffQuota", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "QUOTA_EXCEEDED",
                 "Instance 'eks-tikv-ng-40ce0341-t28s' creation failed: Quota 'CPUS' exceeded.")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kBackoffQuotaExceeded, t0,
                  "node group eks-tikv-ng in scale-up backoff (QUOTA_EXCEEDED: Instance "
                  "'eks-tikv-ng-40ce0341-t28s' creation failed: Quota 'CPUS' exceeded.)"));
  add(Row("ScaleUpGroupInBackoffStockout", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "RESOURCE_POOL_EXHAUSTED")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kBackoffStockout, t0));
  add(Row("ScaleUpGroupInBackoffAwsPlaceholder", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "placeholder-cannot-be-fulfilled",
                 "AWS cannot provision any more instances for this node group")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kBackoffStockout, t0, "AWS cannot"));
  add(Row("ScaleUpGroupInBackoffReservation", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "RESERVATION_NOT_READY")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kBackoffReservation, t0));
  for (auto [code, why] : {std::pair{"IP_SPACE_EXHAUSTED", r::kBackoffIpSpaceExhausted},
                           std::pair{"PERMISSIONS_ERROR", r::kBackoffPermissions},
                           std::pair{"timeout", r::kBackoffTimeout},
                           std::pair{"cloudProviderError", r::kBackoffCloudProviderError}}) {
    add(Row(std::string("ScaleUpGroupInBackoffCode_") + code, kUnsched)
            .Ca()
            .Group("eks-tikv-ng", false, true, code)
            .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
            .Now(At("10:05:00"))
            .Expect(S::kUnscheduled, C::kCapacity, why, t0, code));
  }
  // A code podwait does not know is `other`, never a label value of its own.
  add(Row("ScaleUpGroupInBackoffUnknownCode", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "VM_EXTERNAL_IP_ACCESS_POLICY_CONSTRAINT", "policy")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kBackoffOther, t0,
                  "VM_EXTERNAL_IP_ACCESS_POLICY_CONSTRAINT: policy"));
  // Only the message (a provider that writes no code): the reason stays scale_up_backoff.
  add(Row("ScaleUpGroupInBackoffMessageOnly", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "", "Could not launch On-Demand Instances.")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpBackoff, t0,
                  "(Could not launch On-Demand Instances.)"));
  // GKE: the event names the group by a www.googleapis.com URL, the ConfigMap by a
  // content.googleapis.com one; the last path segment matches them.
  add(Row("ScaleUpGkeGroupInBackoffAcrossUrlHosts", kUnsched)
          .Ca()
          .Group("https://content.googleapis.com/compute/v1/projects/p/zones/us-east1-b/"
                 "instanceGroups/gke-tidb-pool-1-grp",
                 false, true)
          .Ev("TriggeredScaleUp", "cluster-autoscaler",
              "pod triggered scale-up: [{https://www.googleapis.com/compute/v1/projects/p/zones/"
              "us-east1-b/instanceGroups/gke-tidb-pool-1-grp 1->2 (max: 20)}]",
              At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpBackoff, t0));
  add(Row("ScaleUpOtherGroupInBackoffDoesNotMatter", kUnsched)
          .Ca()
          .Group("eks-gpu-ng", false, true)
          .Group("eks-tikv-ng", true, false)
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  add(Row("NotTriggerMaxNodeGroupSize", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 3 max node group size reached, 1 Insufficient cpu",
              At("10:00:20"), At("10:04:30"), 20)
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kMaxNodeGroupSize, t0, "NotTriggerScaleUp"));
  // cluster-autoscaler core/scaleup/orchestrator/skippedreasons.go NotReadyReason: the group is
  // unhealthy (too many unready nodes), its own reason rather than a backoff.
  add(Row("NotTriggerNodeGroupNotReady", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 1 not ready for scale-up, 2 node(s) had untolerated "
              "taint {dedicated: analytics}",
              At("10:00:20"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kNodeGroupNotReady, t0,
                  "not ready for scale-up"));
  // A backoff whose code is the generic class name and whose message is EC2's stockout (made-up
  // message after EC2's InsufficientInstanceCapacity; code: cloudprovider/cloud_provider.go).
  add(Row("ScaleUpGroupInBackoffOutOfResourceStockout", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", false, true, "OutOfResource",
                 "InsufficientInstanceCapacity: We currently do not have sufficient m5.4xlarge "
                 "capacity in the Availability Zone you requested (us-east-1a).")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kBackoffStockout, t0,
                  "InsufficientInstanceCapacity"));
  add(Row("NotTriggerMaxClusterSize", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 1 max cluster cpu, memory limit reached",
              At("10:00:20"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kMaxClusterSize, t0));
  // ===== aggregated events (client-go's correlator: "(combined from similar events): ...") ====
  // A pod waiting past ~10 minutes: CA's NotTriggerScaleUp, whose counts change every loop, is
  // aggregated. The group in backoff among tainted groups is still `capacity`, not the
  // scheduler's `constraints`; the newest verdict is the aggregate's lastTimestamp.
  add(Row("AggregatedNotTriggerBackoffAmongTaintedGroups", kUnsched)
          .Ca()
          .With(FitMessage("0/4 nodes are available: 4 node(s) had untolerated taint "
                           "{dedicated: tidb-tikv}."))
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "(combined from similar events): pod didn't trigger scale-up: 3 node(s) had "
              "untolerated taint {dedicated: analytics}, 1 in backoff after failed scale-up",
              At("10:10:00"), At("10:40:00"), 31)
          .Now(At("10:41:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpBackoff, t0, "in backoff"));
  add(Row("AggregatedTriggeredScaleUpMeasuredFromLastObservation", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler",
              "(combined from similar events): " + kTriggered, At("10:00:30"), At("10:20:00"), 12)
          .Now(At("10:30:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0, "eks-tikv-ng 3->4"));
  add(Row("AggregatedKarpenterFailedSchedulingNodepoolLimit", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "(combined from similar events): Failed to schedule pod, all available instance "
              "types exceed limits for nodepool \"default\"",
              At("10:00:10"), At("10:30:00"), 25)
          .Now(At("10:31:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kNodepoolLimit, t0, "exceed limits"));
  // Karpenter < v0.20: NominatePod "Pod should schedule on <node>".
  add(Row("LegacyKarpenterNominatePod", kUnsched)
          .Karpenter()
          .Ev("NominatePod", "karpenter",
              "Pod should schedule on ip-192-168-55-10.us-west-2.compute.internal", At("10:00:05"))
          .Now(At("10:03:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0, "ip-192-168-55-10"));
  add(Row("NotTriggerBackoff", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 2 node(s) didn't match Pod's node affinity/selector, "
              "1 in backoff after failed scale-up",
              At("10:00:20"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpBackoff, t0));
  // The newest autoscaler verdict wins: a scale-up that then hit the group's maximum ...
  add(Row("NotTriggerNewerThanTriggered", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 1 max node group size reached", At("10:12:00"))
          .Now(At("10:13:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kMaxNodeGroupSize, t0));
  // ... and a backoff that ended in a new scale-up.
  add(Row("TriggeredNewerThanNotTrigger", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 1 in backoff after failed scale-up", At("10:00:20"),
              At("10:06:00"), 9)
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:08:00"))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  // No node group's nodes match the pod: more nodes cannot help, whatever the scheduler says.
  add(Row("NotTriggerOnlyAffinity", kUnsched)
          .Ca()
          .With(FitMessage("0/6 nodes are available: 2 Insufficient memory, 4 node(s) didn't "
                           "match Pod's node affinity/selector."))
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 4 node(s) didn't match Pod's node affinity/selector",
              At("10:00:20"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0));
  // The pod is bigger than any group's nodes: a real shortfall.
  add(Row("NotTriggerPodTooBig", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 3 Insufficient memory", At("10:00:20"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // CA < 1.16 gave no reason: the scheduler's message decides.
  add(Row("NotTriggerOldWouldntFit", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up (it wouldn't fit if a new node is added)",
              At("10:00:20"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0, "wouldn't fit"));
  add(Row("CaStatusClusterWideBackoff", kUnsched)
          .Ca()
          .ClusterBackoff()
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpBackoff, t0, "cluster-wide"));
  // No pod-specific event (pods that fit on nodes already coming get none) but a group is
  // scaling up: expected, until the provision timeout.
  add(Row("CaStatusGroupScalingUp", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", true, false)
          .Now(At("10:03:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0, "eks-tikv-ng"));
  add(Row("CaStatusGroupScalingUpPastTimeout", kUnsched)
          .Ca()
          .Group("eks-tikv-ng", true, false)
          .Now(unsched_since + 15 * kMinute + 1)
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // The operator said there is no autoscaler, but an autoscaler event is a fact about the pod.
  add(Row("ForcedNoneStillReadsEvents", kUnsched)
          .ForcedNone()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  add(Row("ForcedNoneNoGrace", kUnsched)
          .ForcedNone()
          .Group("eks-tikv-ng", true, false)
          .Now(At("10:00:02"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // Events of an earlier pod with the same name (StatefulSet pod re-created) are not this pod's.
  add(Row("EventsOfAnotherUidIgnored", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"), 0, 1, kOtherPod)
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  add(Row("EventsBeforeCreationIgnored", kUnsched)
          .Ca()
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("09:50:00"), 0, 1, kNoUid)
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));

  // ===== unscheduled: Karpenter ==============================================================
  add(Row("KarpenterNominated", kUnsched)
          .Karpenter()
          .Ev("Nominated", "karpenter", "Pod should schedule on: nodeclaim/default-tn8fg",
              At("10:00:05"), At("10:04:00"), 12)
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0, "nodeclaim/"));
  add(Row("KarpenterNominatedMachineOldKarpenter", kUnsched)
          .Karpenter()
          .Ev("NominatedMachine", "karpenter",
              "Pod should schedule on node associated with machine: default-7xk2p", At("10:00:05"))
          .Now(At("10:02:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0));
  // Karpenter repeats the nomination while waiting: the wait is measured from the first one.
  add(Row("KarpenterNominatedPastTimeout", kUnsched)
          .Karpenter()
          .Ev("Nominated", "karpenter", "Pod should schedule on: nodeclaim/default-tn8fg",
              At("10:00:05"), At("10:15:00"), 90)
          .Now(At("10:15:05") + 1)
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpTimeout, t0));
  add(Row("KarpenterNodepoolLimit", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, all available instance types exceed limits for nodepool "
              "\"default\"",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kNodepoolLimit, t0));
  add(Row("KarpenterEveryPoolIncompatible", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
              "overhead={\"cpu\":\"150m\",\"pods\":\"2\"}, did not tolerate "
              "dedicated=tiflash:NoSchedule",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kUntoleratedTaint, t0));
  add(Row("KarpenterNoInstanceTypeBigEnough", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
              "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, no instance type satisfied resources "
              "{\"cpu\":\"150m\",\"memory\":\"900Gi\",\"pods\":\"4\"}",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientResources, t0));
  // The instance type filter's cause (karpenter pkg/controllers/provisioning/scheduling/
  // nodeclaim.go; messages built from its format strings, made-up requirements): before v1.3 in
  // the trailing parenthesis, since v1.3 leading, before ", requirements=".
  add(Row("KarpenterInstanceTypesRequirementsNotMet", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
              "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, no instance type satisfied resources "
              "{\"cpu\":\"4150m\",\"pods\":\"4\"} and requirements "
              "karpenter.k8s.aws/instance-family In [i3en], kubernetes.io/arch In [arm64] (no "
              "instance type met all requirements)",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0, "met all requirements"));
  add(Row("KarpenterInstanceTypesNoOffering", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
              "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, no instance type satisfied resources "
              "{\"cpu\":\"4150m\",\"pods\":\"4\"} and requirements "
              "karpenter.sh/capacity-type In [spot], topology.kubernetes.io/zone In [us-east-1a] "
              "(no instance type has the required offering)",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kKarpenterInsufficientCapacity, t0));
  add(Row("KarpenterV1RequirementsOrResources", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
              "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, no instance type met the scheduling "
              "requirements or had enough resources, requirements=karpenter.sh/nodepool In "
              "[default], node.kubernetes.io/instance-type In [m5.large], "
              "resources={\"cpu\":\"16150m\",\"pods\":\"4\"}",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0));
  add(Row("KarpenterV1NotEnoughResources", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, incompatible with nodepool \"default\", daemonset "
              "overhead={\"cpu\":\"150m\",\"pods\":\"3\"}, no instance type has enough "
              "resources, requirements=karpenter.sh/nodepool In [default], "
              "resources={\"cpu\":\"200150m\",\"pods\":\"4\"}",
              At("10:00:04"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientResources, t0));
  // A nomination we cannot read proves nothing: the scheduler's message decides.
  add(Row("KarpenterUnreadableNominationIgnored", kUnsched)
          .Karpenter()
          .Ev("Nominated", "karpenter", "Pod will be scheduled soon", At("10:00:05"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // A nomination newer than Karpenter's own failure.
  add(Row("KarpenterNominatedAfterFailure", kUnsched)
          .Karpenter()
          .Ev("FailedScheduling", "karpenter",
              "Failed to schedule pod, all available instance types exceed limits for nodepool "
              "\"default\"",
              At("10:00:04"))
          .Ev("Nominated", "karpenter", "Pod should schedule on: nodeclaim/default-x9q2w",
              At("10:03:00"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0));

  // ===== unscheduled: Karpenter's NodeClaims (the nomination's NodeClaim says the stage) =====
  const std::string kNominatedClaim = "Pod should schedule on: nodeclaim/default-x9q2w";
  constexpr auto kU = ConditionStatus::kUnknown;
  constexpr auto kT = ConditionStatus::kTrue;
  add(Row("KarpenterNodeClaimLaunching", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kU, kU, kU}, "AwaitingReconciliation",
                     "object is awaiting reconciliation")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:00:30"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterLaunching, t0,
                  "NodeClaim default-x9q2w Launched=Unknown AwaitingReconciliation"));
  add(Row("KarpenterNodeClaimRegistering", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kT, kU, kU}, "NodeNotFound",
                     "Node not registered with cluster")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"), At("10:02:00"), 8)
          .Now(At("10:03:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterRegistering, t0,
                  "Registered=Unknown NodeNotFound: Node not registered with cluster"));
  add(Row("KarpenterNodeClaimInitializing", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kT, kT, kU}, "StartupTaintsExist",
                     "StartupTaint \"node.cilium.io/agent-not-ready=true:NoExecute\" still exists")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:03:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterInitializing, t0,
                  "Initialized=Unknown StartupTaintsExist"));
  // The node is up; the scheduler binds the pod next.
  add(Row("KarpenterNodeClaimInitializedPodNotYetBound", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kT, kT, kT})
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:03:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0));
  // A node that does not join within the provision timeout: a different page than "a node is
  // coming", with the stage in the evidence.
  add(Row("KarpenterNodeClaimRegisteringPastTimeout", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kT, kU, kU}, "NodeNotFound",
                     "Node not registered with cluster")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"), At("10:15:00"), 60)
          .Now(At("10:15:05") + 1)
          .Expect(S::kUnscheduled, C::kCapacity, r::kScaleUpTimeout, t0,
                  "NodeClaim still registering its node"));
  add(Row("KarpenterNodeClaimLaunchFailing", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kU, kU, kU}, "LaunchFailed",
                     "creating instance, getting launch template configs")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:01:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kKarpenterLaunchFailed, t0,
                  "Launched=Unknown LaunchFailed"));
  // Karpenter reports the failure on the NodeClaim, then deletes it: the pod's events never say.
  add(Row("KarpenterNodeClaimGoneAfterInsufficientCapacity", kUnsched)
          .Karpenter()
          .NodeClaimsWatched()
          .LaunchFailure("default-x9q2w", "InsufficientCapacityError",
                         "creating instance, insufficient capacity")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:01:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kKarpenterInsufficientCapacity, t0,
                  "NodeClaim default-x9q2w InsufficientCapacityError: creating instance"));
  add(Row("KarpenterNodeClaimDeletingAfterNodeClassNotReady", kUnsched)
          .Karpenter()
          .NodeClaim("default-x9q2w", {kU, kU, kU}, "AwaitingReconciliation", "", true)
          .LaunchFailure("default-x9q2w", "NodeClassNotReady", "EC2NodeClass default not ready")
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:01:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kKarpenterNodeClassNotReady, t0));
  // Gone without a reported failure (consolidated, deleted by hand): the pod's own messages.
  add(Row("KarpenterNodeClaimGoneFallsBackToThePodsMessages", kUnsched)
          .Karpenter()
          .NodeClaimsWatched()
          .NodeClaim("default-other", {kT, kT, kT})
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // NodeClaims not listed yet (or not readable): the nomination stands as before.
  add(Row("KarpenterNodeClaimsNotListedNominationStands", kUnsched)
          .Karpenter()
          .Ev("Nominated", "karpenter", kNominatedClaim, At("10:00:05"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0));
  // A nomination to an existing node has no NodeClaim to read.
  add(Row("KarpenterNominatedToANodeIgnoresNodeClaims", kUnsched)
          .Karpenter()
          .NodeClaimsWatched()
          .Ev("Nominated", "karpenter", "Pod should schedule on: node/ip-192-168-61-204",
              At("10:00:05"))
          .Now(At("10:02:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kKarpenterNominated, t0));

  // ===== unscheduled: a silent autoscaler (present, no verdict on a pod short of resources) ====
  add(Row("SilentCaPastTheSilenceGrace", kUnsched)
          .Ca()
          .Now(unsched_since + 5 * kMinute + 1)
          .Expect(
              S::kUnscheduled, C::kCapacity, r::kAutoscalerSilent, t0,
              "autoscaler cluster-autoscaler present but silent: no verdict on the pod since it "
              "became unschedulable 5m0s ago"));
  add(Row("SilentCaExactlyAtTheSilenceGraceIsNotYet", kUnsched)
          .Ca()
          .Now(unsched_since + 5 * kMinute)
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  add(Row("SilentKarpenter", kUnsched)
          .Karpenter()
          .Now(At("10:20:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kAutoscalerSilent, t0, "karpenter present"));
  // Events live an hour: past it, a verdict may have expired; a healthy status is believed.
  add(Row("QuietCaPastTheEventTtlWithAHealthyStatus", kUnsched)
          .Ca()
          .Now(unsched_since + 60 * kMinute + 1)
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // A status that stopped moving: silent whatever the pod's age.
  add(Row("SilentCaStatusStopped", kUnsched)
          .Ca()
          .StatusStale(At("10:01:00"))
          .Now(At("12:00:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kAutoscalerSilent, t0,
                  "status ConfigMap stopped updating (last 1h59m ago)"));
  // An autoscaler verdict, even one that is not about capacity, is not silence.
  add(Row("CaWithAVerdictIsNotSilent", kUnsched)
          .Ca()
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 3 Insufficient memory", At("10:00:20"))
          .Now(At("10:30:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // Constraints are no autoscaler's business: more nodes of the same kind would not help.
  add(Row("QuietCaOnAConstraintIsNotSilent", kUnsched)
          .Ca()
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't match Pod's node "
                           "affinity/selector. preemption: 0/3 nodes are available: 3 "
                           "Preemption is not helpful for scheduling."))
          .Now(At("10:30:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0));

  // ===== unscheduled: the ProvisioningRequest the pod consumes =================================
  using PR = ProvReqCondition;
  add(Row("ProvReqAcceptedStillLooking", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .ProvReq("demo-tikv-scale", {PR::kAccepted}, "Accepted",
                   "ProvisioningRequest is accepted by ClusterAutoscaler")
          .Now(At("10:30:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kProvisioningRequestAccepted, t0,
                  "ProvisioningRequest tidb/demo-tikv-scale Accepted=True Accepted: "
                  "ProvisioningRequest is accepted by ClusterAutoscaler; Provisioned=False "
                  "CapacityIsNotFound"));
  add(Row("ProvReqProvisioned", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .ProvReq("demo-tikv-scale", {PR::kAccepted, PR::kProvisioned}, "CapacityIsProvisioned",
                   "Capacity is found in the cluster")
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kProvisioningRequestProvisioned, t0,
                  "Provisioned=True CapacityIsProvisioned: Capacity is found in the cluster"));
  // The request decides before the autoscaler's events and the scheduler's message.
  add(Row("ProvReqFailedOverTriggeredScaleUp", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .ProvReq("demo-tikv-scale", {PR::kAccepted, PR::kFailed}, "CapacityIsNotFound",
                   "CA could not find requested capacity")
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kProvisioningRequestFailed, t0,
                  "Failed=True CapacityIsNotFound: CA could not find requested capacity"));
  // Booked, but the pod did not come in time: Provisioned stays True beside BookingExpired.
  add(Row("ProvReqBookingExpired", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .ProvReq("demo-tikv-scale", {PR::kAccepted, PR::kProvisioned, PR::kBookingExpired},
                   "CapacityReservationTimeExpired", "Capacity reservation time is expired")
          .Now(At("10:20:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kProvisioningRequestBookingExpired, t0,
                  "BookingExpired=True CapacityReservationTimeExpired"));
  add(Row("ProvReqCapacityRevokedDeprecatedAnnotation", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale", true)
          .ProvReq("demo-tikv-scale", {PR::kAccepted, PR::kProvisioned, PR::kCapacityRevoked},
                   "NodesPreempted", "Provisioned nodes were preempted")
          .Now(At("10:20:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kProvisioningRequestCapacityRevoked, t0,
                  "CapacityRevoked=True NodesPreempted"));
  // Not listed (deleted, another namespace's, or not yet seen): the pod's own messages decide.
  add(Row("ProvReqNotListedFallsBackToThePodsMessages", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .ProvReq("other-request", {PR::kAccepted})
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // Listed but not accepted yet (CA has not looked at it): the pod's own messages decide.
  add(Row("ProvReqNotAcceptedYetFallsBack", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .ProvReq("demo-tikv-scale", {})
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  // ProvisioningRequests not watched (--autoscaler=karpenter, or the CRD absent): unchanged.
  add(Row("ProvReqNotWatchedUnchanged", kUnsched)
          .Ca()
          .Consumes("demo-tikv-scale")
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));

  // ===== unscheduled: nobody decided yet (scheduling) and gates (gated) =======================
  add(Row("DecisionGraceExactly", kUnsched)
          .Ca()
          .Now(unsched_since + 60 * kSecond)
          .Expect(S::kUnscheduled, C::kScheduling, r::kAwaitingDecision, t0, "has not decided"));
  add(Row("DecisionGraceJustPast", kUnsched)
          .Ca()
          .Now(unsched_since + 60 * kSecond + 1)
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0, "Insufficient"));
  add(Row("KarpenterDecisionGrace", kUnsched)
          .Karpenter()
          .Now(At("10:00:30"))
          .Expect(S::kUnscheduled, C::kScheduling, r::kAwaitingDecision, t0));
  add(Row("CustomDecisionGrace", kUnsched)
          .Ca()
          .Options([](ClassifierOptions& o) { o.decision_grace = 5 * kMinute; })
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScheduling, r::kAwaitingDecision, t0));
  add(Row("NoConditionYet", kUnsched)
          .With(NoConditions())
          .Now(At("10:00:30"))
          .Expect(S::kUnscheduled, C::kScheduling, r::kAwaitingDecision, t0));
  add(Row("NoConditionForLong", kUnsched)
          .With(NoConditions())
          .Ca()
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScheduling, r::kNoSchedulerDecision, t0));
  // The real message of a pod with spec.schedulingGates (k8s >= 1.27).
  add(Row("SchedulingGated", kUnsched)
          .With(Condition("PodScheduled", "False", "SchedulingGated",
                          "Scheduling is blocked due to non-empty scheduling gates",
                          "2024-05-02T10:00:00Z"))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kGated, r::kSchedulingGated, t0, "scheduling gates"));
  add(Row("SchedulingGatedWithAutoscalerEvents", kUnsched)
          .Ca()
          .With(Condition("PodScheduled", "False", "SchedulingGated",
                          "Scheduling is blocked due to non-empty scheduling gates",
                          "2024-05-02T10:00:00Z"))
          .Ev("NotTriggerScaleUp", "cluster-autoscaler",
              "pod didn't trigger scale-up: 1 max node group size reached", At("09:59:00"), 0, 1,
              kNoUid)
          .Now(At("11:00:00"))
          .Expect(S::kUnscheduled, C::kGated, r::kSchedulingGated, t0));

  // ===== unscheduled without autoscaler evidence: the scheduler's message decides ============
  add(Row("NoAutoscalerInsufficientMemory", kUnsched)
          .Now(At("10:00:02"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0, "3 Insufficient"));
  add(Row("NoAutoscalerInsufficientCpu", kUnsched)
          .With(FitMessage("0/5 nodes are available: 5 Insufficient cpu. preemption: 0/5 nodes "
                           "are available: 5 No preemption victims found for incoming pod."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientCpu, t0));
  // Real fixture: 1 node being deleted by CA, 2 short of cpu. The deleted node is not the pod's
  // constraint; the others prove a node with room would fit.
  // The fixture has the pod's status, not its events: cluster-autoscaler's verdict on it is not
  // known, so silence is not judged here (the silence grace is out of reach).
  add(Row("RealAutoscalerTaintAndCpu", kRealTaint)
          .With(TikvMetadata("2024-11-22T18:20:40Z"))
          .Ca()
          .Options([](ClassifierOptions& o) { o.silence_grace = 2 * kEventTtl; })
          .Now(ParseRfc3339("2024-11-22T18:30:44Z").value())
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientCpu,
                  ParseRfc3339("2024-11-22T18:20:40Z").value(), "ToBeDeletedByClusterAutoscaler"));
  add(Row("RealUnboundPvc", kRealPvc)
          .With(TikvMetadata("2022-10-30T15:44:50Z"))
          .Ca()
          .Now(ParseRfc3339("2022-10-30T15:54:57Z").value())
          .Expect(S::kUnscheduled, C::kConstraints, r::kUnboundPvc,
                  ParseRfc3339("2022-10-30T15:44:50Z").value(), "PersistentVolumeClaims"));
  add(Row("RealUnboundPvcWithinDecisionGrace", kRealPvc)
          .With(TikvMetadata("2022-10-30T15:44:50Z"))
          .Ca()
          .Now(ParseRfc3339("2022-10-30T15:45:27Z").value())
          .Expect(S::kUnscheduled, C::kScheduling, r::kAwaitingDecision,
                  ParseRfc3339("2022-10-30T15:44:50Z").value()));
  add(Row("RealUnboundPvcNoAutoscaler", kRealPvc)
          .With(TikvMetadata("2022-10-30T15:44:50Z"))
          .Now(ParseRfc3339("2022-10-30T15:44:58Z").value())
          .Expect(S::kUnscheduled, C::kConstraints, r::kUnboundPvc,
                  ParseRfc3339("2022-10-30T15:44:50Z").value()));
  add(Row("OnlyUnreachableNodes", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) had untolerated taint "
                           "{node.kubernetes.io/unreachable: }. preemption: 0/3 nodes are "
                           "available: 3 Preemption is not helpful for scheduling."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kNodesUnavailable, t0));
  add(Row("TooManyPods", kUnsched)
          .With(FitMessage("0/4 nodes are available: 4 Insufficient pods."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kTooManyPods, t0));
  add(Row("InsufficientGpuAndAffinity", kUnsched)
          .With(FitMessage("0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) "
                           "didn't match Pod's node affinity/selector."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientResources, t0));
  add(Row("HostPorts", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't have free ports for the "
                           "requested pod ports."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kHostPortConflict, t0));
  add(Row("NoNodesAtAll", kUnsched)
          .With(FitMessage("no nodes available to schedule pods"))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kNoNodes, t0));
  // The scheduler's VolumeBinding PreBind step timed out on a claim whose provisioner failed
  // (kubernetes pkg/scheduler/framework/plugins/volumebinding/binder.go checkBindings; the
  // framework's runPreBindPlugins wraps it; schedule_one.go handleBindingCycleError writes
  // PodScheduled=False SchedulerError and a FailedScheduling event with the same text).
  const std::string prebind =
      "running PreBind plugin \"VolumeBinding\": binding volumes: provisioning failed for PVC "
      "\"tikv-basic-tikv-0\"";
  add(Row("VolumeProvisioningFailedSchedulerError", kUnsched)
          .With(
              Condition("PodScheduled", "False", "SchedulerError", prebind, "2024-05-02T10:00:01Z"))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kVolumeProvisioningFailed, t0,
                  "PodScheduled=False SchedulerError: running PreBind plugin"));
  // The condition without a message: the last FailedScheduling event (aggregated by client-go's
  // correlator after ten of them) says the same.
  add(Row("VolumeProvisioningFailedAggregatedEvent", kUnsched)
          .With(Condition("PodScheduled", "False", "SchedulerError", "", "2024-05-02T10:00:01Z"))
          .Ev("FailedScheduling", "default-scheduler", "(combined from similar events): " + prebind,
              At("10:00:01"), At("10:09:00"), 12)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kVolumeProvisioningFailed, t0,
                  "provisioning failed for PVC"));
  add(Row("NodeAffinityOnly", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't match Pod's node "
                           "affinity/selector. preemption: 0/3 nodes are available: 3 "
                           "Preemption is not helpful for scheduling."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0));
  // A node group at zero whose template matches the selector: CA proves a new node fits.
  add(Row("NodeAffinityScaleFromZero", kUnsched)
          .Ca()
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't match Pod's node "
                           "affinity/selector."))
          .Ev("TriggeredScaleUp", "cluster-autoscaler",
              "pod triggered scale-up: [{aks-tikvpool-27672801-vmss 0->1 (max: 3)}]",
              At("10:00:40"))
          .Now(At("10:03:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  add(Row("UntoleratedTaint", kUnsched)
          .Ca()
          .With(FitMessage("0/3 nodes are available: 1 node(s) had untolerated taint "
                           "{node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated "
                           "taint {dedicated: tiflash}."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kUntoleratedTaint, t0));
  add(Row("PodAntiAffinity", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't match pod anti-affinity "
                           "rules."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kPodAntiAffinity, t0));
  add(Row("PodAffinity", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't match pod affinity rules."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kPodAffinity, t0));
  add(Row("TopologySpread", kUnsched)
          .With(FitMessage("0/3 nodes are available: 1 node(s) didn't match pod topology spread "
                           "constraints, 2 node(s) didn't match Pod's node affinity/selector."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0));
  add(Row("TopologySpreadOnly", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) didn't match pod topology spread "
                           "constraints."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kTopologySpread, t0));
  add(Row("VolumeNodeAffinity", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 node(s) had volume node affinity "
                           "conflict."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kVolumeNodeAffinity, t0));
  // The node in the volume's zone is short of memory: a node with room there would fit — known
  // only from the PV (zonal: not pinned to one node). VolumeBinding runs after NodeResourcesFit.
  add(Row("VolumeZoneNodeShortOfMemory", kUnsched)
          .With(FitMessage("0/3 nodes are available: 1 Insufficient memory, 2 node(s) had volume "
                           "node affinity conflict."))
          .Volumes(VolumePinning::kNotNode)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  // ===== the mixing rule and kube-scheduler's filter order (scheduler_filters.h) =============
  // The canonical TiKV failure: its local PV pinned to a node that is gone; the other nodes are
  // short of cpu and were never checked against the volume. No added node can host it.
  const std::string tikv_local_pv_gone =
      "0/4 nodes are available: 1 node(s) had volume node affinity conflict, 3 Insufficient "
      "cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 "
      "No preemption victims found for incoming pod.";
  add(Row("LocalPvNodeGoneBesideInsufficientCpu", kUnsched)
          .With(FitMessage(tikv_local_pv_gone))
          .Volumes(VolumePinning::kNode, "local-pv-3f1a2b", "ip-10-0-3-17.ec2.internal")
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kVolumeNodeAffinity, t0,
                  "pinned to node ip-10-0-3-17.ec2.internal"));
  add(Row("LateVolumeConflictBesideInsufficientCpuVolumesUnknown", kUnsched)
          .With(FitMessage(tikv_local_pv_gone))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kVolumeNodeAffinity, t0,
                  "placement unknown"));
  add(Row("ZonalPvBesideInsufficientCpu", kUnsched)
          .With(FitMessage(tikv_local_pv_gone))
          .Volumes(VolumePinning::kNotNode)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientCpu, t0));
  // The autoscaler's verdict, when it spoke, decides before the scheduler's message.
  add(Row("LateVolumeConflictButCaScalesUp", kUnsched)
          .Ca()
          .With(FitMessage(tikv_local_pv_gone))
          .Ev("TriggeredScaleUp", "cluster-autoscaler", kTriggered, At("10:00:30"))
          .Now(At("10:05:00"))
          .Expect(S::kUnscheduled, C::kScaleUp, r::kScaleUpInProgress, t0));
  // Older schedulers listed every failed predicate of every node (the counts add up to more than
  // N): a constraint all nodes report excludes them all, whatever else they lack.
  add(Row("EveryNodeConstraintOldScheduler", kUnsched)
          .With(FitMessage("0/3 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match "
                           "node selector."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kNodeAffinity, t0, "every node"));
  // Kubernetes 1.6/1.7 wrote a double colon.
  add(Row("Kubernetes16FitError", kUnsched)
          .With(FitMessage("No nodes are available that match all of the following predicates:: "
                           "Insufficient memory (3)."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0));
  add(Row("UnknownSchedulerMessage", kUnsched)
          .With(FitMessage("running PreBind plugin \"VolumeBinding\": binding volumes: timed out "
                           "waiting for the condition"))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kUnschedulableOther, t0, "PreBind"));
  // The condition's message is empty: the last FailedScheduling event of the scheduler is used.
  add(Row("FitFromSchedulerEvent", kUnsched)
          .With(FitMessage(""))
          .Ev("FailedScheduling", "default-scheduler",
              "0/3 nodes are available: 3 Insufficient memory.", At("10:00:01"))
          .Ev("FailedScheduling", "default-scheduler",
              "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.",
              At("10:00:01"), At("10:03:00"), 4)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kPodAntiAffinity, t0));

  // ===== volumes and the sandbox (classify/volumes.h) ========================================
  // A re-created TiKV pod whose RWO volume is still attached to its lost node. Messages: the
  // attach-detach controller (pkg/controller/volume/attachdetach/reconciler/reconciler.go), the
  // kubelet's volume manager (pkg/kubelet/volumemanager/volume_manager.go) and kuberuntime
  // (FailedCreatePodSandBox, pkg/kubelet/events/event.go).
  const std::string multi_attach =
      "Multi-Attach error for volume \"pvc-5b2f7c1e-9a0d-4e3b-8c6f-1d2e3f4a5b6c\" Volume is "
      "already exclusively attached to one node and can't be attached to another";
  const std::string mount_timeout =
      "Unable to attach or mount volumes: unmounted volumes=[tikv], unattached "
      "volumes=[tikv kube-api-access-7xq2m]: timed out waiting for the condition";
  const std::string sandbox =
      "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network "
      "for sandbox \"4f2a9c\": plugin type=\"aws-cni\" name=\"aws-cni\" failed (add): add cmd: "
      "failed to assign an IP address to container";
  const Timestamp vol_start = At("10:00:05");
  add(Row("MultiAttachWithinVolumeGrace", kVolumePod)
          .Ev("FailedAttachVolume", "attachdetach-controller", multi_attach, At("10:00:06"),
              At("10:04:00"), 12)
          .Now(At("10:05:00"))
          .Expect(S::kStarting, C::kStarting, r::kVolumeMultiAttach, vol_start,
                  "FailedAttachVolume: Multi-Attach error"));
  add(Row("MultiAttachPastVolumeGrace", kVolumePod)
          .Ev("FailedAttachVolume", "attachdetach-controller",
              "(combined from similar events): " + multi_attach, At("10:00:06"), At("10:20:00"), 40)
          .Now(At("10:20:30"))
          .Expect(S::kStarting, C::kVolume, r::kVolumeMultiAttach, vol_start,
                  "already exclusively attached"));
  add(Row("MountTimeoutPastVolumeGrace", kVolumePod)
          .Ev("FailedAttachVolume", "attachdetach-controller", multi_attach, At("10:00:06"))
          .Ev("FailedMount", "kubelet", mount_timeout, At("10:02:08"), At("10:12:20"), 5)
          .Now(At("10:13:00"))
          .Expect(S::kStarting, C::kVolume, r::kVolumeMountTimeout, vol_start,
                  "FailedMount: Unable to attach or mount volumes"));
  add(Row("MountFailedConfigMapMissing", kVolumePod)
          .Ev("FailedMount", "kubelet",
              "MountVolume.SetUp failed for volume \"config\" : configmap \"demo-tikv-3961623\" "
              "not found",
              At("10:00:06"), At("10:09:00"), 9)
          .Now(At("10:09:00"))
          .Expect(S::kStarting, C::kVolume, r::kVolumeMountFailed, vol_start, "configmap"));
  add(Row("AttachFailedCsi", kVolumePod)
          .Ev("FailedAttachVolume", "attachdetach-controller",
              "AttachVolume.Attach failed for volume \"pvc-5b2f7c1e\" : rpc error: code = "
              "Internal desc = Could not attach volume \"vol-0a1b2c3d\" to node "
              "\"i-0123456789abcdef0\": attachment of disk \"vol-0a1b2c3d\" failed, expected "
              "device "
              "to be attached but was attaching",
              At("10:00:06"), At("10:03:00"), 4)
          .Now(At("10:03:00"))
          .Expect(S::kStarting, C::kStarting, r::kVolumeAttachFailed, vol_start,
                  "AttachVolume.Attach failed"));
  add(Row("SandboxCniFailurePastVolumeGrace", kVolumePod)
          .Ev("FailedCreatePodSandBox", "kubelet", sandbox, At("10:00:07"), At("10:15:00"), 30)
          .Now(At("10:15:00"))
          .Expect(S::kStarting, C::kVolume, r::kSandboxCreation, vol_start,
                  "Failed to create pod sandbox"));
  // The sandbox condition alone: nothing within the grace (every pod starts so), `volume` past it.
  add(Row("SandboxNotReadyConditionWithinGrace", kVolumePod)
          .Now(At("10:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kContainerCreating, vol_start));
  add(Row("SandboxNotReadyConditionPastGrace", kVolumePod)
          .Now(At("10:30:00"))
          .Expect(S::kStarting, C::kVolume, r::kSandboxCreation, vol_start,
                  "PodReadyToStartContainers=False"));
  // A sandbox failure of a pod in Init (its wait-for-pd not created yet).
  add(Row("SandboxFailureInInit", kInit)
          .With(InitState("{waiting: {reason: PodInitializing}}"))
          .Ev("FailedCreatePodSandBox", "kubelet", sandbox, At("10:00:06"), At("10:10:00"), 20)
          .Now(At("10:10:00"))
          .Expect(S::kInitializing, C::kVolume, r::kSandboxCreation, At("10:00:05"),
                  "FailedCreatePodSandBox"));
  // An event of an earlier stage, or a container that runs: the volume was mounted after all.
  add(Row("VolumeEventButContainerRunning", kRunning)
          .Ev("FailedMount", "kubelet", mount_timeout, At("10:00:10"))
          .Now(At("10:30:00"))
          .Expect(S::kStarting, C::kNotReady, r::kReadinessProbe, At("10:00:20")));

  // ===== initializing: dependency wait (wait-for-pd) =========================================
  const Timestamp scheduled = At("10:00:05");
  add(Row("WaitForPdNoPdLeader", kInit)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kNoPdLeader, scheduled,
                  "init container wait-for-pd running; pd not ready"));
  add(Row("WaitForPdPdNotReadyUnknownReasonText", kInit)
          .WithDeps(PdDown("some_new_reason"))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kPdNotReady, scheduled));
  add(Row("WaitForPdNoTikvStoreUp", kInit)
          .WithDeps(Deps(Ready(At("10:01:00")), NotReady("no_tikv_store_up")))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kNoTikvStoreUp, scheduled));
  add(Row("WaitForPdClusterNotInitialized", kInit)
          .WithDeps(Deps(Ready(At("10:01:00")), NotReady("cluster_not_initialized")))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kClusterNotInitialized, scheduled));
  add(Row("WaitForPdTikvNotReady", kInit)
          .WithDeps(Deps(Ready(At("10:01:00")), NotReady()))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kTikvNotReady, scheduled));
  // TiKV needs only PD: TiKV not ready does not hold a TiKV pod.
  add(Row("TikvWaitsOnlyForPd", kInit)
          .With(Component("tikv"))
          .WithDeps(Deps(Ready(At("10:01:00")), NotReady()))
          .Now(At("10:02:00"))
          .Expect(S::kInitializing, C::kDependency, r::kDependencyReady, scheduled));
  // A dependency-wait container of a component missing from the map waits for PD.
  add(Row("WaitForPdWithoutComponentLabel", kInit)
          .With(Component(""))
          .WithDeps(Deps(NotReady(), Ready(At("09:00:00"))))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kPdNotReady, scheduled));
  // Ready grace: measured from when the last needed dependency became ready.
  add(Row("DependencyReadyWithinGrace", kInit)
          .WithDeps(Deps(Ready(At("10:05:00")), Ready(At("10:10:00"))))
          .Now(At("10:12:00"))
          .Expect(S::kInitializing, C::kDependency, r::kDependencyReady, scheduled,
                  "pd+tikv ready since 2m0s ago"));
  add(Row("DependencyReadyJustPastGrace", kInit)
          .WithDeps(Deps(Ready(At("10:05:00")), Ready(At("10:10:00"))))
          .Now(At("10:12:00") + 1)
          .Expect(S::kInitializing, C::kDependencyStuck, r::kDependencyReady, scheduled));
  // Ready long before the pod was scheduled: the grace starts with the wait, when wait-for-pd
  // started (its state.running.startedAt, 10:00:07, two seconds into the stage).
  add(Row("DependencyReadyBeforeStageWithinGrace", kInit)
          .WithDeps(AllReady(At("09:00:00")))
          .Now(At("10:02:07"))
          .Expect(S::kInitializing, C::kDependency, r::kDependencyReady, scheduled));
  add(Row("DependencyReadyBeforeStagePastGrace", kInit)
          .WithDeps(AllReady(At("09:00:00")))
          .Now(At("10:02:07") + 1)
          .Expect(S::kInitializing, C::kDependencyStuck, r::kDependencyReady, scheduled));
  // wait-for-pd started ten minutes into the stage (its image pulled for that long): it has
  // waited one minute, not eleven.
  add(Row("DependencyWaitFromTheContainersStart", kInit)
          .With(InitState("{running: {startedAt: '2024-05-02T10:10:05Z'}}"))
          .WithDeps(AllReady(At("09:00:00")))
          .Now(At("10:11:05"))
          .Expect(S::kInitializing, C::kDependency, r::kDependencyReady, scheduled));
  // A wait container that restarted has only its last run's start: the stage's start stands
  // (a wait that keeps failing gets no new grace with each run).
  add(Row("DependencyWaitRestartedFromTheStage", kInit)
          .With(InitState("{running: {startedAt: '2024-05-02T10:10:05Z'}}", 1))
          .WithDeps(AllReady(At("09:00:00")))
          .Now(At("10:11:05"))
          .Expect(S::kInitializing, C::kDependencyStuck, r::kDependencyReady, scheduled));
  // PD flipped: ready again since 10:20 after an outage; the pod waited 20m but is not stuck.
  add(Row("DependencyFlippedReadyRestartsGrace", kInit)
          .WithDeps(Deps(Ready(At("10:20:00")), Ready(At("10:01:00"))))
          .Now(At("10:21:00"))
          .Expect(S::kInitializing, C::kDependency, r::kDependencyReady, scheduled));
  add(Row("CustomReadyGrace", kInit)
          .WithDeps(AllReady(At("10:10:00")))
          .Options([](ClassifierOptions& o) { o.dependency_ready_grace = 10 * kMinute; })
          .Now(At("10:19:00"))
          .Expect(S::kInitializing, C::kDependency, r::kDependencyReady, scheduled));
  // Unknown readiness never yields `dependency`: the stage's plain class.
  add(Row("PdUnknownInInit", kInit)
          .WithDeps(Deps(Unknown(), Unknown()))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kStarting, r::kDependencyUnknown, scheduled, "unknown"));
  add(Row("TikvUnknownInInit", kInit)
          .WithDeps(Deps(Ready(At("09:00:00")), Unknown()))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kStarting, r::kDependencyUnknown, scheduled));
  add(Row("ClusterUnknownInInit", kInit)
          .NoCluster()
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kStarting, r::kDependencyUnknown, scheduled,
                  "no dependency state"));
  // PD down wins over unknown TiKV (PD is the root cause).
  add(Row("PdDownTikvUnknown", kInit)
          .WithDeps(Deps(NotReady(), Unknown()))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kPdNotReady, scheduled));
  add(Row("CustomDependencyInitContainer", kInit)
          .With(RenameInit("wait"))
          .Options([](ClassifierOptions& o) {
            o.dependency_init_containers = {"wait", "x"};
          })
          .WithDeps(PdDown())
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kDependency, r::kPdNotReady, scheduled));

  // ===== initializing: crash loops, images, config ===========================================
  const std::string crashloop =
      "{waiting: {reason: CrashLoopBackOff, message: 'back-off 5m0s restarting failed "
      "container=wait-for-pd pod=demo-tidb-0_tidb(9a2e4b17-5c3d-4f60-8e21-7b8c9d0e1f02)'}}";
  // wait-for-pd exits non-zero while PD is down: the restart back-off is its retry loop.
  add(Row("WaitForPdCrashLoopWhilePdDown", kInit)
          .With(InitState(crashloop, 7))
          .WithDeps(PdDown())
          .Now(At("10:20:00"))
          .Expect(S::kInitializing, C::kDependency, r::kPdNotReady, scheduled,
                  "CrashLoopBackOff (restarts 7)"));
  add(Row("WaitForPdCrashLoopWhilePdReady", kInit)
          .With(InitState(crashloop, 7))
          .WithDeps(AllReady(At("10:10:00")))
          .Now(At("10:11:00"))
          .Expect(S::kInitializing, C::kCrashloop, r::kCrashLoop, scheduled, "restarts 7"));
  add(Row("WaitForPdCrashLoopWhilePdUnknown", kInit)
          .With(InitState(crashloop, 3))
          .WithDeps(Deps(Unknown(), Unknown()))
          .Now(At("10:11:00"))
          .Expect(S::kInitializing, C::kCrashloop, r::kCrashLoop, scheduled));
  add(Row("OtherInitCrashLoopWhilePdDown", kInit)
          .With(RenameInit("copy-config"))
          .With(InitState(crashloop, 4))
          .WithDeps(PdDown())
          .Now(At("10:11:00"))
          .Expect(S::kInitializing, C::kCrashloop, r::kCrashLoop, scheduled,
                  "init container copy-config CrashLoopBackOff"));
  add(Row("InitErrImagePullWhilePdDown", kInit)
          .With(InitState("{waiting: {reason: ErrImagePull, message: 'rpc error: code = NotFound "
                          "desc = failed to pull and unpack image'}}"))
          .WithDeps(PdDown())
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kImage, r::kImagePull, scheduled, "ErrImagePull"));
  add(Row("InitImagePullBackOff", kInit)
          .With(InitState("{waiting: {reason: ImagePullBackOff, message: 'Back-off pulling image "
                          "\"podwait/wait-for-pd:0.1.0\"'}}"))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kImage, r::kImagePull, scheduled));
  add(Row("InitInvalidImageName", kInit)
          .With(InitState("{waiting: {reason: InvalidImageName, message: 'Failed to apply default "
                          "image tag \"podwait/wait-for-pd:\": invalid reference format'}}"))
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kImage, r::kInvalidImage, scheduled));
  add(Row("InitCreateContainerConfigError", kInit)
          .With(InitState("{waiting: {reason: CreateContainerConfigError, message: 'secret "
                          "\"demo-pd-tls\" not found'}}"))
          .WithDeps(PdDown())
          .Now(At("10:03:00"))
          .Expect(S::kInitializing, C::kConfig, r::kContainerConfig, scheduled, "demo-pd-tls"));

  // ===== initializing: normal start-up (starting) ============================================
  // Real fixture: warm-up-1 (not a dependency wait) running, Init:0/2.
  add(Row("RealPurpleInitRunning", kRealPurple)
          .Now(ParseRfc3339("2023-05-02T23:55:33Z").value())
          .Expect(S::kInitializing, C::kStarting, r::kInitRunning,
                  ParseRfc3339("2023-05-02T23:50:33Z").value(), "warm-up-1 running"));
  add(Row("RealPurpleInitPdDownIrrelevant", kRealPurple)
          .WithDeps(PdDown())
          .Now(ParseRfc3339("2023-05-02T23:59:33Z").value())
          .Expect(S::kInitializing, C::kStarting, r::kInitRunning,
                  ParseRfc3339("2023-05-02T23:50:33Z").value()));
  add(Row("WaitForPdContainerCreating", kInit)
          .With(InitState("{waiting: {reason: ContainerCreating}}"))
          .WithDeps(PdDown())
          .Now(At("10:00:30"))
          .Expect(S::kInitializing, C::kStarting, r::kContainerCreating, scheduled));
  add(Row("InitPodInitializingNoStatusYet", kInit)
          .With(Remove({"status", "initContainerStatuses"}))
          .Now(At("10:00:07"))
          .Expect(S::kInitializing, C::kStarting, r::kPodInitializing, scheduled,
                  "not started yet"));
  add(Row("InitCompletedConditionNotYetUpdated", kInit)
          .With(InitState("{terminated: {exitCode: 0, reason: Completed}}"))
          .Now(At("10:00:30"))
          .Expect(S::kInitializing, C::kStarting, r::kPodInitializing, scheduled, "completed"));
  // A non-dependency init container that exited non-zero, between restarts.
  add(Row("InitTerminatedErrorBetweenRestarts", kInit)
          .With(RenameInit("init-sysctl"))
          .With(InitState("{terminated: {exitCode: 1, reason: Error}}", 1))
          .Now(At("10:00:40"))
          .Expect(S::kInitializing, C::kStarting, r::kContainerWaiting, scheduled,
                  "init-sysctl Error"));
  // wait-for-pd exited non-zero between restarts (before CrashLoopBackOff): still the wait.
  add(Row("WaitForPdTerminatedErrorPdDown", kInit)
          .With(InitState("{terminated: {exitCode: 1, reason: Error}}", 1))
          .WithDeps(PdDown())
          .Now(At("10:00:40"))
          .Expect(S::kInitializing, C::kDependency, r::kPdNotReady, scheduled));

  // ===== starting: containers running, not ready =============================================
  const Timestamp initialized = At("10:00:20");
  add(Row("RunningNotReadyPdDown", kRunning)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, initialized,
                  "containers with unready status: [tikv]"));
  add(Row("RunningNotReadyPdUnknown", kRunning)
          .WithDeps(Deps(Unknown(), Unknown()))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kNotReady, r::kDependencyUnknown, initialized));
  add(Row("RunningNotReadyClusterUnknown", kRunning)
          .NoCluster()
          .Now(At("10:01:00"))
          .Expect(S::kStarting, C::kNotReady, r::kDependencyUnknown, initialized));
  // PD became ready during the stage: the pod was waiting on it.
  add(Row("RunningNotReadyPdReadyDuringStageWithinGrace", kRunning)
          .WithDeps(AllReady(At("10:05:00")))
          .Now(At("10:07:00"))
          .Expect(S::kStarting, C::kDependency, r::kDependencyReady, initialized));
  add(Row("RunningNotReadyPdReadyDuringStagePastGrace", kRunning)
          .WithDeps(AllReady(At("10:05:00")))
          .Now(At("10:07:00") + 1)
          .Expect(S::kStarting, C::kDependencyStuck, r::kDependencyReady, initialized));
  // PD was ready before the pod started: its readiness is its own.
  add(Row("FreshStartReadinessWithinGrace", kRunning)
          .Now(At("10:02:20"))
          .Expect(S::kStarting, C::kStarting, r::kReadinessProbe, initialized));
  add(Row("FreshStartReadinessPastGrace", kRunning)
          .Now(At("10:02:20") + 1)
          .Expect(S::kStarting, C::kNotReady, r::kReadinessProbe, initialized, "Ready=False"));
  // Was Ready, lost it at 11:30: the stage starts then, and it is not a start-up.
  add(Row("LostReadiness", kRunning)
          .With(Condition("Ready", "False", "ContainersNotReady",
                          "containers with unready status: [tikv]", "2024-05-02T11:30:00Z"))
          .Now(At("11:30:30"))
          .Expect(S::kStarting, C::kNotReady, r::kReadinessProbe, At("11:30:00")));
  add(Row("LostReadinessWhilePdDown", kRunning)
          .With(Condition("Ready", "False", "ContainersNotReady",
                          "containers with unready status: [tikv]", "2024-05-02T11:30:00Z"))
          .WithDeps(PdDown())
          .Now(At("11:35:00"))
          .Expect(S::kStarting, C::kDependency, r::kPdNotReady, At("11:30:00")));
  // PD has no dependencies: never dependency_unknown, plain readiness.
  add(Row("PdPodNoDependencies", kRunning)
          .With(Component("pd"))
          .NoCluster()
          .Now(At("10:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kReadinessProbe, initialized));
  // ===== native sidecars (init containers with restartPolicy: Always) =========================
  // tidb-operator v2 runs TiDB's slow log, TiFlash's two log tailers and TiCDC's resource syncer
  // this way (made up in that shape; the names are v2's, api/core/v1alpha1/names.go:
  // ContainerNameTiDBSlowLog "ti-slowlog", ContainerNameTiFlashServerLog "ti-serverlog",
  // ContainerNameTiFlashErrorLog "ti-errorlog", ContainerNameResourceSyncer "ti-resource-syncer",
  // each with restartPolicy Always in pkg/controllers/{tidb,tiflash,ticdc}/tasks/pod.go). The pod
  // is Initialized once they have started; a main container waiting behind a running sidecar is
  // `starting`, and the main container's rules (dependency, crash loop) are unchanged by it.
  const std::string running = "{running: {startedAt: '2024-05-02T10:00:19Z'}}";
  add(Row("SidecarTidbSlowlogRunningMainCreating", kRunning)
          .With(Component("tidb"))
          .With(RenameMain("tidb"))
          .With(AddNativeSidecar("ti-slowlog", running))
          .With(MainState("{waiting: {reason: ContainerCreating}}"))
          .Now(At("10:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kContainerCreating, initialized, "tidb"));
  add(Row("SidecarTidbSlowlogRunningMainNotReadyPdDown", kRunning)
          .With(Component("tidb"))
          .With(RenameMain("tidb"))
          .With(AddNativeSidecar("ti-slowlog", running))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:05:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, initialized));
  add(Row("SidecarTiflashLogTailersRunningMainInitializing", kRunning)
          .With(Component("tiflash"))
          .With(RenameMain("tiflash"))
          .With(AddNativeSidecar("ti-serverlog", running))
          .With(AddNativeSidecar("ti-errorlog", running))
          .With(MainState("{waiting: {reason: PodInitializing}}"))
          .Now(At("10:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kPodInitializing, initialized));
  add(Row("SidecarTicdcResourceSyncerRunningMainCrashLoopPdDown", kRunning)
          .With(Component("ticdc"))
          .With(RenameMain("ticdc"))
          .With(AddNativeSidecar("ti-resource-syncer", running))
          .With(MainState("{waiting: {reason: CrashLoopBackOff, message: 'back-off 40s'}}", 3))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:05:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, initialized, "CrashLoopBackOff"));
  // A sidecar that crash-loops is the pod's own problem, not a dependency wait.
  add(Row("SidecarCrashLoopIsCrashloop", kRunning)
          .With(Component("tidb"))
          .With(RenameMain("tidb"))
          .With(AddNativeSidecar(
              "ti-slowlog", "{waiting: {reason: CrashLoopBackOff, message: 'back-off 1m20s'}}"))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:05:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized, "ti-slowlog"));

  // ===== dynamic resource allocation (pkg/scheduler/framework/plugins/dynamicresources) =======
  // Made up after the plugin's Filter/PreFilter statuses as the scheduler's FitError lists them.
  add(Row("DraCannotAllocateAllClaims", kUnsched)
          .With(FitMessage("0/3 nodes are available: 3 cannot allocate all claims. preemption: 0/3 "
                           "nodes are available: 3 Preemption is not helpful for scheduling."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kDraClaimsUnallocatable, t0));
  // The filters decide as for any resource reason: the node without the GPU label never reached
  // DynamicResources; the other two passed every filter before it.
  add(Row("DraUnallocatableBesideNodeAffinity", kUnsched)
          .With(FitMessage("0/3 nodes are available: 1 node(s) didn't match Pod's node "
                           "affinity/selector, 2 cannot allocate all claims."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kDraClaimsUnallocatable, t0));
  add(Row("DraClaimNotFound", kUnsched)
          .With(FitMessage("0/3 nodes are available: resourceclaim \"demo-tikv-0-gpu\" not found. "
                           "preemption: 0/3 nodes are available: 3 Preemption is not helpful for "
                           "scheduling."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kConstraints, r::kDraClaimMissing, t0, "not found"));
  // Transient: the claim is being created from its template, or allocated for another pod.
  add(Row("DraClaimBeingCreated", kUnsched)
          .With(FitMessage("0/3 nodes are available: waiting for dynamic resource controller to "
                           "create the resourceclaim \"demo-tikv-0-gpu-x7k2p\"."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kScheduling, r::kDraClaimPending, t0));
  add(Row("DraClaimBeingAllocated", kUnsched)
          .Ca()
          .With(FitMessage("0/3 nodes are available: resource claim tidb/demo-tikv-0-gpu is in "
                           "the process of being allocated."))
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kScheduling, r::kDraClaimPending, t0, "being allocated"));

  // ===== PD bootstrap (--pd.bootstrap-grace, default 5m) =====================================
  // A running PD member, not Ready, while PD has no leader or is not initialized: it waits for
  // its peers. Expected up to the grace (pd_bootstrap), then a problem (pd_no_quorum).
  add(Row("PdBootstrapNoLeaderWithinGrace", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:03:00"))
          .Expect(S::kStarting, C::kStarting, r::kPdBootstrap, initialized,
                  "pd not ready (no_pd_leader): forming its quorum"));
  add(Row("PdBootstrapExactlyAtGrace", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .WithDeps(PdDown("cluster_not_initialized"))
          .Now(initialized + 5 * kMinute)
          .Expect(S::kStarting, C::kStarting, r::kPdBootstrap, initialized));
  add(Row("PdBootstrapPastGrace", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(initialized + 5 * kMinute + 1)
          .Expect(S::kStarting, C::kNotReady, r::kPdNoQuorum, initialized,
                  "pd not ready (no_pd_leader): no quorum within the bootstrap grace (5m0s)"));
  // Long past the grace the row must not read like the expected wait it was.
  add(Row("PdBootstrapHalfAnHourOn", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(initialized + 30 * kMinute)
          .Expect(S::kStarting, C::kNotReady, r::kPdNoQuorum, initialized,
                  "): no quorum within the bootstrap grace"));
  add(Row("PdBootstrapLongerGraceFlag", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .WithDeps(PdDown("no_pd_leader"))
          .Options([](ClassifierOptions& o) { o.pd_bootstrap_grace = 10 * kMinute; })
          .Now(initialized + 8 * kMinute)
          .Expect(S::kStarting, C::kStarting, r::kPdBootstrap, initialized));
  // A member that was Ready and lost it is not bootstrapping: a lost quorum pages at once.
  add(Row("PdLostReadinessNoLeader", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .With(Condition("Ready", "False", "ContainersNotReady",
                          "containers with unready status: [pd]", "2024-05-02T11:30:00Z"))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("11:31:00"))
          .Expect(S::kStarting, C::kNotReady, r::kReadinessProbe, At("11:30:00")));
  // PD has a leader: one member not Ready is its own readiness problem, as before.
  add(Row("PdMemberNotReadyPdHealthy", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kNotReady, r::kReadinessProbe, initialized));
  add(Row("TiflashWaitsForTikv", kRunning)
          .With(Component("tiflash"))
          .WithDeps(Deps(Ready(At("09:00:00")), NotReady("no_tikv_store_up")))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoTikvStoreUp, initialized));
  // The main container crash-loops: a symptom of its dependency while that is not ready (or
  // became ready within the grace: the kubelet's back-off runs out first), the crash loop kept in
  // the evidence; its own problem once the dependencies were ready before the stage or past the
  // grace, or when their readiness is unknown.
  const std::string crash =
      "{waiting: {reason: CrashLoopBackOff, message: 'back-off 2m40s restarting failed "
      "container=tikv'}}";
  add(Row("MainCrashLoopWhilePdDown", kRunning)
          .With(MainState(crash, 5))
          .WithDeps(PdDown())
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kDependency, r::kPdNotReady, initialized,
                  "container tikv CrashLoopBackOff (restarts 5)"));
  add(Row("MainCrashLoopPdReadyBeforeStage", kRunning)
          .With(MainState(crash, 5))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized, "container tikv"));
  add(Row("MainCrashLoopPdReadyDuringStageWithinGrace", kRunning)
          .With(MainState(crash, 5))
          .WithDeps(AllReady(At("10:05:00")))
          .Now(At("10:07:00"))
          .Expect(S::kStarting, C::kDependency, r::kDependencyReady, initialized,
                  "container tikv CrashLoopBackOff"));
  add(Row("MainCrashLoopPdReadyDuringStagePastGrace", kRunning)
          .With(MainState(crash, 5))
          .WithDeps(AllReady(At("10:05:00")))
          .Now(At("10:07:00") + 1)
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized, "container tikv"));
  add(Row("MainCrashLoopPdUnknown", kRunning)
          .With(MainState(crash, 5))
          .WithDeps(Deps(Unknown(), Unknown()))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized, "container tikv"));
  add(Row("MainCrashLoopClusterUnknown", kRunning)
          .With(MainState(crash, 5))
          .NoCluster()
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized));
  add(Row("MainCrashLoopComponentWithoutDependencies", kRunning)
          .With(Component("pd"))
          .With(RenameMain("pd"))
          .With(MainState(crash, 5))
          .WithDeps(PdDown())
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized, "container pd"));
  add(Row("TidbMainCrashLoopWhileTikvDown", kRunning)
          .With(Component("tidb"))
          .With(RenameMain("tidb"))
          .With(MainState(crash, 3))
          .WithDeps(Deps(Ready(At("09:00:00")), NotReady("no_tikv_store_up")))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoTikvStoreUp, initialized, "container tidb"));
  // A sidecar's crash loop is not the dependency's symptom.
  add(Row("SidecarCrashLoopWhilePdDown", kRunning)
          .With(AddSidecar("slowlog", crash))
          .WithDeps(PdDown())
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized, "container slowlog"));
  // Image and config errors are never hidden behind a dependency.
  add(Row("MainCrashLoopSidecarImagePullWhilePdDown", kRunning)
          .With(MainState(crash, 5))
          .With(AddSidecar("slowlog", "{waiting: {reason: ImagePullBackOff}}"))
          .WithDeps(PdDown())
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, initialized));
  add(Row("MainImagePullWhilePdDown", kRunning)
          .With(MainState("{waiting: {reason: ErrImagePull}}"))
          .WithDeps(PdDown())
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kImage, r::kImagePull, initialized));
  add(Row("MainConfigErrorWhilePdDown", kRunning)
          .With(MainState("{waiting: {reason: CreateContainerConfigError, message: 'secret "
                          "\"tikv-tls\" not found'}}"))
          .WithDeps(PdDown())
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kConfig, r::kContainerConfig, initialized));
  // Exited non-zero between restarts (before CrashLoopBackOff shows).
  add(Row("MainTerminatedBetweenRestartsPdDown", kRunning)
          .With(MainState("{terminated: {exitCode: 1, reason: Error}}", 2))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(At("10:03:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, initialized,
                  "container tikv Error (exit code 1, restarts 2)"));
  add(Row("MainTerminatedBetweenRestartsPdReady", kRunning)
          .With(MainState("{terminated: {exitCode: 1, reason: Error}}", 2))
          .Now(At("10:03:00"))
          .Expect(S::kStarting, C::kStarting, r::kContainerWaiting, initialized, "tikv Error"));

  // ===== tidb-operator v2: every pod created at once, waits in its main container ===========
  const Timestamp v2_tikv_init = V2At("08:00:09");
  const Timestamp v2_tidb_init = V2At("08:00:05");
  add(Row("V2TikvCrashLoopNoPdLeader", kV2TikvCrash)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_tikv_init,
                  "container tikv CrashLoopBackOff (restarts 6): back-off 2m40s"));
  add(Row("V2TidbCrashLoopNoPdLeader", kV2TidbCrash)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_tidb_init, "container tidb"));
  // PD got its leader at 08:10: the back-off runs out within the grace; then a crash loop.
  add(Row("V2TikvCrashLoopPdLeaderWithinGrace", kV2TikvCrash)
          .WithDeps(Deps(Ready(V2At("08:10:00")), NotReady("no_tikv_store_up")))
          .Now(V2At("08:11:00"))
          .Expect(S::kStarting, C::kDependency, r::kDependencyReady, v2_tikv_init));
  add(Row("V2TikvCrashLoopPdLeaderPastGrace", kV2TikvCrash)
          .WithDeps(Deps(Ready(V2At("08:10:00")), NotReady("no_tikv_store_up")))
          .Now(V2At("08:12:01"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_tikv_init));
  add(Row("V2TidbCrashLoopTikvDown", kV2TidbCrash)
          .WithDeps(Deps(Ready(V2At("08:10:00")), NotReady("no_tikv_store_up")))
          .Now(V2At("08:13:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoTikvStoreUp, v2_tidb_init));
  // PD microservices mode (the cluster's tso applies): TiDB takes its timestamps from the TSO
  // primary, not from PD. Every TSO instance down, PD and TiKV ready: a dependency wait on tso.
  add(Row("V2TidbCrashLoopTsoDownPdReady", kV2TidbCrash)
          .WithDeps(WithTso(NotReady("tso_not_ready"), V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kTsoNotReady, v2_tidb_init,
                  "tso not ready (tso_not_ready); container tidb CrashLoopBackOff"));
  // PD down as well: PD is looked at first.
  add(Row("V2TidbCrashLoopTsoAndPdDown", kV2TidbCrash)
          .WithDeps([] {
            ClusterDependencies d = PdDown("no_pd_leader");
            d.tso = NotReady("tso_not_ready");
            return d;
          }())
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_tidb_init));
  // TSO ready long before: TiDB's crash loop is its own.
  add(Row("V2TidbCrashLoopTsoReadyBefore", kV2TidbCrash)
          .WithDeps(WithTso(Ready(V2At("07:00:00")), V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_tidb_init));
  // TSO back within the ready grace: the kubelet's back-off runs out first.
  add(Row("V2TidbCrashLoopTsoReadyWithinGrace", kV2TidbCrash)
          .WithDeps(WithTso(Ready(V2At("08:07:00")), V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kDependencyReady, v2_tidb_init,
                  "pd+tso+tikv ready since"));
  // Not in microservices mode (tso left unknown without a reason: it does not apply): TiDB needs
  // PD and TiKV only, never an unknown tso.
  add(Row("V2TidbCrashLoopNoTsoInNormalMode", kV2TidbCrash)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_tidb_init));
  // The same for a running TiDB: its readiness is its own, never dependency_unknown for a tso
  // that does not apply.
  add(Row("V2TidbRunningNotReadyNoTsoInNormalMode", kV2TidbRunning)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:11:00"))
          .Expect(S::kStarting, C::kNotReady, r::kReadinessProbe, v2_tidb_init, "pd+tikv ready"));
  add(Row("V2TidbRunningNotReadyTikvDown", kV2TidbRunning)
          .WithDeps(Deps(Ready(V2At("08:10:00")), NotReady("no_tikv_store_up")))
          .Now(V2At("08:11:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoTikvStoreUp, v2_tidb_init,
                  "containers with unready status: [tidb]"));
  add(Row("V2TidbRunningNotReadyPdDown", kV2TidbRunning)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:11:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_tidb_init));
  add(Row("V2TidbRunningNotReadyDepsReadyPastGrace", kV2TidbRunning)
          .WithDeps(AllReady(V2At("08:10:00")))
          .Now(V2At("08:12:01"))
          .Expect(S::kStarting, C::kDependencyStuck, r::kDependencyReady, v2_tidb_init));
  // PD forming its quorum: an expected wait within --pd.bootstrap-grace (was readiness_probe).
  add(Row("V2PdRunningNotReadyNoDependencies", kV2PdRunning)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kPdBootstrap, V2At("08:00:06"),
                  "forming its quorum"));
  // The other v2 kinds, each waiting as its start-up does (model/v2.cpp Kinds()): TiKV's worker
  // and the PD microservices exit while PD has no leader, DM workers while no DM master answers.
  const Timestamp v2_crash_init = V2At("08:00:09");
  add(Row("V2TikvWorkerCrashLoopNoPdLeader", kV2TikvWorkerCrash)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_crash_init,
                  "container tikv-worker CrashLoopBackOff (restarts 6)"));
  add(Row("V2ResourceManagerCrashLoopNoPdLeader", kV2RmCrash)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_crash_init,
                  "container resource-manager CrashLoopBackOff"));
  add(Row("V2RouterCrashLoopNoPdLeader", kV2RouterCrash)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_crash_init,
                  "container router CrashLoopBackOff"));
  // PD with a leader long before: a PD microservice that still crash-loops is a crash loop.
  add(Row("V2RouterCrashLoopPdReadyBefore", kV2RouterCrash)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_crash_init));
  add(Row("V2DmWorkerCrashLoopNoDmMaster", kV2DmWorkerCrash)
          .WithDeps(WithDmMaster(NotReady("dm_master_not_ready"), V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kDmMasterNotReady, v2_crash_init,
                  "dm-master not ready (dm_master_not_ready); container dm-worker"));
  // PD down is no reason for a DM worker: it needs only its DM masters.
  add(Row("V2DmWorkerCrashLoopPdDownDmMastersReady", kV2DmWorkerCrash)
          .WithDeps([] {
            ClusterDependencies d = PdDown("no_pd_leader");
            d.dm_master = Ready(V2At("07:00:00"));
            return d;
          }())
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_crash_init));
  add(Row("V2DmWorkerCrashLoopDmMastersReadyWithinGrace", kV2DmWorkerCrash)
          .WithDeps(WithDmMaster(Ready(V2At("08:07:00")), V2At("07:00:00")))
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kDependency, r::kDependencyReady, v2_crash_init,
                  "dm-master ready since"));
  // No view of the DM masters (the cluster has no DM instances podwait saw): the crash loop.
  add(Row("V2DmWorkerCrashLoopDmMasterUnknown", kV2DmWorkerCrash)
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_crash_init));
  // TiProxy starts without PD (its etcd client dials lazily): Ready, with PD down or not.
  add(Row("V2TiproxyReadyPdDown", kV2TiproxyReady)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:05:00"))
          .NotWaiting());
  // A v2 TiKV pod without a readiness probe is Ready; its TiKV instance is not (store Preparing).
  const Timestamp inst_since = V2At("08:00:10");
  add(Row("V2TikvPodReadyInstanceNotReadyPdDown", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:05:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, inst_since,
                  "pod Ready; TiKV instance Ready=False InstanceNotHealthy"));
  add(Row("V2TikvPodReadyInstanceNotReadyPdReadyBefore", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kInstanceNotHealthy, inst_since));
  add(Row("V2TikvPodReadyInstanceNotReadyPastGrace", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:02:10") + 1)
          .Expect(S::kStarting, C::kNotReady, r::kInstanceNotHealthy, inst_since,
                  "InstanceNotHealthy"));
  add(Row("V2TikvPodReadyInstanceNotReadyPdUnknown", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .WithDeps(Deps(Unknown(), Unknown()))
          .Now(V2At("08:05:00"))
          .Expect(S::kStarting, C::kNotReady, r::kDependencyUnknown, inst_since));
  add(Row("V2TikvPodReadyInstanceNotReadyPdReadyDuringWait", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .WithDeps(AllReady(V2At("08:10:00")))
          .Now(V2At("08:13:00"))
          .Expect(S::kStarting, C::kDependencyStuck, r::kDependencyReady, inst_since));
  add(Row("V2TikvPodReadyInstanceReady", kV2TikvReady)
          .Instance(ConditionStatus::kTrue, "Ready", V2At("08:11:00"))
          .WithDeps(PdDown())
          .Now(V2At("08:12:00"))
          .NotWaiting());
  // Item: the instance's Ready reasons. A reason about the pod on a Ready pod is the operator's
  // stale view (pkg/controllers/common/task_status.go checks the pod first): not waiting.
  for (const char* stale : {"PodNotReady", "PodNotCreated", "PodTerminating"}) {
    add(Row(std::string("V2TikvPodReadyInstanceStale") + stale, kV2TikvReady)
            .Instance(ConditionStatus::kFalse, stale, inst_since)
            .WithDeps(PdDown("no_pd_leader"))
            .Now(V2At("08:05:00"))
            .NotWaiting());
  }
  // A reason podwait does not know holds the pod back like InstanceNotHealthy, under the
  // general reason.
  add(Row("V2TikvPodReadyInstanceUnknownReason", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "Unknown", inst_since)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:01:00"))
          .Expect(S::kStarting, C::kStarting, r::kInstanceNotReady, inst_since,
                  "TiKV instance Ready=False Unknown"));
  // A pod that is not Ready: its own state decides; the instance's reason is evidence.
  add(Row("V2TidbRunningNotReadyInstanceReasonInEvidence", kV2TidbRunning)
          .Instance(ConditionStatus::kFalse, "PodNotReady", v2_tidb_init, "TiDB")
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("08:11:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_tidb_init,
                  "; TiDB instance Ready=False PodNotReady"));
  add(Row("V2TikvPodReadyInstanceUnknown", kV2TikvReady)
          .WithDeps(PdDown())
          .Now(V2At("08:12:00"))
          .NotWaiting());
  // Planned waits of tidb-operator v2 (classify/README.md, "Planned waits"): the class is
  // planned whatever the wait would be, in the stage the pod is in, the wait kept in evidence.
  OperatorHold paused;
  paused.paused = true;
  OperatorHold suspending;
  suspending.suspending = true;
  OperatorHold suspended;
  suspended.suspended = true;
  OperatorHold switching;
  switching.mode_switch = "WaitingForTSOGroupReady";
  switching.mode_switch_since = V2At("08:00:00");
  add(Row("V2PausedClusterCrashLoopIsPlanned", kV2TikvCrash)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Hold(paused)
          .Now(V2At("20:00:00"))
          .Expect(S::kStarting, C::kPlanned, r::kClusterPaused, v2_tikv_init,
                  "else crashloop/crash_loop"));
  add(Row("V2SuspendingClusterIsPlanned", kV2TidbRunning)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Hold(suspending)
          .Now(V2At("20:00:00"))
          .Expect(S::kStarting, C::kPlanned, r::kClusterSuspending, v2_tidb_init,
                  "Suspended not True yet"));
  add(Row("V2SuspendedClusterIsPlanned", kV2TidbRunning)
          .WithDeps(AllReady(V2At("07:00:00")))
          .Hold(suspended)
          .Now(V2At("20:00:00"))
          .Expect(S::kStarting, C::kPlanned, r::kClusterSuspended, v2_tidb_init));
  add(Row("V2PausedUnscheduledIsPlanned", kUnsched)
          .Hold(paused)
          .Now(At("10:30:00"))
          .Expect(S::kUnscheduled, C::kPlanned, r::kClusterPaused, t0));
  add(Row("V2PausedReadyPodIsNotWaiting", kReady).Hold(paused).Now(At("10:30:00")).NotWaiting());
  add(Row("V2ModeSwitchPdWithinGrace", kV2PdRunning)
          .WithDeps(PdDown("no_pd_leader"))
          .Hold(switching)
          .Now(V2At("08:20:00"))
          .Expect(S::kStarting, C::kPlanned, r::kPdModeSwitch, V2At("08:00:06"),
                  "PDGroup ModeSwitching=True WaitingForTSOGroupReady"));
  add(Row("V2ModeSwitchPdPastGrace", kV2PdRunning)
          .WithDeps(PdDown("no_pd_leader"))
          .Hold(switching)
          .Now(V2At("08:30:06") + 1)
          .Expect(S::kStarting, C::kPlannedStuck, r::kPdModeSwitch, V2At("08:00:06")));
  add(Row("V2ModeSwitchGraceIsAnOption", kV2PdRunning)
          .WithDeps(PdDown("no_pd_leader"))
          .Hold(switching)
          .Options([](ClassifierOptions& o) { o.mode_switch_grace = 5 * kMinute; })
          .Now(V2At("08:05:06") + 1)
          .Expect(S::kStarting, C::kPlannedStuck, r::kPdModeSwitch, V2At("08:00:06")));
  // A mode switch holds PD and its microservices only: a TiKV of that cluster waits as before.
  add(Row("V2ModeSwitchLeavesTikvAlone", kV2TikvCrash)
          .WithDeps(PdDown("no_pd_leader"))
          .Hold(switching)
          .Now(V2At("08:20:00"))
          .Expect(S::kStarting, C::kDependency, r::kNoPdLeader, v2_tikv_init));
  // A switch to PD microservices mode waits for the TSO (and Scheduling) pods it needs
  // (pkg/controllers/pdgroup/tasks/mode_switch.go checkTSODependency): it does not hold them. A TSO
  // pod's own problem stays its class, the switch in its evidence; a TSO pod starting normally, or
  // crash-looping on PD that the switch restarts, is planned. The PD pods it restarts are planned
  // whatever they show. (Made-up variations: the fixtures' component label set to the TSO's.)
  auto as = [](std::string component) {
    return [component](YAML::Node& d) {
      d["metadata"]["labels"]["app.kubernetes.io/component"] = component;
      if (d["metadata"]["labels"]["pingcap.com/component"]) {
        d["metadata"]["labels"]["pingcap.com/component"] = component;
      }
      // The main container is named after the component (tidb-operator names it so).
      YAML::Node statuses = d["status"]["containerStatuses"];
      if (statuses && statuses.IsSequence() && statuses.size() > 0) {
        statuses[0]["name"] = component;
      }
    };
  };
  add(Row("V2ModeSwitchTsoUnschedulableIsCapacity", kUnsched)
          .With(as("tso"))
          .Hold(switching)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0,
                  "PDGroup ModeSwitching=True WaitingForTSOGroupReady waits for this pod, does not "
                  "hold it; PodScheduled=False Unschedulable: 0/3 nodes are available: 3 "
                  "Insufficient memory"));
  add(Row("V2ModeSwitchSchedulerUnschedulableIsCapacity", kUnsched)
          .With(as("scheduler"))
          .Hold(switching)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kCapacity, r::kInsufficientMemory, t0, "waits for this pod"));
  add(Row("V2ModeSwitchPdUnschedulableIsPlanned", kUnsched)
          .With(as("pd"))
          .Hold(switching)
          .Now(At("10:10:00"))
          .Expect(S::kUnscheduled, C::kPlanned, r::kPdModeSwitch, t0,
                  "else capacity/insufficient_memory"));
  add(Row("V2ModeSwitchTsoStartingIsPlanned", kVolumePod)
          .With(as("tso"))
          .Hold(switching)
          .Now(At("10:01:00"))
          .Expect(S::kStarting, C::kPlanned, r::kPdModeSwitch, vol_start,
                  "PDGroup ModeSwitching=True WaitingForTSOGroupReady; else starting/"));
  add(Row("V2ModeSwitchTsoCrashLoopPdReadyIsCrashloop", kV2RouterCrash)
          .With(as("tso"))
          .WithDeps(AllReady(V2At("07:00:00")))
          .Hold(switching)
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kCrashloop, r::kCrashLoop, v2_crash_init,
                  "PDGroup ModeSwitching=True WaitingForTSOGroupReady waits for this pod, does not "
                  "hold it; container tso CrashLoopBackOff"));
  add(Row("V2ModeSwitchTsoCrashLoopOnPdIsPlanned", kV2RouterCrash)
          .With(as("tso"))
          .WithDeps(PdDown("no_pd_leader"))
          .Hold(switching)
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kPlanned, r::kPdModeSwitch, v2_crash_init,
                  "else dependency/no_pd_leader"));
  add(Row("V2ModeSwitchTsoImageIsImage", kV2RouterCrash)
          .With(as("tso"))
          .With([](YAML::Node& d) {
            YAML::Node st = d["status"]["containerStatuses"][0];
            st["state"] = YAML::Node();
            st["state"]["waiting"]["reason"] = "ImagePullBackOff";
            st["state"]["waiting"]["message"] = "Back-off pulling image \"pingcap/pd:v8.5.9\"";
          })
          .WithDeps(AllReady(V2At("07:00:00")))
          .Hold(switching)
          .Now(V2At("08:08:00"))
          .Expect(S::kStarting, C::kImage, r::kImagePull, v2_crash_init, "waits for this pod"));
  // A Failed TSO pod during the switch: the switch does not re-create it (it re-creates only the
  // PD pods whose mode changes), so it stays the pod to delete.
  add(Row("V2ModeSwitchEvictedTsoIsNotPlanned", kV2TikvEvicted)
          .With(as("tso"))
          .Instance(ConditionStatus::kFalse, "PodNotReady", V2At("09:12:43"), "TSO")
          .WithDeps(AllReady(V2At("08:05:00")))
          .Hold(switching)
          .Now(V2At("09:20:00"))
          .Expect(S::kStarting, C::kNotReady, r::kEvicted, V2At("09:12:42"),
                  "PDGroup ModeSwitching=True WaitingForTSOGroupReady waits for this pod, does not "
                  "hold it; pod Failed (Evicted)"));
  // A Ready TiKV pod whose instance is Ready=False after its leaders were evicted (restart).
  add(Row("V2LeadersEvictedWithinGrace", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .Plan(r::kLeaderEviction, "LeadersEvicted=True Evicted", V2At("08:00:05"))
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:10:00"))
          .Expect(
              S::kStarting, C::kPlanned, r::kLeaderEviction, inst_since,
              "TiKV instance LeadersEvicted=True Evicted; else not_ready/instance_not_healthy"));
  // The grace counts from the later of the condition's transition and the stage start.
  add(Row("V2LeadersEvictedPastGrace", kV2TikvReady)
          .Instance(ConditionStatus::kFalse, "InstanceNotHealthy", inst_since)
          .Plan(r::kLeaderEviction, "LeadersEvicted=True Evicted", V2At("08:00:05"))
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("08:15:10") + 1)
          .Expect(S::kStarting, C::kPlannedStuck, r::kLeaderEviction, inst_since));
  add(Row("V2StoreOfflineWithinGrace", kV2TikvCrash)
          .Plan(r::kStoreOffline, "Offlined=False Processing", V2At("08:00:00"))
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("09:00:00"))
          .Expect(S::kStarting, C::kPlanned, r::kStoreOffline, v2_tikv_init,
                  "TiKV instance Offlined=False Processing"));
  add(Row("V2StoreOfflinePastGrace", kV2TikvCrash)
          .Plan(r::kStoreOffline, "Offlined=False Processing", V2At("08:00:00"))
          .WithDeps(AllReady(V2At("07:00:00")))
          .Now(V2At("10:00:09") + 1)
          .Expect(S::kStarting, C::kPlannedStuck, r::kStoreOffline, v2_tikv_init));
  // A cluster's hold wins over its instance's plan: paused, nothing moves.
  add(Row("V2PausedWinsOverLeaderEviction", kV2TikvCrash)
          .Plan(r::kLeaderEviction, "LeadersEvicted=True Evicted", V2At("08:00:00"))
          .WithDeps(AllReady(V2At("07:00:00")))
          .Hold(paused)
          .Now(V2At("12:00:00"))
          .Expect(S::kStarting, C::kPlanned, r::kClusterPaused, v2_tikv_init));
  add(Row("MainImagePullBackOff", kRunning)
          .With(MainState("{waiting: {reason: ImagePullBackOff, message: 'Back-off pulling image "
                          "\"pingcap/tikv:v7.5.1\"'}}"))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kImage, r::kImagePull, initialized));
  add(Row("MainCreateContainerError", kRunning)
          .With(MainState("{waiting: {reason: CreateContainerError, message: 'failed to "
                          "reserve container name'}}"))
          .Now(At("10:10:00"))
          .Expect(S::kStarting, C::kConfig, r::kContainerConfig, initialized));
  add(Row("MainContainerCreating", kRunning)
          .With(MainState("{waiting: {reason: ContainerCreating}}"))
          .WithDeps(PdDown())
          .Now(At("10:00:40"))
          .Expect(S::kStarting, C::kStarting, r::kContainerCreating, initialized));
  add(Row("MainPodInitializingJustInitialized", kRunning)
          .With(MainState("{waiting: {reason: PodInitializing}}"))
          .Now(At("10:00:21"))
          .Expect(S::kStarting, C::kStarting, r::kPodInitializing, initialized));
  add(Row("MainNoStatusesYet", kRunning)
          .With(Remove({"status", "containerStatuses"}))
          .Now(At("10:00:21"))
          .Expect(S::kStarting, C::kStarting, r::kContainerCreating, initialized));

  // ===== not waiting =========================================================================
  add(Row("ReadyPod", kReady).WithDeps(PdDown()).Now(At("10:10:00")).NotWaiting());
  add(Row("DeletedUnschedulablePod", kUnsched)
          .With(Field({"metadata", "deletionTimestamp"}, "2024-05-02T10:04:00Z"))
          .Ca()
          .Now(At("10:05:00"))
          .NotWaiting());
  add(Row("DeletedPodWaitingForPd", kInit)
          .With(Field({"metadata", "deletionTimestamp"}, "2024-05-02T10:04:00Z"))
          .WithDeps(PdDown())
          .Now(At("10:05:00"))
          .NotWaiting());
  add(Row("SucceededPod", kRunning)
          .With(Field({"status", "phase"}, "Succeeded"))
          .Now(At("10:05:00"))
          .NotWaiting());
  add(Row("FailedPod", kUnsched)
          .With(Field({"status", "phase"}, "Failed"))
          .Now(At("10:05:00"))
          .NotWaiting());
  // A Failed v2 pod whose instance is Ready=False (pkg/controllers/common/task_status.go:
  // PodNotReady) waits: v2 never re-creates it (pkg/controllers/tikv/tasks/pod.go TaskPod looks
  // only at a missing pod, its deletionTimestamp and its spec). Stage starting from its Ready
  // transition; not expected; the evidence says what to do.
  const Timestamp evicted_at = V2At("09:12:42");
  add(Row("V2EvictedPodInstanceNotReadyWaits", kV2TikvEvicted)
          .Instance(ConditionStatus::kFalse, "PodNotReady", V2At("09:12:43"))
          .WithDeps(AllReady(V2At("08:05:00")))
          .Now(V2At("09:20:00"))
          .Expect(S::kStarting, C::kNotReady, r::kEvicted, evicted_at,
                  "pod Failed (Evicted), never re-created by tidb-operator v2: delete the pod "
                  "(kubectl -n tidb-v2 delete pod tikv-tikv-m3p8zc); TiKV instance Ready=False "
                  "PodNotReady; DisruptionTarget TerminationByKubelet; kubelet: The node was low "
                  "on resource: memory."));
  // With PD down too: the pod is still the one to delete (no dependency to wait for: nothing
  // re-creates it when PD comes back).
  add(Row("V2EvictedPodPdDownStillNotReady", kV2TikvEvicted)
          .Instance(ConditionStatus::kFalse, "PodNotReady", V2At("09:12:43"))
          .WithDeps(PdDown("no_pd_leader"))
          .Now(V2At("09:20:00"))
          .Expect(S::kStarting, C::kNotReady, r::kEvicted, evicted_at, "delete the pod"));
  // Failed for another reason (the kubelet's admission: OutOfcpu): pod_failed.
  add(Row("V2FailedPodOtherReason", kV2TikvEvicted)
          .With(Field({"status", "reason"}, "OutOfcpu"))
          .With(Field({"status", "message"},
                      "Pod was rejected: Node didn't have enough resource: cpu, requested: 4000, "
                      "used: 6100, capacity: 8000"))
          .Instance(ConditionStatus::kFalse, "PodNotReady", V2At("09:12:43"))
          .Now(V2At("09:20:00"))
          .Expect(S::kStarting, C::kNotReady, r::kPodFailed, evicted_at, "pod Failed (OutOfcpu)"));
  // The instance Ready (a new pod already serves it), unknown or not looked up (a v1 pod: its
  // StatefulSet re-creates a Failed pod): not waiting.
  add(Row("V2EvictedPodInstanceReadyNotWaiting", kV2TikvEvicted)
          .Instance(ConditionStatus::kTrue, "Ready", V2At("09:13:00"))
          .Now(V2At("09:20:00"))
          .NotWaiting());
  add(Row("EvictedPodWithoutInstanceNotWaiting", kV2TikvEvicted)
          .Now(V2At("09:20:00"))
          .NotWaiting());
  return rows;
}

// ---------------------------------------------------------------------------------------------

struct Built {
  PodRecord pod;
  std::vector<EventRecord> events;
};

// The test binary gets the source root from CMake (PODWAIT_SOURCE_DIR), so it runs from any
// directory (ctest runs it from the build tree).
std::string ReadDocument(const std::string& relative) {
  std::ifstream in(std::string(PODWAIT_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Built Build(const Row& row) {
  std::string text = ReadDocument(row.doc);
  EXPECT_FALSE(text.empty()) << "cannot read " << row.doc;
  YAML::Node doc = YAML::Load(text);
  for (const auto& p : row.patches) p(doc);
  Built b;
  b.pod = PodFromYaml(doc);
  int n = 0;
  for (const auto& e : row.events) {
    EventRecord ev;
    ev.uid = "ev-" + std::to_string(++n);
    ev.pod_uid = e.uid == kThisPod ? b.pod.uid : e.uid == kNoUid ? "" : e.uid;
    ev.namespace_ = b.pod.namespace_;
    ev.pod_name = b.pod.name;
    ev.reason = e.reason;
    ev.message = e.message;
    ev.source = e.source;
    ev.first = e.first;
    ev.last = e.last;
    ev.count = e.count;
    NormalizeEvent(&ev);  // as ParseEvent does: rows may give the aggregated form
    b.events.push_back(std::move(ev));
  }
  return b;
}

Classification RunRow(const Row& row, const Built& b) {
  ClassifierOptions opt;
  if (row.options) row.options(opt);
  const ClusterDependencies* deps = row.deps ? &*row.deps : nullptr;
  return Classify(b.pod, b.events, deps, row.autoscaler, opt, row.now,
                  row.instance ? &*row.instance : nullptr, row.volumes ? &*row.volumes : nullptr);
}

class ClassifierTable : public ::testing::TestWithParam<Row> {};

TEST_P(ClassifierTable, Classifies) {
  const Row& row = GetParam();
  Built b = Build(row);
  ASSERT_NE(b.pod.created, 0) << "document not loaded: " << row.doc;
  Classification c = RunRow(row, b);
  ASSERT_EQ(c.waiting, row.waiting) << c.evidence;
  if (!row.waiting) return;
  EXPECT_EQ(StageName(c.stage), StageName(row.stage)) << c.evidence;
  EXPECT_EQ(WaitClassName(c.wait_class), WaitClassName(row.wait_class)) << c.evidence;
  EXPECT_EQ(c.reason, row.reason) << c.evidence;
  EXPECT_EQ(FormatRfc3339(c.stage_start), FormatRfc3339(row.stage_start));
  // The vocabulary's tables allow this stage, class and reason together.
  EXPECT_TRUE(Allowed(c.stage, c.wait_class, c.reason))
      << StageName(c.stage) << "/" << WaitClassName(c.wait_class) << "/" << c.reason;
  EXPECT_LE(c.evidence.size(), kMaxEvidenceLength);
  if (!row.evidence.empty()) {
    EXPECT_THAT(EvidenceText(c, row.now), HasSubstr(row.evidence));
  }
  // Pure: the same input gives the same output; the order of events does not matter.
  std::reverse(b.events.begin(), b.events.end());
  Classification again = RunRow(row, b);
  EXPECT_EQ(again.wait_class, c.wait_class);
  EXPECT_EQ(again.reason, c.reason);
  // Until recheck_at, time alone changes nothing (incremental evaluation relies on it); with no
  // recheck_at, nothing ever. Checked at the last millisecond before it and at points between.
  const Timestamp until = c.recheck_at != 0 ? c.recheck_at - 1 : row.now + 30 * 24 * 60 * kMinute;
  EXPECT_TRUE(c.recheck_at == 0 || c.recheck_at > row.now);
  for (Timestamp later : {row.now + 1, row.now + (until - row.now) / 2, until}) {
    if (later > until) continue;  // the row is a millisecond before a threshold
    Row at = row;
    at.now = later;
    EXPECT_EQ(RunRow(at, b), c) << "at +" << (later - row.now) << " ms";
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, ClassifierTable, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<Row>& p) { return p.param.name; });

// The table covers every class at least twice and every reason of the vocabulary at least once.
TEST(ClassifierTableCoverage, EveryClassTwiceEveryReasonOnce) {
  std::map<WaitClass, int> classes;
  std::set<std::string> reasons;
  std::set<std::string> names;
  int not_waiting = 0;
  for (const Row& row : Rows()) {
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate row " << row.name;
    if (!row.waiting) {
      ++not_waiting;
      continue;
    }
    ++classes[row.wait_class];
    reasons.insert(row.reason);
  }
  for (int i = 0; i < kWaitClassCount; ++i) {
    auto c = static_cast<WaitClass>(i);
    EXPECT_GE(classes[c], 2) << WaitClassName(c);
  }
  for (const ReasonInfo& info : kReasons) {
    const std::string_view x = info.name;
    EXPECT_TRUE(reasons.count(std::string(x))) << "no row for reason " << x;
  }
  EXPECT_GE(not_waiting, 4);
}

// ---------------------------------------------------------------------------------------------
// Behaviours beyond one row

TEST(Classifier, EvidenceIsCutAtAUtf8Boundary) {
  Row row("Long", kUnsched);
  std::string message = "0/3 nodes are available: 3 Insufficient memory. ";
  for (int i = 0; i < 400; ++i) message += "é";  // two bytes each
  row.With(FitMessage(message)).Now(At("10:10:00"));
  Built b = Build(row);
  Classification c = RunRow(row, b);
  EXPECT_EQ(c.reason, r::kInsufficientMemory);
  ASSERT_LE(c.evidence.size(), kMaxEvidenceLength);
  ASSERT_FALSE(c.evidence.empty());
  // Never ends inside a sequence: the last byte is ASCII or the end of an é (0xC3 0xA9).
  auto last = static_cast<unsigned char>(c.evidence.back());
  EXPECT_TRUE(last < 0x80 || last == 0xA9) << static_cast<int>(last);
}

TEST(Classifier, EmptyPodRecordDoesNotCrash) {
  PodRecord pod;
  AutoscalerState as;
  Classification c = Classify(pod, {}, nullptr, as, ClassifierOptions{}, At("10:00:00"));
  EXPECT_TRUE(c.waiting);
  EXPECT_EQ(c.stage, Stage::kUnscheduled);
  EXPECT_EQ(c.wait_class, WaitClass::kScheduling);
  EXPECT_EQ(c.reason, r::kNoSchedulerDecision);
}

TEST(Classifier, DependencyStateFlipsWithTheSamePod) {
  // One pod in Init on wait-for-pd, the dependency state moving under it.
  Row row("Flip", kInit);
  Built b = Build(row);
  ClassifierOptions opt;
  AutoscalerState as;
  auto classify = [&](ClusterDependencies d, Timestamp now) {
    return Classify(b.pod, b.events, &d, as, opt, now);
  };
  EXPECT_EQ(classify(PdDown(), At("10:05:00")).wait_class, WaitClass::kDependency);
  EXPECT_EQ(classify(AllReady(At("10:05:00")), At("10:06:00")).wait_class, WaitClass::kDependency);
  EXPECT_EQ(classify(AllReady(At("10:05:00")), At("10:08:00")).wait_class,
            WaitClass::kDependencyStuck);
  // PD fails again: waiting on it again, not stuck.
  EXPECT_EQ(classify(PdDown(), At("10:09:00")).wait_class, WaitClass::kDependency);
  // PD answers no more (a network policy): never a false `dependency`.
  Classification unknown = classify(Deps(Unknown(), Unknown()), At("10:10:00"));
  EXPECT_EQ(unknown.wait_class, WaitClass::kStarting);
  EXPECT_EQ(unknown.reason, r::kDependencyUnknown);
  // Ready again: the grace starts over.
  EXPECT_EQ(classify(AllReady(At("10:11:00")), At("10:12:00")).wait_class, WaitClass::kDependency);
}

// A dependency row says which dependencies it waits on (the tracker reads it for heldBy): the one
// not ready, PD first; every needed one when all are ready; nothing for any other row.
TEST(Classifier, DependencyRowsSayWhatTheyWaitOn) {
  Row row("WaitsOn", kInit);  // TiDB in Init on wait-for-pd: needs PD and TiKV
  Built b = Build(row);
  ClassifierOptions opt;
  AutoscalerState as;
  auto classify = [&](ClusterDependencies d, Timestamp now) {
    return Classify(b.pod, b.events, &d, as, opt, now);
  };
  Classification pd_down = classify(PdDown(), At("10:05:00"));
  EXPECT_EQ(pd_down.wait_class, WaitClass::kDependency);
  EXPECT_EQ(pd_down.waits_on, DependencySet(Dependency::kPd));
  Classification tikv_down =
      classify(Deps(Ready(At("10:00:00")), NotReady("tikv_not_ready")), At("10:05:00"));
  EXPECT_EQ(tikv_down.wait_class, WaitClass::kDependency);
  EXPECT_EQ(tikv_down.waits_on, DependencySet(Dependency::kTikv));
  Classification stuck = classify(AllReady(At("10:05:00")), At("10:08:00"));
  EXPECT_EQ(stuck.wait_class, WaitClass::kDependencyStuck);
  EXPECT_EQ(stuck.waits_on, DependencySet(Dependency::kPd, Dependency::kTikv));
  Classification unknown = classify(Deps(Unknown(), Unknown()), At("10:10:00"));
  EXPECT_EQ(unknown.wait_class, WaitClass::kStarting);
  EXPECT_TRUE(unknown.waits_on.Empty());
}

TEST(Classifier, StageStartFollowsTheStages) {
  // The same TiKV pod through its stages: creation, scheduling, initialization, readiness.
  AutoscalerState as;
  ClassifierOptions opt;
  ClusterDependencies deps = AllReady(At("09:00:00"));
  Built unsched = Build(Row("u", kUnsched));
  Built init = Build(Row("i", kInit));
  Built running = Build(Row("r", kRunning));
  EXPECT_EQ(Classify(unsched.pod, {}, &deps, as, opt, At("10:01:00")).stage_start, At("10:00:00"));
  EXPECT_EQ(Classify(init.pod, {}, &deps, as, opt, At("10:01:00")).stage_start, At("10:00:05"));
  EXPECT_EQ(Classify(running.pod, {}, &deps, as, opt, At("10:01:00")).stage_start, At("10:00:20"));
}

}  // namespace
}  // namespace podwait
