// cluster-autoscaler's ProvisioningRequests and the pod annotation that names the one a pod
// consumes: the parsers on the made-up fixtures of tests/fixtures/provisioningrequest/ (README.md
// there names the upstream source each follows), the store's view and the reflector's handler.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "exporter/common/time_format.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/provisioning_requests.h"
#include "exporter/state/provisioning_request_store.h"
#include "tests/support/json_mutation.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

rapidjson::Document Load(const std::string& file) {
  return testing::LoadJsonFile("tests/fixtures/provisioningrequest/" + file);
}

Timestamp T(const char* s) { return ParseRfc3339(s).value(); }

const NodeClaimCondition& Cond(const ProvisioningRequestFacts& pr, ProvReqCondition c) {
  return pr.Condition(c);
}

TEST(ParseProvisioningRequest, AcceptedNotYetProvisioned) {
  Result<ProvisioningRequestFacts> pr =
      ParseProvisioningRequest(Load("provisioningrequest-accepted.json"));
  ASSERT_TRUE(pr.ok()) << pr.error;
  EXPECT_EQ(pr.value->Key(), "tidb/demo-tikv-scale");
  EXPECT_EQ(pr.value->provisioning_class, "best-effort-atomic-scale-up.autoscaling.x-k8s.io");
  const NodeClaimCondition& accepted = Cond(*pr.value, ProvReqCondition::kAccepted);
  EXPECT_EQ(accepted.status, ConditionStatus::kTrue);
  EXPECT_EQ(accepted.reason, "Accepted");
  EXPECT_EQ(accepted.since, T("2025-06-03T09:00:02Z"));
  const NodeClaimCondition& provisioned = Cond(*pr.value, ProvReqCondition::kProvisioned);
  EXPECT_EQ(provisioned.status, ConditionStatus::kFalse);
  EXPECT_EQ(provisioned.reason, "CapacityIsNotFound");
  EXPECT_EQ(provisioned.message, "Capacity is not found, CA will try to find it later.");
  // Conditions it does not carry are Unknown.
  EXPECT_EQ(Cond(*pr.value, ProvReqCondition::kFailed).status, ConditionStatus::kUnknown);
  EXPECT_EQ(Cond(*pr.value, ProvReqCondition::kBookingExpired).reason, "");
}

TEST(ParseProvisioningRequest, EveryConditionTypeIsRead) {
  struct Case {
    const char* file;
    ProvReqCondition condition;
    const char* reason;
  };
  for (const Case& c :
       {Case{"provisioningrequest-provisioned.json", ProvReqCondition::kProvisioned,
             "CapacityIsProvisioned"},
        Case{"provisioningrequest-failed.json", ProvReqCondition::kFailed, "CapacityIsNotFound"},
        Case{"provisioningrequest-booking-expired.json", ProvReqCondition::kBookingExpired,
             "CapacityReservationTimeExpired"},
        Case{"provisioningrequest-capacity-revoked.json", ProvReqCondition::kCapacityRevoked,
             "NodesPreempted"}}) {
    Result<ProvisioningRequestFacts> pr = ParseProvisioningRequest(Load(c.file));
    ASSERT_TRUE(pr.ok()) << c.file << ": " << pr.error;
    EXPECT_EQ(Cond(*pr.value, c.condition).status, ConditionStatus::kTrue) << c.file;
    EXPECT_EQ(Cond(*pr.value, c.condition).reason, c.reason) << c.file;
  }
}

TEST(ParseProvisioningRequest, WithoutANamespaceOrANameIsAnError) {
  for (const char* member : {"name", "namespace"}) {
    rapidjson::Document doc = Load("provisioningrequest-failed.json");
    doc["metadata"].RemoveMember(member);
    Result<ProvisioningRequestFacts> pr = ParseProvisioningRequest(doc);
    EXPECT_FALSE(pr.ok()) << member;
    EXPECT_THAT(pr.error, ::testing::HasSubstr("namespace or a name"));
  }
  rapidjson::Document not_object;
  not_object.SetArray();
  EXPECT_FALSE(ParseProvisioningRequest(not_object).ok());
}

TEST(ParseProvisioningRequest, LongTextIsBounded) {
  rapidjson::Document doc = Load("provisioningrequest-failed.json");
  const std::string huge(100000, 'x');
  for (auto& c : doc["status"]["conditions"].GetArray()) {
    c["message"].SetString(huge.c_str(), static_cast<rapidjson::SizeType>(huge.size()),
                           doc.GetAllocator());
    c["reason"].SetString(huge.c_str(), static_cast<rapidjson::SizeType>(huge.size()),
                          doc.GetAllocator());
  }
  Result<ProvisioningRequestFacts> pr = ParseProvisioningRequest(doc);
  ASSERT_TRUE(pr.ok());
  EXPECT_LE(Cond(*pr.value, ProvReqCondition::kFailed).message.size(), 512u);
  EXPECT_LE(Cond(*pr.value, ProvReqCondition::kFailed).reason.size(), kMaxObjectName);
}

TEST(ProvisioningRequestParser, EveryMemberOfEveryTypeNeverCrashes) {
  int runs = 0;
  for (const char* file :
       {"provisioningrequest-accepted.json", "provisioningrequest-booking-expired.json"}) {
    rapidjson::Document doc = Load(file);
    testing::MutateEach(
        doc, doc,
        [&] {
          Result<ProvisioningRequestFacts> pr = ParseProvisioningRequest(doc);
          EXPECT_TRUE(pr.ok() || !pr.error.empty());
        },
        &runs);
  }
  EXPECT_GT(runs, 150);
}

// The pod annotation, the deprecated key when the current one is absent, and a bounded value.
rapidjson::Document PodWith(const char* key, const std::string& value) {
  rapidjson::Document doc;
  const std::string text =
      R"({"metadata":{"uid":"u1","namespace":"tidb","name":"demo-tikv-0",)"
      R"("creationTimestamp":"2025-06-03T09:00:00Z","annotations":{")" +
      std::string(key) + R"(":")" + value +
      R"("}},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",)"
      R"("reason":"Unschedulable"}]}})";
  doc.Parse(text.c_str());
  return doc;
}

TEST(ParsePod, ReadsTheProvisioningRequestItConsumes) {
  Result<PodRecord> pod =
      ParsePod(PodWith("autoscaling.x-k8s.io/consume-provisioning-request", "demo-tikv-scale"),
               PodParseOptions{});
  ASSERT_TRUE(pod.ok()) << pod.error;
  EXPECT_EQ(pod.value->detail().provisioning_request, "demo-tikv-scale");
  pod = ParsePod(
      PodWith("cluster-autoscaler.kubernetes.io/consume-provisioning-request", "old-key-request"),
      PodParseOptions{});
  ASSERT_TRUE(pod.ok()) << pod.error;
  EXPECT_EQ(pod.value->detail().provisioning_request, "old-key-request");
  pod = ParsePod(PodWith("example.com/other", "x"), PodParseOptions{});
  ASSERT_TRUE(pod.ok()) << pod.error;
  EXPECT_EQ(pod.value->detail().provisioning_request, "");
  pod =
      ParsePod(PodWith("autoscaling.x-k8s.io/consume-provisioning-request", std::string(5000, 'a')),
               PodParseOptions{});
  ASSERT_TRUE(pod.ok()) << pod.error;
  EXPECT_EQ(pod.value->detail().provisioning_request.size(), kMaxObjectName);
}

ProvisioningRequestFacts Request(std::string ns, std::string name) {
  ProvisioningRequestFacts pr;
  pr.namespace_ = std::move(ns);
  pr.name = std::move(name);
  return pr;
}

TEST(ProvisioningRequestStore, TheViewChangesOnlyWithTheRequests) {
  ProvisioningRequestStore store;
  std::shared_ptr<const ProvisioningRequestView> v0 = store.View();
  EXPECT_EQ(store.View(), v0);
  store.Replace("", {Request("a", "r1"), Request("b", "r2")});
  std::shared_ptr<const ProvisioningRequestView> v1 = store.View();
  EXPECT_NE(v1, v0);
  EXPECT_NE(v1->Find("a", "r1"), nullptr);
  EXPECT_EQ(v1->Find("b", "r1"), nullptr);
  store.Upsert(Request("a", "r1"));  // unchanged: the same view
  EXPECT_EQ(store.View(), v1);
  ProvisioningRequestFacts failed = Request("a", "r1");
  failed.conditions[static_cast<size_t>(ProvReqCondition::kFailed)].status = ConditionStatus::kTrue;
  store.Upsert(failed);
  EXPECT_NE(store.View(), v1);
  store.Remove("a", "r1");
  EXPECT_EQ(store.View()->Find("a", "r1"), nullptr);
  EXPECT_EQ(store.Count(), 1u);
}

TEST(ProvisioningRequestStore, AListReplacesOnlyItsNamespace) {
  ProvisioningRequestStore store;
  store.Replace("a", {Request("a", "r1")});
  store.Replace("b", {Request("b", "r2"), Request("c", "stray")});  // not its namespace: dropped
  EXPECT_EQ(store.Count(), 2u);
  store.Replace("a", {});
  EXPECT_EQ(store.View()->Find("a", "r1"), nullptr);
  EXPECT_NE(store.View()->Find("b", "r2"), nullptr);
}

TEST(ProvisioningRequestSource, ListThenWatchAndOptional) {
  ProvisioningRequestStore store;
  ProvisioningRequestSource source(store, "tidb");
  source.OnListBegin();
  ASSERT_TRUE(source.OnListItem(Load("provisioningrequest-accepted.json")));
  source.OnListEnd("1");
  ASSERT_EQ(store.Count(), 1u);
  ASSERT_TRUE(source.OnEvent(WatchEventType::kModified, Load("provisioningrequest-failed.json")));
  EXPECT_EQ(
      store.View()->Find("tidb", "demo-tikv-scale")->Condition(ProvReqCondition::kFailed).status,
      ConditionStatus::kTrue);
  ASSERT_TRUE(source.OnEvent(WatchEventType::kDeleted, Load("provisioningrequest-failed.json")));
  EXPECT_EQ(store.Count(), 0u);
  rapidjson::Document bad;
  bad.SetObject();
  EXPECT_FALSE(source.OnEvent(WatchEventType::kAdded, bad));  // counted as a parse error
  EXPECT_TRUE(source.OnNotFound());                           // the CRD is not installed
  EXPECT_TRUE(source.OnForbidden());                          // RBAC does not grant it
}

TEST(ProvisioningRequestReflectors, FollowTheWatchedNamespaces) {
  Config config;
  std::vector<ReflectorOptions> all = ProvisioningRequestReflectorOptions(config);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].path, "/apis/autoscaling.x-k8s.io/v1/provisioningrequests");
  config.namespaces = {"a", "b"};
  std::vector<ReflectorOptions> each = ProvisioningRequestReflectorOptions(config);
  ASSERT_EQ(each.size(), 2u);
  EXPECT_EQ(each[1].path, "/apis/autoscaling.x-k8s.io/v1/namespaces/b/provisioningrequests");
}

}  // namespace
}  // namespace podwait
