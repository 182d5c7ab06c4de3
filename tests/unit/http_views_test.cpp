#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "exporter/http/views.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr Timestamp kNow = 1'700'000'100'000;

ViewModel Model() {
  auto snap = std::make_shared<WaitingSnapshot>();
  snap->evaluated_at = kNow;
  auto add = [&](std::string ns, std::string cluster, std::string pod, WaitClass c,
                 std::string reason, std::string evidence) {
    WaitingPod p;
    p.namespace_ = ns;
    p.cluster = cluster;
    p.tidb_cluster = ns + "-" + cluster;
    p.pod = pod;
    p.component = "tidb";
    p.classification = {true, Stage::kInitializing, c, reason, kNow - 125'000, evidence};
    p.class_since = kNow - 60'000;
    snap->pods.push_back(p);
  };
  add("demo", "demo", "demo-tidb-0", WaitClass::kDependency, "pd_not_ready", "PD has no leader");
  add("shop", "shop", "shop-tikv-0", WaitClass::kCapacity, "max_node_group_size",
      "pod didn't trigger scale-up: 1 max node group size reached <script>");
  ViewModel m;
  m.waiting = snap;
  m.now = kNow;
  m.synced = true;
  m.dependencies[ClusterKey{"demo", "demo"}].pd = {Readiness::kNotReady, 0,
                                                   DependencyReason::kNoPdLeader};
  m.dependencies[ClusterKey{"shop", "shop"}].pd = {Readiness::kReady, kNow - 3'600'000,
                                                   DependencyReason::kNone};
  return m;
}

// Defect 4: raw bytes that are not UTF-8 made the JSON view invalid JSON.
TEST(PodsJson, InvalidUtf8IsReplacedAndTheJsonStaysValid) {
  ViewModel m = Model();
  auto snap = std::make_shared<WaitingSnapshot>(*m.waiting);
  snap->pods.Mutable(0).pod = "demo-tidb-\xff\xfe";
  snap->pods.Mutable(0).classification.evidence = "cut in the middle of \xe6\x9d";
  m.waiting = snap;
  const std::string text = RenderPodsJson(m, {});
  rapidjson::Document d;
  d.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());
  ASSERT_FALSE(d.HasParseError()) << text;
  EXPECT_STREQ(d["pods"][0]["pod"].GetString(), "demo-tidb-\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_STREQ(d["pods"][0]["evidence"].GetString(), "cut in the middle of \xef\xbf\xbd");
}

// The evidence's relative time is written when the view is rendered, not when the pod was last
// classified (incremental evaluation classifies a pod again only when something changed).
TEST(PodsJson, EvidenceAgoIsMeasuredAtTheTimeOfTheView) {
  ViewModel m = Model();
  auto snap = std::make_shared<WaitingSnapshot>(*m.waiting);
  Classification& c = snap->pods.Mutable(0).classification;
  c.evidence = std::string("scale-up ") + kEvidenceAgo + " did not bring a node";
  c.evidence_since = kNow - 12 * kMinute;
  m.waiting = snap;
  rapidjson::Document d;
  d.Parse(RenderPodsJson(m, {}).c_str());
  EXPECT_STREQ(d["pods"][0]["evidence"].GetString(), "scale-up 12m0s ago did not bring a node");
  m.now += 3 * kMinute;
  d.Parse(RenderPodsJson(m, {}).c_str());
  EXPECT_STREQ(d["pods"][0]["evidence"].GetString(), "scale-up 15m0s ago did not bring a node");
  EXPECT_THAT(RenderStatusPage(m, "/metrics"),
              HasSubstr("scale-up 15m0s ago did not bring a node"));
}

TEST(PodsJson, ListsPodsAndClusters) {
  rapidjson::Document d;
  d.Parse(RenderPodsJson(Model(), {}).c_str());
  ASSERT_FALSE(d.HasParseError());
  ASSERT_EQ(d["pods"].Size(), 2u);
  const auto& p = d["pods"][0];
  EXPECT_STREQ(p["pod"].GetString(), "demo-tidb-0");
  EXPECT_STREQ(p["class"].GetString(), "dependency");
  EXPECT_STREQ(p["stage"].GetString(), "initializing");
  EXPECT_TRUE(p["expected"].GetBool());
  EXPECT_EQ(p["waitingSeconds"].GetInt64(), 125);
  EXPECT_STREQ(p["tidbCluster"].GetString(), "demo-demo");
  ASSERT_EQ(d["clusters"].Size(), 2u);
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["pd"]["readiness"].GetString(), "not_ready");
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "unknown");
}

TEST(PodsJson, Filters) {
  rapidjson::Document d;
  d.Parse(RenderPodsJson(Model(), {"", "", "capacity"}).c_str());
  ASSERT_EQ(d["pods"].Size(), 1u);
  EXPECT_STREQ(d["pods"][0]["pod"].GetString(), "shop-tikv-0");
  d.Parse(RenderPodsJson(Model(), {"demo", "", ""}).c_str());
  EXPECT_EQ(d["pods"].Size(), 1u);
  EXPECT_EQ(d["clusters"].Size(), 1u);
  d.Parse(RenderPodsJson(Model(), {"", "shop-shop", ""}).c_str());
  EXPECT_EQ(d["pods"].Size(), 1u);
}

// /api/v1/pods?class=bogus was 200 with an empty list: a typo read as "nothing waits".
TEST(PodsJson, UnknownFilterValuesAndParametersAreErrors) {
  std::string error;
  auto filter =
      ParsePodFilter({{"class", "capacity"}, {"namespace", "db"}, {"cluster", "a"}}, &error);
  ASSERT_TRUE(filter) << error;
  EXPECT_EQ(filter->wait_class, "capacity");
  EXPECT_EQ(filter->namespace_, "db");
  EXPECT_EQ(filter->cluster, "a");
  EXPECT_TRUE(ParsePodFilter({}, &error));
  EXPECT_TRUE(ParsePodFilter({{"class", ""}}, &error));  // empty: any
  EXPECT_FALSE(ParsePodFilter({{"class", "bogus"}}, &error));
  EXPECT_THAT(error, HasSubstr("unknown class \"bogus\""));
  EXPECT_THAT(error, HasSubstr("dependency"));
  EXPECT_FALSE(ParsePodFilter({{"clas", "capacity"}}, &error));
  EXPECT_THAT(error, HasSubstr("unknown parameter \"clas\""));
}

TEST(StatusPage, ShowsClustersClassesAndEscapes) {
  std::string html = RenderStatusPage(Model(), "/metrics");
  EXPECT_THAT(html, HasSubstr("<meta http-equiv=\"refresh\""));
  EXPECT_THAT(html, HasSubstr("demo-tidb-0"));
  EXPECT_THAT(html, HasSubstr("pd: not_ready (no_pd_leader)"));
  EXPECT_THAT(html, HasSubstr("pd: ready for 1h0m"));
  EXPECT_THAT(html, HasSubstr("capacity <span class=\"unexpected\">needs attention"));
  EXPECT_THAT(html, HasSubstr("dependency <span class=\"expected\">expected wait"));
  EXPECT_THAT(html, HasSubstr("2m5s"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
  EXPECT_THAT(html, Not(HasSubstr("http://")));  // self-contained: no external assets
}

}  // namespace
}  // namespace podwait
