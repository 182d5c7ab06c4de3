// Karpenter's NodeClaims and the launch failures reported on them: the parsers on the made-up
// fixtures of tests/fixtures/karpenter/ (README.md there names the Karpenter source each follows),
// the store's view and the two reflector handlers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "exporter/common/clock.h"
#include "exporter/common/time_format.h"
#include "exporter/sources/nodeclaims.h"
#include "exporter/state/nodeclaim_store.h"
#include "tests/support/json_mutation.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

rapidjson::Document Load(const std::string& file) {
  return testing::LoadJsonFile("tests/fixtures/karpenter/" + file);
}

Timestamp T(const char* s) { return ParseRfc3339(s).value(); }

const NodeClaimCondition& Cond(const NodeClaimFacts& nc, NodeClaimStage s) {
  return nc.Condition(s);
}

TEST(ParseNodeClaim, JustCreatedEveryStageAwaitsReconciliation) {
  Result<NodeClaimFacts> nc = ParseNodeClaim(Load("nodeclaim-launching.json"));
  ASSERT_TRUE(nc.ok()) << nc.error;
  EXPECT_EQ(nc.value->name, "default-x9q2w");
  EXPECT_EQ(nc.value->nodepool, "default");
  EXPECT_EQ(nc.value->created, T("2025-06-03T09:00:05Z"));
  EXPECT_FALSE(nc.value->deleting);
  EXPECT_EQ(nc.value->node_name, "");
  for (NodeClaimStage s :
       {NodeClaimStage::kLaunched, NodeClaimStage::kRegistered, NodeClaimStage::kInitialized}) {
    EXPECT_EQ(Cond(*nc.value, s).status, ConditionStatus::kUnknown);
    EXPECT_EQ(Cond(*nc.value, s).reason, "AwaitingReconciliation");
  }
}

TEST(ParseNodeClaim, RegisteringKeepsTheConditionsReasonAndMessage) {
  Result<NodeClaimFacts> nc = ParseNodeClaim(Load("nodeclaim-registering.json"));
  ASSERT_TRUE(nc.ok()) << nc.error;
  EXPECT_EQ(Cond(*nc.value, NodeClaimStage::kLaunched).status, ConditionStatus::kTrue);
  const NodeClaimCondition& reg = Cond(*nc.value, NodeClaimStage::kRegistered);
  EXPECT_EQ(reg.status, ConditionStatus::kUnknown);
  EXPECT_EQ(reg.reason, "NodeNotFound");
  EXPECT_EQ(reg.message, "Node not registered with cluster");
  EXPECT_EQ(reg.since, T("2025-06-03T09:00:09Z"));
}

TEST(ParseNodeClaim, InitializedHasItsNode) {
  Result<NodeClaimFacts> nc = ParseNodeClaim(Load("nodeclaim-initialized.json"));
  ASSERT_TRUE(nc.ok()) << nc.error;
  EXPECT_EQ(nc.value->node_name, "ip-192-168-61-204.us-west-2.compute.internal");
  EXPECT_EQ(Cond(*nc.value, NodeClaimStage::kInitialized).status, ConditionStatus::kTrue);
}

TEST(ParseNodeClaim, DeletionIsSeen) {
  rapidjson::Document doc = Load("nodeclaim-launch-failed.json");
  doc["metadata"].AddMember("deletionTimestamp", "2025-06-03T09:05:09Z", doc.GetAllocator());
  Result<NodeClaimFacts> nc = ParseNodeClaim(doc);
  ASSERT_TRUE(nc.ok()) << nc.error;
  EXPECT_TRUE(nc.value->deleting);
  EXPECT_EQ(Cond(*nc.value, NodeClaimStage::kLaunched).reason, "LaunchFailed");
}

TEST(ParseNodeClaim, WithoutANameIsAnError) {
  rapidjson::Document doc = Load("nodeclaim-launching.json");
  doc["metadata"].RemoveMember("name");
  EXPECT_EQ(ParseNodeClaim(doc).error, "NodeClaim without a name");
  rapidjson::Document empty;
  empty.SetArray();
  EXPECT_FALSE(ParseNodeClaim(empty).ok());
}

TEST(ParseNodeClaimFailure, InsufficientCapacityWithoutKarpentersPrefix) {
  std::optional<NodeClaimFailure> f =
      ParseNodeClaimFailure(Load("event-insufficient-capacity.json"));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->nodeclaim, "default-x9q2w");
  EXPECT_EQ(f->reason, "InsufficientCapacityError");
  EXPECT_THAT(f->message, ::testing::StartsWith("creating instance, insufficient capacity"));
  EXPECT_EQ(f->at, T("2025-06-03T09:00:08Z"));
}

TEST(ParseNodeClaimFailure, OtherEventsAreNotFailures) {
  EXPECT_FALSE(ParseNodeClaimFailure(Load("event-nominated.json")).has_value());  // on a pod
  rapidjson::Document doc = Load("event-insufficient-capacity.json");
  doc["reason"].SetString("DisruptionBlocked");
  EXPECT_FALSE(ParseNodeClaimFailure(doc).has_value());
}

TEST(NodeClaimParsers, EveryMemberOfEveryTypeNeverCrashes) {
  int runs = 0;
  for (const char* file : {"nodeclaim-initializing.json", "event-insufficient-capacity.json"}) {
    rapidjson::Document doc = Load(file);
    testing::MutateEach(
        doc, doc,
        [&] {
          Result<NodeClaimFacts> nc = ParseNodeClaim(doc);
          EXPECT_TRUE(nc.ok() || !nc.error.empty());
          (void)ParseNodeClaimFailure(doc);
        },
        &runs);
  }
  EXPECT_GT(runs, 200);
}

NodeClaimFacts Claim(std::string name) {
  NodeClaimFacts nc;
  nc.name = std::move(name);
  return nc;
}

TEST(NodeClaimStore, TheViewChangesOnlyWithTheClaims) {
  NodeClaimStore store;
  std::shared_ptr<const NodeClaimView> v0 = store.View();
  EXPECT_FALSE(v0->synced);
  EXPECT_EQ(store.View(), v0);
  store.Replace({Claim("a"), Claim("b")});
  std::shared_ptr<const NodeClaimView> v1 = store.View();
  EXPECT_NE(v1, v0);
  EXPECT_TRUE(v1->synced);
  EXPECT_NE(v1->Find("a"), nullptr);
  store.Upsert(Claim("a"));  // the same: no new view
  EXPECT_EQ(store.View(), v1);
  store.Remove("zzz");
  EXPECT_EQ(store.View(), v1);
  store.Remove("a");
  EXPECT_NE(store.View(), v1);
  EXPECT_EQ(store.View()->Find("a"), nullptr);
  EXPECT_NE(v1->Find("a"), nullptr);  // a view handed out does not change
}

TEST(NodeClaimStore, KeepsTheNewestFailurePerClaimAndABoundedNumber) {
  NodeClaimStore store;
  store.AddFailure({"a", "InsufficientCapacityError", "new", 20});
  store.AddFailure({"a", "NodeClassNotReady", "old", 10});
  EXPECT_EQ(store.View()->FailureOf("a")->message, "new");
  for (size_t i = 0; i < NodeClaimStore::kMaxFailures + 10; ++i) {
    store.AddFailure(
        {"c" + std::to_string(i), "InsufficientCapacityError", "", Timestamp(100 + i)});
  }
  EXPECT_EQ(store.FailureCount(), NodeClaimStore::kMaxFailures);
  EXPECT_EQ(store.View()->FailureOf("a"), nullptr);  // the oldest went first
  EXPECT_NE(store.View()->FailureOf("c" + std::to_string(NodeClaimStore::kMaxFailures + 9)),
            nullptr);
}

TEST(NodeClaimSource, ListThenWatch) {
  NodeClaimStore store;
  NodeClaimSource source(store);
  source.OnListBegin();
  ASSERT_TRUE(source.OnListItem(Load("nodeclaim-launching.json")));
  source.OnListEnd("1");
  ASSERT_EQ(store.Count(), 1u);
  EXPECT_EQ(store.View()->Find("default-x9q2w")->Condition(NodeClaimStage::kLaunched).status,
            ConditionStatus::kUnknown);
  ASSERT_TRUE(source.OnEvent(WatchEventType::kModified, Load("nodeclaim-registering.json")));
  EXPECT_EQ(store.View()->Find("default-x9q2w")->Condition(NodeClaimStage::kLaunched).status,
            ConditionStatus::kTrue);
  ASSERT_TRUE(source.OnEvent(WatchEventType::kDeleted, Load("nodeclaim-registering.json")));
  EXPECT_EQ(store.Count(), 0u);
  rapidjson::Document bad;
  bad.SetObject();
  EXPECT_FALSE(source.OnEvent(WatchEventType::kAdded, bad));  // counted as a parse error
  EXPECT_TRUE(source.OnNotFound());                           // Karpenter not installed
}

TEST(NodeClaimEventSource, KeepsLaunchFailuresOnly) {
  NodeClaimStore store;
  FakeClock clock(T("2025-06-03T09:01:00Z"));
  NodeClaimEventSource source(store, clock);
  source.OnListBegin();
  ASSERT_TRUE(source.OnListItem(Load("event-nominated.json")));
  source.OnListEnd("1");
  EXPECT_EQ(store.FailureCount(), 0u);
  ASSERT_TRUE(source.OnEvent(WatchEventType::kAdded, Load("event-insufficient-capacity.json")));
  EXPECT_EQ(store.FailureCount(), 1u);
  // The event's TTL ran out: the failure stays (bounded by count, not by the event).
  ASSERT_TRUE(source.OnEvent(WatchEventType::kDeleted, Load("event-insufficient-capacity.json")));
  EXPECT_EQ(store.FailureCount(), 1u);
}

TEST(NodeClaimReflectors, PathsAndSelectors) {
  Config config;
  ReflectorOptions nc = NodeClaimReflectorOptions(config);
  EXPECT_EQ(nc.resource, "nodeclaims");
  EXPECT_EQ(nc.path, "/apis/karpenter.sh/v1/nodeclaims");
  ReflectorOptions ev = NodeClaimEventReflectorOptions(config);
  EXPECT_EQ(ev.path, "/api/v1/namespaces/default/events");
  EXPECT_EQ(ev.field_selector, "involvedObject.kind=NodeClaim");
  EXPECT_EQ(ev.name, "events/nodeclaims");
}

}  // namespace
}  // namespace podwait
