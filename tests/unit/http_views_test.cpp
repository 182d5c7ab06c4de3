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
  EXPECT_THAT(RenderStatusPage(m, {}, {}), HasSubstr("scale-up 15m0s ago did not bring a node"));
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
  auto filter = ParsePodFilter({{"class", "capacity"}, {"namespace", "db"}, {"cluster", "a"}});
  ASSERT_TRUE(filter.ok()) << filter.error;
  EXPECT_EQ(filter->wait_class, "capacity");
  EXPECT_EQ(filter->namespace_, "db");
  EXPECT_EQ(filter->cluster, "a");
  EXPECT_TRUE(ParsePodFilter({}).ok());
  EXPECT_TRUE(ParsePodFilter({{"class", ""}}).ok());  // empty: any
  filter = ParsePodFilter({{"class", "bogus"}});
  EXPECT_FALSE(filter.ok());
  EXPECT_THAT(filter.error, HasSubstr("unknown class \"bogus\""));
  EXPECT_THAT(filter.error, HasSubstr("dependency"));
  filter = ParsePodFilter({{"clas", "capacity"}});
  EXPECT_FALSE(filter.ok());
  EXPECT_THAT(filter.error, HasSubstr("unknown parameter \"clas\""));
}

// The status page reads the same filter, keeping an unknown class (its empty state) where
// /api/v1/pods answers 400 with the error.
TEST(PodsJson, FromQueryKeepsUnknownValues) {
  PodFilter f = PodFilter::FromQuery({{"class", "bogus"}, {"namespace", "db"}});
  EXPECT_EQ(f.wait_class, "bogus");
  EXPECT_EQ(f.namespace_, "db");
  EXPECT_EQ(PodFilter::FromQuery({{"class", "capacity"}}).wait_class, "capacity");
  EXPECT_EQ(ParsePodFilter({{"class", "bogus"}, {"namespace", "db"}}).ok(), false);
}

TEST(StatusPage, ShowsClustersClassesAndEscapes) {
  std::string html = RenderStatusPage(Model(), {}, {});
  EXPECT_THAT(html, HasSubstr("<meta http-equiv=\"refresh\""));
  EXPECT_THAT(html, HasSubstr("demo-tidb-0"));
  EXPECT_THAT(html, HasSubstr("pd: not_ready (no_pd_leader)"));
  EXPECT_THAT(html, HasSubstr("pd: ready for 1h0m"));
  EXPECT_THAT(html, HasSubstr("capacity <span class=\"tag\">needs attention · 1"));
  EXPECT_THAT(html, HasSubstr("<b>dependency</b> <span class=\"tag\">1 pod, expected wait"));
  EXPECT_THAT(html, HasSubstr("2m5s"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("http://")));  // self-contained: no external assets
}

// A model of many clusters: cluster i of `n` has `expected` dependency pods, and every third
// one a capacity pod too (made up; the shapes of exporter/state/waiting_tracker.h's WaitingPod).
ViewModel Fleet(int n, int expected) {
  auto snap = std::make_shared<WaitingSnapshot>();
  snap->evaluated_at = kNow;
  ViewModel m;
  for (int i = 0; i < n; ++i) {
    const std::string ns = "load-" + std::to_string(i);
    const std::string tc = "tc-" + std::to_string(i);
    m.dependencies[ClusterKey{ns, tc}].pd = {Readiness::kReady, kNow - kMinute,
                                             DependencyReason::kNone};
    auto add = [&](std::string pod, WaitClass c, std::string reason) {
      WaitingPod p;
      p.namespace_ = ns;
      p.cluster = tc;
      p.tidb_cluster = ns + "-" + tc;
      p.pod = std::move(pod);
      p.component = "tikv";
      p.classification = {true, Stage::kInitializing, c, std::move(reason), kNow - 60'000, "e"};
      snap->pods.push_back(p);
    };
    for (int j = expected - 1; j >= 0; --j) {
      add(tc + "-tikv-" + std::to_string(j), WaitClass::kDependency, "pd_not_ready");
    }
    if (i % 3 == 0) add(tc + "-tikv-99", WaitClass::kCapacity, "insufficient_memory");
  }
  m.waiting = snap;
  m.now = kNow;
  m.synced = true;
  return m;
}

TEST(StatusPage, SummaryCountsWhatNeedsAttentionAndWhatIsExpected) {
  const std::string html = RenderStatusPage(Fleet(12, 10), {}, {});
  EXPECT_THAT(html, HasSubstr("4 need attention</span>, <span class=\"calm\">120 expected</span>"));
  EXPECT_THAT(html, HasSubstr("in 12 clusters, 4 with problems"));
  EXPECT_THAT(RenderStatusPage(Fleet(1, 3), {}, {}), HasSubstr("1 needs attention"));
}

// Every needs-attention group of every cluster comes before every expected group.
TEST(StatusPage, EveryProblemIsAboveEveryExpectedGroup) {
  const std::string html = RenderStatusPage(Fleet(40, 10), {}, {});
  const size_t last_attention = html.rfind("needs attention ·");
  const size_t first_expected = html.find("<details");
  ASSERT_NE(last_attention, std::string::npos);
  ASSERT_NE(first_expected, std::string::npos);
  EXPECT_LT(last_attention, first_expected);
  EXPECT_LT(html.find("tc-39-tikv-99"), first_expected);
  EXPECT_GT(html.find("tc-0-tikv-0<"), first_expected);
}

// Expected groups are collapsed (closed <details>, no script), with their count in the summary.
TEST(StatusPage, ExpectedGroupsAreCollapsedToACount) {
  const std::string html = RenderStatusPage(Fleet(2, 10), {}, {});
  EXPECT_THAT(html, HasSubstr("<details class=\"class-dependency\"><summary"));
  EXPECT_THAT(html, HasSubstr("10 pods, expected wait"));
  EXPECT_THAT(html, Not(HasSubstr(" open>")));
  // Filtered to an expected class, its groups are what was asked for: open.
  EXPECT_THAT(RenderStatusPage(Fleet(2, 10), {}, {"", "", "dependency"}),
              HasSubstr("<details class=\"class-dependency\" open><summary"));
}

TEST(StatusPage, NaturalSortOfClustersAndPods) {
  const std::string html = RenderStatusPage(Fleet(12, 11), {}, {});
  EXPECT_LT(html.find("tc-2-tikv-2<"), html.find("tc-2-tikv-10<"));
  EXPECT_LT(html.find(">tc-2<"), html.find(">tc-10<"));
  EXPECT_TRUE(NaturalLess("tidb-2", "tidb-10"));
  EXPECT_FALSE(NaturalLess("tidb-10", "tidb-2"));
  EXPECT_TRUE(NaturalLess("a", "a-0"));
  EXPECT_TRUE(NaturalLess("tidb-9", "tidb-10-x"));
  EXPECT_TRUE(NaturalLess("tidb-01", "tidb-1"));  // equal by value: still a strict order
  EXPECT_FALSE(NaturalLess("tidb-1", "tidb-01"));
  EXPECT_FALSE(NaturalLess("x", "x"));
}

// Filters are query parameters: the chips and the cluster names are links that set them.
TEST(StatusPage, FiltersByClassClusterAndNamespace) {
  const ViewModel m = Fleet(4, 2);
  std::string html = RenderStatusPage(m, {}, {"", "", "capacity"});
  EXPECT_THAT(html, HasSubstr("tc-3-tikv-99"));
  EXPECT_THAT(html, Not(HasSubstr("tc-3-tikv-0<")));
  EXPECT_THAT(html, HasSubstr("2 need attention</span>, <span class=\"calm\">0 expected"));
  EXPECT_THAT(html, HasSubstr("href=\"?class=capacity\">capacity 2</a>"));
  EXPECT_THAT(html, HasSubstr("<a href=\"./\">clear filters</a>"));
  html = RenderStatusPage(m, {}, {"load-1", "", ""});
  EXPECT_THAT(html, HasSubstr("tc-1-tikv-0<"));
  EXPECT_THAT(html, Not(HasSubstr("tc-2-tikv-0<")));
  html = RenderStatusPage(m, {}, {"", "load-3-tc-3", ""});
  EXPECT_THAT(html, HasSubstr("tc-3-tikv-99"));
  EXPECT_THAT(html, Not(HasSubstr("tc-0-tikv-99")));
  // The class chips keep the other filters; the cluster name is a link to that cluster only.
  EXPECT_THAT(html, HasSubstr("href=\"?cluster=load-3-tc-3&amp;class=capacity\""));
  EXPECT_THAT(RenderStatusPage(m, {}, {}), HasSubstr("href=\"?cluster=load-2-tc-2\""));
  EXPECT_THAT(RenderStatusPage(m, {}, {}), HasSubstr("href=\"?namespace=load-2\""));
}

TEST(StatusPage, FilterValuesAreEncodedInLinks) {
  ViewModel m = Fleet(1, 1);
  const std::string html = RenderStatusPage(m, {}, {"a&b c", "", ""});
  EXPECT_THAT(html, HasSubstr("href=\"?namespace=a%26b%20c\""));
}

TEST(StatusPage, AbsoluteTimesOnHoverVersionAndRunbookPerClass) {
  StatusPageOptions o;
  o.version = "1.2.3";
  const std::string html = RenderStatusPage(Model(), o, {});
  EXPECT_THAT(html, HasSubstr("<time datetime=\"2023-11-14T22:12:55Z\" "
                              "title=\"since 2023-11-14T22:12:55Z\">2m5s</time>"));
  EXPECT_THAT(html, HasSubstr("version 1.2.3"));
  EXPECT_THAT(html, HasSubstr("<a href=\"runbook#class-capacity\">runbook</a>"));
  EXPECT_THAT(html, HasSubstr("<a href=\"runbook#class-dependency\">runbook</a>"));
}

// Behind kubectl proxy or an ingress sub-path only relative links work.
TEST(StatusPage, EveryLinkIsRelative) {
  StatusPageOptions o;
  o.telemetry_path = "/custom/metrics";
  const std::string html = RenderStatusPage(Fleet(4, 2), o, {"", "", "capacity"});
  EXPECT_THAT(html, HasSubstr("href=\"custom/metrics\""));
  EXPECT_THAT(html, HasSubstr("href=\"api/v1/pods\""));
  EXPECT_THAT(html, Not(HasSubstr("href=\"/")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"http")));
}

TEST(StatusPage, EmptyStateNamesSelectorNamespacesAndSync) {
  ViewModel m;
  m.now = kNow;
  m.synced = false;
  m.unsynced = {"pods", "events"};
  StatusPageOptions o;
  o.selector = "app.kubernetes.io/managed-by=tidb-operator";
  o.selector_v2 = "pingcap.com/managed-by=tidb-operator";
  o.namespaces = {"tidb-a", "tidb-b"};
  std::string html = RenderStatusPage(m, o, {});
  EXPECT_THAT(html, HasSubstr("No waiting pods."));
  EXPECT_THAT(html, HasSubstr("<code>app.kubernetes.io/managed-by=tidb-operator</code> and "
                              "<code>pingcap.com/managed-by=tidb-operator</code>"));
  EXPECT_THAT(html, HasSubstr("namespaces <code>tidb-a</code>, <code>tidb-b</code>"));
  EXPECT_THAT(html, HasSubstr("<b>Not synced yet</b>: waiting for the first list of "
                              "<code>pods</code> <code>events</code>."));
  m.synced = true;
  m.unsynced.clear();
  o.namespaces.clear();
  html = RenderStatusPage(m, o, {"", "", "capacity"});
  EXPECT_THAT(html, HasSubstr("No waiting pods match this filter."));
  EXPECT_THAT(html, HasSubstr("in all namespaces"));
  EXPECT_THAT(html, HasSubstr("Every watch has synced"));
}

TEST(StatusPage, UsableOnAPhone) {
  const std::string html = RenderStatusPage(Model(), {}, {});
  EXPECT_THAT(html, HasSubstr("<meta name=\"viewport\" content=\"width=device-width"));
  // At narrow width the table turns into blocks; the evidence column stays visible.
  const size_t narrow = html.find("@media (max-width:700px)");
  ASSERT_NE(narrow, std::string::npos);
  const std::string phone = html.substr(narrow, html.find("</style>") - narrow);
  EXPECT_THAT(phone, Not(HasSubstr("evidence{display:none")));
  EXPECT_THAT(phone, Not(HasSubstr(".evidence,")));
}

TEST(StatusPage, ExternalUrlGivesTheRunbookPattern) {
  StatusPageOptions o;
  o.external_url = "https://ops.example.com/podwait";
  EXPECT_THAT(RenderStatusPage(Model(), o, {}),
              HasSubstr("runbookURLPattern: 'https://ops.example.com/podwait/runbook#%s'"));
}

TEST(StatusPage, HeadersAllowOnlyItsOwnStyle) {
  bool csp = false;
  for (const auto& [name, value] : StatusPageHeaders()) {
    if (name != "Content-Security-Policy") continue;
    csp = true;
    EXPECT_THAT(value, HasSubstr("default-src 'none'; style-src 'sha256-"));
    EXPECT_THAT(value, Not(HasSubstr("script-src")));
    EXPECT_THAT(value, HasSubstr("form-action 'none'"));
  }
  EXPECT_TRUE(csp);
}

}  // namespace
}  // namespace podwait
