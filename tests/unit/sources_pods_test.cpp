// ParsePod on the real pod documents of tests/fixtures/real/k8s (YAML, converted to JSON here the
// way the API server would serve them), plus literal edge cases, and PodSource's replace contract.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include "exporter/classify/classifier.h"
#include "exporter/common/json.h"
#include "exporter/common/time_format.h"
#include "exporter/sources/pods.h"
#include "tests/support/process.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;

// YAML -> RapidJSON. Plain scalars become numbers, booleans or null where YAML would read them
// so; quoted scalars stay strings (status: "False" is a string, ready: false a boolean).
void ToJson(const YAML::Node& node, rapidjson::Value* out, rapidjson::Document::AllocatorType& a) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out->SetObject();
      for (const auto& kv : node) {
        rapidjson::Value key(kv.first.Scalar().c_str(), a);
        rapidjson::Value value;
        ToJson(kv.second, &value, a);
        out->AddMember(key, value, a);
      }
      return;
    case YAML::NodeType::Sequence:
      out->SetArray();
      for (const auto& item : node) {
        rapidjson::Value value;
        ToJson(item, &value, a);
        out->PushBack(value, a);
      }
      return;
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "?") {  // plain scalar
        if (s == "null" || s == "~") return out->SetNull(), void();
        if (s == "true") return out->SetBool(true), void();
        if (s == "false") return out->SetBool(false), void();
        char* end = nullptr;
        const long long v = std::strtoll(s.c_str(), &end, 10);
        if (!s.empty() && end != nullptr && *end == '\0') return out->SetInt64(v), void();
      }
      out->SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
      return;
    }
    default:
      out->SetNull();
  }
}

rapidjson::Document LoadYaml(const std::string& relative) {
  rapidjson::Document doc;
  ToJson(YAML::LoadFile(testing::SourcePath(relative)), &doc, doc.GetAllocator());
  return doc;
}

Timestamp T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

// Every field of a record, for comparing two.
std::string Describe(const PodRecord& p) {
  std::string out = p.uid + "|" + p.namespace_ + "|" + p.name + "|" + p.cluster + "|" +
                    p.component + "|" + p.resource_version + "|" + std::to_string(p.created) + "|" +
                    std::to_string(p.deleted) + "|" + std::to_string(int(p.phase)) + "|" +
                    std::to_string(p.compact_ready) + std::to_string(p.v2_instance) +
                    std::to_string(p.source) + "|" + std::to_string(p.compact_ready_since);
  for (const auto& c : p.detail().conditions) {
    out += "|c:" + c.type + "," + std::to_string(int(c.status)) + "," + c.reason + "," + c.message +
           "," + std::to_string(c.last_transition);
  }
  for (const auto* list : {&p.detail().init_containers, &p.detail().containers}) {
    for (const auto& c : *list) {
      out += "|s:" + c.name + "," + std::to_string(int(c.state)) + "," + c.reason + "," +
             c.message + "," + std::to_string(c.restart_count) + std::to_string(c.ready) + "," +
             std::to_string(c.exit_code) + "," + std::to_string(c.started_at);
    }
  }
  return out;
}

// What the pod reflector parses (a document without PodSkippedFields()) gives the record the full
// document gives, on every real-shaped pod document we have, compact or not.
TEST(ParsePod, TheSkippedFieldsChangeNothing) {
  std::vector<std::string> docs;
  docs.push_back(
      testing::YamlFileToJsonText("tests/fixtures/real/k8s/pod-stuck-in-init-purple.yaml"));
  for (const char* f : {"tidb-init-wait-for-pd.yaml", "tikv-ready.yaml",
                        "tikv-running-not-ready.yaml", "tikv-unschedulable.yaml"}) {
    docs.push_back(
        testing::YamlFileToJsonText(std::string("tests/fixtures/made-up/classify/") + f));
  }
  for (const char* f : {"pd-running-not-ready-no-leader.json", "tidb-crashloop-no-pd-leader.json",
                        "tidb-running-not-ready.json", "tikv-crashloop-no-pd-leader.json",
                        "tikv-ready-instance-not-ready.json", "tikv-evicted.json"}) {
    docs.push_back(
        testing::ReadFile(testing::SourcePath(std::string("tests/fixtures/v2/pods/") + f)));
  }
  const json::SkipPaths skip(PodSkippedFields());
  for (const std::string& text : docs) {
    auto full = json::Parse(text);
    ASSERT_TRUE(full.ok()) << full.error;
    ASSERT_NE(json::Object(&*full.value, "spec"), nullptr);
    rapidjson::Document skipped;
    ASSERT_EQ(json::ParseInto(text, &skipped, skip), "");
    EXPECT_LT(testing::JsonText(skipped).size(), testing::JsonText(*full.value).size());
    EXPECT_EQ(json::Member(json::Object(&skipped, "spec"), "containers"), nullptr);
    for (bool compact : {false, true}) {
      PodParseOptions options;
      options.compact_ready = compact;
      Result<PodRecord> a = ParsePod(*full.value, options);
      Result<PodRecord> b = ParsePod(skipped, options);
      ASSERT_TRUE(a.ok()) << a.error;
      ASSERT_TRUE(b.ok()) << b.error;
      EXPECT_EQ(Describe(*b), Describe(*a));
    }
  }
}

TEST(ParsePod, RealPodStuckInInit) {
  rapidjson::Document doc = LoadYaml("tests/fixtures/real/k8s/pod-stuck-in-init-purple.yaml");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  const PodRecord& p = *r;
  EXPECT_EQ(p.uid, "187c6651-b914-4b6e-adc4-5fc1d963998f");
  EXPECT_EQ(p.namespace_, "default");
  EXPECT_EQ(p.name, "purple");
  EXPECT_EQ(p.resource_version, "1217");
  EXPECT_EQ(p.created, T("2023-05-02T23:50:33Z"));
  EXPECT_EQ(p.deleted, 0);
  EXPECT_EQ(p.phase, PodPhase::kPending);
  EXPECT_EQ(p.cluster, "");  // no labels on this pod
  ASSERT_EQ(p.detail().conditions.size(), 4u);
  const PodCondition* init = p.Condition("Initialized");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->status, ConditionStatus::kFalse);
  EXPECT_EQ(init->reason, "ContainersNotInitialized");
  EXPECT_EQ(init->message, "containers with incomplete status: [warm-up-1 warm-up-2]");
  EXPECT_EQ(init->last_transition, T("2023-05-02T23:50:33Z"));
  EXPECT_EQ(p.Condition("PodScheduled")->status, ConditionStatus::kTrue);
  ASSERT_EQ(p.detail().init_containers.size(), 2u);
  EXPECT_EQ(p.detail().init_containers[0].name, "warm-up-1");
  EXPECT_EQ(p.detail().init_containers[0].state, ContainerState::kRunning);
  EXPECT_EQ(p.detail().init_containers[0].started_at, T("2023-05-02T23:50:34Z"));
  EXPECT_EQ(p.detail().init_containers[1].state, ContainerState::kWaiting);
  EXPECT_EQ(p.detail().init_containers[1].reason, "PodInitializing");
  ASSERT_EQ(p.detail().containers.size(), 1u);
  EXPECT_EQ(p.detail().containers[0].name, "purple-container");
  EXPECT_EQ(p.detail().containers[0].state, ContainerState::kWaiting);
  EXPECT_EQ(p.detail().containers[0].reason, "PodInitializing");
  EXPECT_FALSE(p.detail().containers[0].ready);
  EXPECT_EQ(p.detail().containers[0].restart_count, 0);
}

// The two status-only fixtures are real status blocks; the metadata around them is made up
// (the smallest metadata a served pod always has) so that they parse as whole pods.
rapidjson::Document StatusFixtureAsPod(const std::string& file) {
  rapidjson::Document doc = LoadYaml("tests/fixtures/real/k8s/" + file);
  auto& a = doc.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", "tidb-test-tikv-0", a);
  meta.AddMember("namespace", "tidb", a);
  meta.AddMember("uid", "made-up-uid", a);
  meta.AddMember("creationTimestamp", "2024-11-22T18:20:40Z", a);
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("app.kubernetes.io/instance", "test", a);
  labels.AddMember("app.kubernetes.io/component", "tikv", a);
  meta.AddMember("labels", labels, a);
  doc.AddMember("metadata", meta, a);
  return doc;
}

TEST(ParsePod, RealUnschedulableStatusKeepsTheSchedulerMessage) {
  rapidjson::Document doc =
      StatusFixtureAsPod("pod-pending-unschedulable-autoscaler-taint.status.yaml");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->cluster, "test");
  EXPECT_EQ(r->component, "tikv");
  const PodCondition* sched = r->Condition("PodScheduled");
  ASSERT_NE(sched, nullptr);
  EXPECT_EQ(sched->status, ConditionStatus::kFalse);
  EXPECT_EQ(sched->reason, "Unschedulable");
  EXPECT_THAT(sched->message, ::testing::HasSubstr("ToBeDeletedByClusterAutoscaler"));
  EXPECT_THAT(sched->message, ::testing::HasSubstr("2 Insufficient cpu"));
  EXPECT_TRUE(r->detail().containers.empty());
}

TEST(ParsePod, RealUnboundPvcStatus) {
  rapidjson::Document doc = StatusFixtureAsPod("pod-pending-unschedulable-unbound-pvc.status.yaml");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->Condition("PodScheduled")->message,
              ::testing::HasSubstr("unbound immediate PersistentVolumeClaims"));
}

// An empty or year-1 creationTimestamp measured waits from 1970 or year 1 (6.4e10 s): such a pod
// is a counted parse error (the API server always sets a real one); a year-1 condition time is
// unknown.
TEST(ParsePod, ANonsenseCreationTimeIsAnError) {
  for (const char* created :
       {R"("creationTimestamp": "",)", R"("creationTimestamp": "0001-01-01T00:00:00Z",)",
        R"("creationTimestamp": "yesterday",)"}) {
    rapidjson::Document doc;
    doc.Parse((std::string(R"({"metadata": {"name": "p", "namespace": "tidb", "uid": "u1", )") +
               created + R"( "resourceVersion": "1"}, "status": {"phase": "Pending"}})")
                  .c_str());
    Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
    EXPECT_FALSE(r.ok()) << created;
    EXPECT_EQ(r.error, "pod without a plausible metadata.creationTimestamp") << created;
  }
  rapidjson::Document doc;
  doc.Parse(R"({"metadata": {"name": "p", "namespace": "tidb", "uid": "u1",
    "creationTimestamp": "2024-05-02T10:00:00Z"}, "status": {"phase": "Pending",
    "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
      "lastTransitionTime": "0001-01-01T00:00:00Z"}]}})");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->Condition("PodScheduled")->last_transition, 0);
}

TEST(ParsePod, CustomLabelKeysDeletionAndTerminatedContainers) {
  // Made up, in the shape of a tidb-operator TiKV pod being deleted after a crash loop.
  rapidjson::Document doc;
  doc.Parse(R"({
    "metadata": {"name": "basic-tikv-1", "namespace": "tidb", "uid": "u1",
      "resourceVersion": "99", "creationTimestamp": "2024-05-02T10:00:00Z",
      "deletionTimestamp": "2024-05-02T11:00:00.500Z",
      "labels": {"pingcap.com/cluster": "basic", "pingcap.com/component": "tikv"},
      "ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm"},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "basic-tikv", "controller": true}]},
    "status": {"phase": "Running",
      "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
      "containerStatuses": [{"name": "tikv", "ready": false, "restartCount": 7,
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
        "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}},
       {"name": "sidecar", "ready": false, "restartCount": 0,
        "state": {"terminated": {"exitCode": 2, "reason": "Error", "startedAt": "2024-05-02T10:01:00Z"}}}]}
  })");
  PodParseOptions opts;
  opts.cluster_label = "pingcap.com/cluster";
  opts.component_label = "pingcap.com/component";
  Result<PodRecord> r = ParsePod(doc, opts);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->cluster, "basic");
  EXPECT_EQ(r->component, "tikv");
  EXPECT_EQ(r->deleted, T("2024-05-02T11:00:00.500Z"));
  EXPECT_EQ(r->phase, PodPhase::kRunning);
  ASSERT_EQ(r->detail().containers.size(), 2u);
  EXPECT_EQ(r->detail().containers[0].reason, "CrashLoopBackOff");
  EXPECT_EQ(r->detail().containers[0].restart_count, 7);
  EXPECT_EQ(r->detail().containers[0].exit_code, 137);
  EXPECT_EQ(r->detail().containers[1].state, ContainerState::kTerminated);
  EXPECT_EQ(r->detail().containers[1].exit_code, 2);
  EXPECT_EQ(r->detail().containers[1].reason, "Error");
  EXPECT_EQ(r->detail().containers[1].started_at, T("2024-05-02T10:01:00Z"));
}

// The labels tidb-operator v1.6.6 writes on the pods of each object (pkg/apis/label/label.go:
// New(), NewDM(), NewMonitor(), NewTiDBNGMonitoring(), NewTiDBDashboard() with Instance() and the
// component setters; the discovery's in pkg/manager/member/tidb_discovery_manager.go
// getDiscoveryMeta). Made up around those labels: only metadata matters here.
TEST(ParsePod, TheOwnerOfAPodIsReadFromItsNameAndComponentLabels) {
  struct Row {
    const char* app_name;
    const char* instance;
    const char* component;
    PodOwner owner;
  };
  const Row rows[] = {
      {"tidb-cluster", "basic", "pd", PodOwner::kTidbCluster},
      {"tidb-cluster", "basic", "tikv", PodOwner::kTidbCluster},
      {"tidb-cluster", "basic", "discovery", PodOwner::kNotACluster},
      {"tidb-cluster", "basic", "monitor", PodOwner::kNotACluster},  // TidbMonitor "basic"
      {"tidb-ng-monitoring", "basic", "ng-monitoring", PodOwner::kNotACluster},
      {"tidb-dashboard", "basic", "tidb-dashboard", PodOwner::kNotACluster},
      {"dm-cluster", "basic", "dm-master", PodOwner::kDmCluster},
      {"dm-cluster", "basic", "dm-worker", PodOwner::kDmCluster},
      {"dm-cluster", "basic-dm", "discovery", PodOwner::kNotACluster},
      {"", "basic", "tikv", PodOwner::kTidbCluster},  // no name label: as before
  };
  for (const Row& row : rows) {
    std::string labels = std::string(R"("app.kubernetes.io/managed-by": "tidb-operator",)") +
                         R"("app.kubernetes.io/instance": ")" + row.instance + R"(",)" +
                         R"("app.kubernetes.io/component": ")" + row.component + R"(")";
    if (*row.app_name != '\0') {
      labels += std::string(R"(, "app.kubernetes.io/name": ")") + row.app_name + R"(")";
    }
    rapidjson::Document doc;
    doc.Parse((R"({"metadata": {"name": "p-0", "namespace": "tidb", "uid": "u",
        "creationTimestamp": "2024-05-02T10:00:00Z", "labels": {)" +
               labels + R"(}}, "status": {"phase": "Pending"}})")
                  .c_str());
    Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r->owner, row.owner) << row.app_name << " " << row.component;
    EXPECT_EQ(r->cluster, row.instance);
  }
}

TEST(ParsePod, MessagesAreBoundedOnUtf8Boundaries) {
  std::string long_message;
  for (int i = 0; i < 600; ++i) long_message += "é";  // 2 bytes each
  rapidjson::Document doc;
  doc.Parse((R"({"metadata":{"name":"a","namespace":"n","uid":"u"},"status":{"conditions":[
    {"type":"PodScheduled","status":"False","message":")" +
             long_message + R"("}]}})")
                .c_str());
  ASSERT_FALSE(doc.HasParseError());
  PodParseOptions opts;
  opts.max_message_bytes = 1023;
  Result<PodRecord> r = ParsePod(doc, opts);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->detail().conditions[0].message.size(), 1022u);
  EXPECT_EQ(BoundedText("abc", 10), "abc");
  EXPECT_EQ(BoundedText("abcdef", 3), "abc");
}

TEST(ParsePod, KeepsOnlyTheConditionsClassificationReads) {
  // Made up, in the shape of a Kubernetes 1.29+ pod (PodReadyToStartContainers) with a
  // readiness gate.
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"a","namespace":"n","uid":"u"},"status":{"conditions":[
    {"type":"PodReadyToStartContainers","status":"True"},{"type":"Initialized","status":"True"},
    {"type":"Ready","status":"False"},{"type":"ContainersReady","status":"True"},
    {"type":"PodScheduled","status":"True"},{"type":"example.com/gate","status":"False"}]}})");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok());
  std::vector<std::string> types;
  for (const auto& c : r->detail().conditions) types.push_back(c.type);
  EXPECT_THAT(types, ElementsAre("Initialized", "Ready", "ContainersReady", "PodScheduled"));
  EXPECT_EQ(r->detail().conditions.capacity(), 4u);
}

// A Failed pod keeps the kubelet's word on it: status.reason and status.message, and a True
// DisruptionTarget (a Failed v2 pod waits, classify/starting.h). Made-up fixture after kubernetes
// pkg/kubelet/eviction/eviction_manager.go (tests/fixtures/v2/README.md).
TEST(ParsePod, AFailedPodKeepsTheKubeletsReasonAndMessage) {
  rapidjson::Document doc;
  const std::string text =
      testing::ReadFile(testing::SourcePath("tests/fixtures/v2/pods/tikv-evicted.json"));
  doc.Parse(text.c_str());
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->phase, PodPhase::kFailed);
  EXPECT_EQ(r->detail().status_reason, "Evicted");
  EXPECT_THAT(r->detail().status_message, ::testing::StartsWith("The node was low on resource"));
  const PodCondition* t = r->Condition("DisruptionTarget");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->reason, "TerminationByKubelet");
  // A pod in another phase keeps neither (a Pending pod's status.reason, e.g. a nominated pod's,
  // is no terminal verdict); a DisruptionTarget that is False is not kept.
  rapidjson::Document running;
  running.Parse(R"({"metadata":{"name":"a","namespace":"n","uid":"u"},"status":{
    "phase":"Running","reason":"Whatever","message":"m","conditions":[
    {"type":"DisruptionTarget","status":"False","reason":"PreemptionByScheduler"}]}})");
  Result<PodRecord> p = ParsePod(running, PodParseOptions{});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->detail().status_reason, "");
  EXPECT_EQ(p->detail().status_message, "");
  EXPECT_EQ(p->Condition("DisruptionTarget"), nullptr);
}

// A sandbox that is not ready (PodReadyToStartContainers=False, Kubernetes 1.29+; PodHasNetwork
// before) is kept: the `volume` class reads it (classify/volumes.h).
TEST(ParsePod, KeepsTheSandboxConditionWhileFalse) {
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"a","namespace":"n","uid":"u"},"status":{"conditions":[
    {"type":"PodReadyToStartContainers","status":"False","lastTransitionTime":"2024-05-02T10:00:05Z"},
    {"type":"Initialized","status":"True"},{"type":"Ready","status":"False"},
    {"type":"PodScheduled","status":"True"}]}})");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok());
  const PodCondition* sandbox = r->Condition("PodReadyToStartContainers");
  ASSERT_NE(sandbox, nullptr);
  EXPECT_EQ(sandbox->status, ConditionStatus::kFalse);
  EXPECT_EQ(sandbox->last_transition, T("2024-05-02T10:00:05Z"));
}

// Made up, in the shape of a Ready tidb-operator TiKV pod (wait-for-pd init container done, main
// container running), as podwait-sim's pod shorthand writes it.
constexpr const char* kReadyTikv = R"({
  "metadata": {"name": "basic-tikv-0", "namespace": "tidb", "uid": "u-ready",
    "resourceVersion": "812", "creationTimestamp": "2024-05-02T10:00:00Z",
    "labels": {"app.kubernetes.io/instance": "basic", "app.kubernetes.io/component": "tikv"}},
  "spec": {"initContainers": [{"name": "wait-for-pd", "image": "pingcap/podwait:latest"}],
    "containers": [{"name": "tikv", "image": "pingcap/tikv:v7.5.0"}]},
  "status": {"phase": "Running",
    "conditions": [
      {"type": "Initialized", "status": "True", "lastTransitionTime": "2024-05-02T10:01:00Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-02T10:02:00Z"},
      {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2024-05-02T10:02:00Z"},
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-05-02T10:00:01Z"}],
    "initContainerStatuses": [{"name": "wait-for-pd", "ready": true, "restartCount": 0,
      "state": {"terminated": {"exitCode": 0, "reason": "Completed",
        "startedAt": "2024-05-02T10:00:05Z"}}}],
    "containerStatuses": [{"name": "tikv", "ready": true, "restartCount": 0,
      "state": {"running": {"startedAt": "2024-05-02T10:01:01Z"}}}]}})";

TEST(ParsePod, AReadyPodKeepsOnlyItsReadiness) {
  rapidjson::Document doc;
  doc.Parse(kReadyTikv);
  ASSERT_FALSE(doc.HasParseError());
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->uid, "u-ready");
  EXPECT_EQ(r->Key(), "tidb/basic-tikv-0");
  EXPECT_EQ(r->cluster, "basic");
  EXPECT_EQ(r->component, "tikv");
  EXPECT_EQ(r->resource_version, "812");
  EXPECT_EQ(r->created, T("2024-05-02T10:00:00Z"));
  EXPECT_EQ(r->phase, PodPhase::kRunning);
  EXPECT_TRUE(r->compact_ready);
  EXPECT_FALSE(r->has_detail()) << "no detail block for a compact record";
  EXPECT_TRUE(r->detail().conditions.empty());
  EXPECT_TRUE(r->IsReady());
  EXPECT_EQ(r->ReadySince(), T("2024-05-02T10:02:00Z"));
  EXPECT_TRUE(r->detail().init_containers.empty());
  EXPECT_TRUE(r->detail().containers.empty());

  // The classifier says the same of the compact and of the full record: not waiting.
  PodParseOptions full_options;
  full_options.compact_ready = false;
  Result<PodRecord> full = ParsePod(doc, full_options);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->detail().conditions.size(), 4u);
  EXPECT_EQ(full->detail().containers.size(), 1u);
  EXPECT_FALSE(full->compact_ready);
  EXPECT_TRUE(full->IsReady());
  EXPECT_EQ(full->ReadySince(), r->ReadySince());
  const ClassifierOptions copt;
  const AutoscalerState autoscaler;
  const Timestamp now = T("2024-05-02T11:00:00Z");
  EXPECT_FALSE(Classify(*r, {}, nullptr, autoscaler, copt, now).waiting);
  EXPECT_FALSE(Classify(*full, {}, nullptr, autoscaler, copt, now).waiting);
}

TEST(ParsePod, NotReadyOrDeletingPodsKeepEverythingTheClassifierReads) {
  // The same pod after losing readiness, and Ready but being deleted: kept whole.
  std::string not_ready = kReadyTikv;
  const std::string ready_true =
      R"({"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-02T10:02:00Z"})";
  not_ready.replace(not_ready.find(ready_true), ready_true.size(),
                    R"({"type": "Ready", "status": "False", "reason": "ContainersNotReady",
                        "message": "containers with unready status: [tikv]",
                        "lastTransitionTime": "2024-05-02T10:30:00Z"})");
  std::string deleting = kReadyTikv;
  deleting.replace(deleting.find(R"("resourceVersion")"), 0,
                   R"("deletionTimestamp": "2024-05-02T10:40:00Z", )");
  for (const std::string& text : {not_ready, deleting}) {
    rapidjson::Document doc;
    doc.Parse(text.c_str());
    ASSERT_FALSE(doc.HasParseError()) << text;
    Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_FALSE(r->compact_ready);
    EXPECT_EQ(r->detail().conditions.size(), 4u);
    ASSERT_EQ(r->detail().init_containers.size(), 1u);
    EXPECT_EQ(r->detail().init_containers[0].reason, "Completed");
    ASSERT_EQ(r->detail().containers.size(), 1u);
    EXPECT_EQ(r->detail().containers[0].state, ContainerState::kRunning);
  }
  rapidjson::Document doc;
  doc.Parse(not_ready.c_str());
  EXPECT_FALSE(ParsePod(doc, {})->IsReady());
  EXPECT_EQ(ParsePod(doc, {})->ReadySince(), 0) << "not Ready: no Ready-since time";
  EXPECT_EQ(ParsePod(doc, {})->Condition("Ready")->message,
            "containers with unready status: [tikv]");
}

TEST(ParsePod, MalformedDocumentsAreErrorsAndOddFieldsAreIgnored) {
  for (const char* bad : {R"([])", R"({"metadata":[]})", R"({"metadata":{"name":"a"}})",
                          R"({"metadata":{"name":"a","namespace":"n","uid":7}})"}) {
    rapidjson::Document doc;
    doc.Parse(bad);
    Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_FALSE(r.error.empty());
  }
  rapidjson::Document doc;
  // (A creationTimestamp that is not a plausible time is an error: ANonsenseCreationTimeIsAnError.)
  doc.Parse(R"({"metadata":{"name":"a","namespace":"n","uid":"u",
    "labels":{"app.kubernetes.io/instance":5}},
    "spec":{"initContainers":"x"},
    "status":{"phase":3,"conditions":[{"status":"True"},"junk",{"type":"Ready","status":"maybe"}],
      "containerStatuses":[1,{"name":"c","restartCount":"many","state":{"waiting":null}}]}})");
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->created, 0);
  EXPECT_EQ(r->cluster, "");
  EXPECT_EQ(r->phase, PodPhase::kUnknown);
  ASSERT_EQ(r->detail().conditions.size(), 1u);
  EXPECT_EQ(r->detail().conditions[0].status, ConditionStatus::kUnknown);
  ASSERT_EQ(r->detail().containers.size(), 1u);
  EXPECT_EQ(r->detail().containers[0].state, ContainerState::kUnknown);
  EXPECT_EQ(r->detail().containers[0].restart_count, 0);
}

rapidjson::Document Pod(const std::string& ns, const std::string& name, const std::string& rv) {
  rapidjson::Document doc;
  doc.Parse((R"({"metadata":{"name":")" + name + R"(","namespace":")" + ns + R"(","uid":"uid-)" +
             ns + "-" + name + R"(","resourceVersion":")" + rv + R"("}})")
                .c_str());
  return doc;
}

TEST(PodSource, ListReplacesOnlyItsNamespaceAndEventsApply) {
  PodStore store;
  store.Upsert(*ParsePod(Pod("other", "x", "1"), {}));
  PodSource source(store, PodParseOptions{}, "tidb");
  store.Upsert(*ParsePod(Pod("tidb", "ghost", "1"), {}));

  source.OnListBegin();
  EXPECT_TRUE(source.OnListItem(Pod("tidb", "a", "5")));
  EXPECT_FALSE(source.OnListItem(rapidjson::Document().SetObject()));
  EXPECT_TRUE(source.OnListItem(Pod("tidb", "b", "6")));
  EXPECT_EQ(store.Size(), 2u);  // nothing applied before the list ends
  source.OnListEnd("10");
  EXPECT_EQ(store.Size(), 3u);
  EXPECT_FALSE(store.Contains("tidb", "ghost"));
  EXPECT_TRUE(store.Contains("other", "x"));
  EXPECT_EQ(source.ObjectCount(), 3u);

  EXPECT_TRUE(source.OnEvent(WatchEventType::kModified, Pod("tidb", "a", "11")));
  EXPECT_EQ(store.Get("tidb", "a")->resource_version, "11");
  EXPECT_TRUE(source.OnEvent(WatchEventType::kDeleted, Pod("tidb", "b", "12")));
  EXPECT_FALSE(store.Contains("tidb", "b"));

  // An aborted list leaves the store as it was.
  source.OnListBegin();
  source.OnListItem(Pod("tidb", "z", "20"));
  source.OnListAbort();
  EXPECT_FALSE(store.Contains("tidb", "z"));
  EXPECT_TRUE(store.Contains("tidb", "a"));
}

TEST(PodReflectorOptions, OnePerNamespaceWithTheSelectorThenTheV2Selector) {
  Config config;
  auto all = PodReflectorOptions(config);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].path, "/api/v1/pods");
  EXPECT_EQ(all[0].name, "pods");
  EXPECT_EQ(all[0].label_selector, "app.kubernetes.io/managed-by=tidb-operator");
  EXPECT_EQ(PodSourceTag(all[0]), 0);
  EXPECT_EQ(all[0].skip_fields, PodSkippedFields());
  EXPECT_EQ(all[1].skip_fields, PodSkippedFields());
  EXPECT_EQ(all[1].path, "/api/v1/pods");
  EXPECT_EQ(all[1].name, "pods-v2");
  EXPECT_EQ(all[1].resource, "pods");
  EXPECT_EQ(all[1].label_selector,
            "pingcap.com/managed-by=tidb-operator,!app.kubernetes.io/managed-by");
  EXPECT_EQ(PodSourceTag(all[1]), 1);
  config.namespaces = {"a", "b"};
  auto some = PodReflectorOptions(config);
  ASSERT_EQ(some.size(), 4u);
  EXPECT_EQ(some[1].path, "/api/v1/namespaces/b/pods");
  EXPECT_EQ(some[1].name, "pods/b");
  EXPECT_EQ(some[1].resource, "pods");
  EXPECT_EQ(some[3].path, "/api/v1/namespaces/b/pods");
  EXPECT_EQ(some[3].name, "pods-v2/b");
  EXPECT_EQ(ReflectorNamespace(some[3]), "b");
  EXPECT_EQ(PodSourceTag(some[3]), 1);
  config.selector_v2.clear();
  EXPECT_EQ(PodReflectorOptions(config).size(), 2u);
}

// Two pod sources with disjoint selectors share one store: a pod that loses its legacy labels
// is DELETED on the first and ADDED on the second, in either order, and stays; a relist of one
// source never drops the other's pods.
TEST(PodSource, TwoSourcesNeverDeleteEachOthersPods) {
  for (bool added_first : {true, false}) {
    PodStore store;
    PodParseOptions legacy, v2;
    v2.source = 1;
    PodSource a(store, legacy), b(store, v2);
    a.OnListBegin();
    a.OnListItem(Pod("tidb", "a", "10"));
    a.OnListItem(Pod("tidb", "moving", "11"));
    a.OnListEnd("11");
    b.OnListBegin();
    b.OnListItem(Pod("tidb", "b", "12"));
    b.OnListEnd("12");
    ASSERT_EQ(store.Size(), 3u) << "b's relist keeps a's pods";
    rapidjson::Document moved = Pod("tidb", "moving", "13");
    if (added_first) {
      b.OnEvent(WatchEventType::kAdded, moved);
      a.OnEvent(WatchEventType::kDeleted, Pod("tidb", "moving", "13"));
    } else {
      a.OnEvent(WatchEventType::kDeleted, Pod("tidb", "moving", "13"));
      b.OnEvent(WatchEventType::kAdded, moved);
    }
    ASSERT_TRUE(store.Contains("tidb", "moving")) << added_first;
    EXPECT_EQ(store.Get("tidb", "moving")->source, 1);
    // a's relist no longer lists it: it is b's now.
    a.OnListBegin();
    a.OnListItem(Pod("tidb", "a", "14"));
    a.OnListEnd("14");
    EXPECT_TRUE(store.Contains("tidb", "moving"));
    EXPECT_TRUE(store.Contains("tidb", "b"));
    // b deletes its own.
    b.OnEvent(WatchEventType::kDeleted, Pod("tidb", "moving", "15"));
    EXPECT_FALSE(store.Contains("tidb", "moving"));
  }
}

}  // namespace
}  // namespace podwait
