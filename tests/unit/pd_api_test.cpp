// The PD API parsers on every real payload of tests/fixtures/real/pd/ and on broken bodies
// (truncated, wrong types, HTML, empty): each broken body is an error value, never a crash.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/pd/api.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::string Fixture(const std::string& name) {
  return testing::ReadFile(testing::SourcePath("tests/fixtures/real/pd/" + name));
}

TEST(PdApiTest, HealthFixtureKeepsFullUint64MemberIds) {
  auto r = ParsePdHealth(Fixture("health.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.value->size(), 3u);
  EXPECT_EQ((*r.value)[0].name, "basic-7axwci");
  EXPECT_EQ((*r.value)[0].member_id, 1428427862495950874ULL);
  // Above INT64_MAX: must not be truncated or turned into a double.
  EXPECT_EQ((*r.value)[2].member_id, 12818309996638325969ULL);
  EXPECT_THAT((*r.value)[2].client_urls,
              ElementsAre("http://basic-pd-0qt9e9.basic-pd-peer.default:2379"));
  for (const auto& m : *r.value) EXPECT_TRUE(m.health);
}

TEST(PdApiTest, LeaderFixture) {
  auto r = ParsePdLeader(Fixture("leader.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r.value->has_value());
  EXPECT_EQ((*r.value)->name, "basic-53pe89");
  EXPECT_EQ((*r.value)->member_id, 2548954049902922308ULL);
  EXPECT_THAT((*r.value)->peer_urls,
              ElementsAre("http://basic-pd-53pe89.basic-pd-peer.default:2380"));
}

TEST(PdApiTest, LeaderNullMeansNoLeader) {
  auto r = ParsePdLeader("null");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.value->has_value());
  auto empty = ParsePdLeader("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty.value->has_value());
}

TEST(PdApiTest, MembersFixtureSinglePd) {
  auto r = ParsePdMembers(Fixture("members.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.value->members.size(), 1u);
  EXPECT_EQ(r.value->members[0].member_id, 15980934438217023866ULL);
  EXPECT_EQ(r.value->members[0].binary_version, "v8.5.6");
  ASSERT_TRUE(r.value->leader.has_value());
  EXPECT_EQ(r.value->leader->name, "pd");
  ASSERT_TRUE(r.value->etcd_leader.has_value());
}

TEST(PdApiTest, MembersFixtureThreePd) {
  auto r = ParsePdMembers(Fixture("members_3pd_operator_test.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.value->members.size(), 3u);
  EXPECT_EQ(r.value->members[2].member_id, 12818309996638325969ULL);
  ASSERT_TRUE(r.value->leader.has_value());
  EXPECT_EQ(r.value->leader->name, "basic-53pe89");
}

TEST(PdApiTest, MembersWithoutLeader) {
  auto r = ParsePdMembers(R"({"members":[{"name":"a","member_id":1}],"leader":null})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.value->leader.has_value());
  EXPECT_FALSE(r.value->etcd_leader.has_value());
}

TEST(PdApiTest, ClusterStatusFixtures) {
  auto r = ParsePdClusterStatus(Fixture("cluster_status.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->is_initialized, std::optional<bool>(true));
  EXPECT_EQ(r.value->raft_bootstrap_time, 1735095903000);  // 2024-12-25T03:05:03Z

  auto nb = ParsePdClusterStatus(Fixture("cluster_status_not_bootstrapped.json"));
  ASSERT_TRUE(nb.ok()) << nb.error;
  EXPECT_EQ(nb.value->is_initialized, std::optional<bool>(false));
  EXPECT_EQ(nb.value->raft_bootstrap_time, 0);  // Go's zero time
}

TEST(PdApiTest, ClusterStatusWithoutIsInitializedIsOldPd) {
  // PD < 3.0 has no is_initialized (made-up body following the same struct without that field).
  auto r = ParsePdClusterStatus(R"({"raft_bootstrap_time":"2019-01-02T03:04:05Z"})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.value->is_initialized.has_value());
}

TEST(PdApiTest, StoresFixtureSeparatesTiFlash) {
  auto r = ParsePdStores(Fixture("stores.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->count, 4);
  ASSERT_EQ(r.value->stores.size(), 4u);
  int tiflash = 0, tikv_up = 0;
  for (const auto& s : r.value->stores) {
    if (s.IsTiFlash()) {
      ++tiflash;
      EXPECT_EQ(s.id, 20u);
    } else if (s.state_name == "Up") {
      ++tikv_up;
    }
  }
  EXPECT_EQ(tiflash, 1);
  EXPECT_EQ(tikv_up, 3);
}

TEST(PdApiTest, StoresFixtureAllStates) {
  auto r = ParsePdStores(Fixture("stores_all_states.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<std::string> states;
  for (const auto& s : r.value->stores) states.push_back(s.state_name);
  EXPECT_THAT(states, ElementsAre("Up", "Down", "Disconnected", "Tombstone", "Offline"));
}

TEST(PdApiTest, StoresEmptyOrNull) {
  auto r = ParsePdStores(R"({"count":0,"stores":null})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_THAT(r.value->stores, IsEmpty());
}

TEST(PdApiTest, StoresNumericStateOnOldPd) {
  auto r = ParsePdStores(R"({"count":2,"stores":[{"store":{"id":1,"address":"a"}},
                                                  {"store":{"id":2,"address":"b","state":2}}]})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->stores[0].state_name, "Up");
  EXPECT_EQ(r.value->stores[1].state_name, "Tombstone");
}

TEST(PdApiTest, ReplicateConfigFixture) {
  auto r = ParsePdReplicateConfig(Fixture("config_replicate.json"));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->max_replicas, 3);
  EXPECT_FALSE(r.value->strictly_match_label);  // "false" as a string, PD's ",string" tag
  EXPECT_TRUE(r.value->enable_placement_rules);
  EXPECT_EQ(r.value->location_labels, "");
}

TEST(PdApiTest, NotBootstrappedAnswer) {
  EXPECT_TRUE(
      IsPdNotBootstrapped(500, "\"TiKV cluster not bootstrapped, please start TiKV first\""));
  EXPECT_FALSE(IsPdNotBootstrapped(200, "not bootstrapped"));
  EXPECT_FALSE(IsPdNotBootstrapped(500, "\"no leader\""));
}

// Every parser on every broken body: an error value with a message, never a crash.
class BrokenBodyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenBodyTest, EveryParserReturnsAnError) {
  const std::string& body = GetParam();
  EXPECT_FALSE(ParsePdHealth(body).ok());
  EXPECT_FALSE(ParsePdLeader(body).ok());
  EXPECT_FALSE(ParsePdMembers(body).ok());
  EXPECT_FALSE(ParsePdClusterStatus(body).ok());
  EXPECT_FALSE(ParsePdStores(body).ok());
  EXPECT_FALSE(ParsePdReplicateConfig(body).ok());
  EXPECT_THAT(ParsePdHealth(body).error, Not(IsEmpty()));
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, BrokenBodyTest,
    ::testing::Values("", "   \n", "<html><body><h1>502 Bad Gateway</h1></body></html>",
                      "upstream connect error or disconnect/reset before headers", "{", "[",
                      "\"TiKV cluster not bootstrapped, please start TiKV first\"", "42", "true",
                      std::string("{\"a\":\0}", 7)));

TEST(PdApiTest, TruncatedFixturesAreErrors) {
  for (const char* name : {"health.json", "leader.json", "members.json", "cluster_status.json",
                           "stores.json", "config_replicate.json"}) {
    const std::string full = Fixture(name);
    for (size_t cut : {full.size() / 3, full.size() / 2, full.size() - 3}) {
      const std::string part = full.substr(0, cut);
      EXPECT_FALSE(ParsePdHealth(part).ok()) << name << " cut at " << cut;
      EXPECT_FALSE(ParsePdLeader(part).ok()) << name << " cut at " << cut;
      EXPECT_FALSE(ParsePdMembers(part).ok()) << name << " cut at " << cut;
      EXPECT_FALSE(ParsePdClusterStatus(part).ok()) << name << " cut at " << cut;
      EXPECT_FALSE(ParsePdStores(part).ok()) << name << " cut at " << cut;
      EXPECT_FALSE(ParsePdReplicateConfig(part).ok()) << name << " cut at " << cut;
    }
  }
}

TEST(PdApiTest, WrongTypes) {
  EXPECT_THAT(ParsePdHealth(R"({"name":"a"})").error, HasSubstr("array"));
  EXPECT_FALSE(ParsePdHealth(R"([{"name":"a","member_id":1,"health":"yes"}])").ok());
  EXPECT_FALSE(ParsePdHealth(R"([{"name":"a","member_id":-1,"health":true}])").ok());
  EXPECT_FALSE(ParsePdHealth(R"([{"name":"a","member_id":1.5,"health":true}])").ok());
  EXPECT_FALSE(ParsePdHealth(R"([{"name":7,"member_id":1,"health":true}])").ok());
  EXPECT_FALSE(ParsePdHealth(R"([1,2])").ok());
  EXPECT_FALSE(ParsePdLeader(R"({"name":"a","member_id":"x"})").ok());
  EXPECT_FALSE(ParsePdLeader(R"({"name":"a","client_urls":"http://x"})").ok());
  EXPECT_FALSE(ParsePdMembers(R"({"members":{}})").ok());
  EXPECT_FALSE(ParsePdMembers(R"({"members":[],"leader":"pd-0"})").ok());
  EXPECT_FALSE(ParsePdClusterStatus(R"({"is_initialized":"true"})").ok());
  EXPECT_FALSE(ParsePdClusterStatus(R"({"raft_bootstrap_time":"yesterday"})").ok());
  EXPECT_FALSE(ParsePdStores(R"({"count":"1","stores":[]})").ok());
  EXPECT_FALSE(ParsePdStores(R"({"stores":[{"store":{"id":"x"}}]})").ok());
  EXPECT_FALSE(ParsePdStores(R"({"stores":[{"status":{}}]})").ok());
  EXPECT_FALSE(
      ParsePdStores(R"({"stores":[{"store":{"id":1,"labels":{"engine":"tiflash"}}}]})").ok());
  EXPECT_FALSE(ParsePdReplicateConfig(R"({"max-replicas":"3"})").ok());
  EXPECT_FALSE(ParsePdReplicateConfig(R"({"max-replicas":3,"strictly-match-label":"maybe"})").ok());
}

TEST(PdApiTest, MemberIdAsStringIsAccepted) {
  auto r = ParsePdLeader(R"({"name":"a","member_id":"12818309996638325969"})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ((*r.value)->member_id, 12818309996638325969ULL);
}

// Defect 2: 1,000,000 nested arrays (2 MB, under the body limit) overflowed the parser's stack
// in the prober thread and killed the exporter. Every endpoint's parser refuses it.
TEST(PdApiTest, DeeplyNestedAnswersAreParseErrors) {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  EXPECT_THAT(ParsePdHealth(deep).error, HasSubstr("nesting deeper than 64 levels"));
  EXPECT_THAT(ParsePdLeader(deep).error, HasSubstr("nesting deeper"));
  EXPECT_THAT(ParsePdMembers(deep).error, HasSubstr("nesting deeper"));
  EXPECT_THAT(ParsePdClusterStatus(deep).error, HasSubstr("nesting deeper"));
  EXPECT_THAT(ParsePdStores(deep).error, HasSubstr("nesting deeper"));
  EXPECT_THAT(ParsePdReplicateConfig(deep).error, HasSubstr("nesting deeper"));
  const std::string in_store = R"({"count":1,"stores":[{"store":{"id":1,"labels":)" + deep + "}}]}";
  EXPECT_THAT(ParsePdStores(in_store).error, HasSubstr("nesting deeper"));
}

}  // namespace
}  // namespace podwait
