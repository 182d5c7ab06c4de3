#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "exporter/http/views.h"
#include "exporter/http/views_internal.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr Timestamp kNow = 1'700'000'100'000;

// The page as rendered, without the script and its data (whose text names every message).
std::string Shown(const std::string& html) {
  return html.substr(0, html.find("<template id=\"podwait-watching\">"));
}

PodFilter Filter(std::string ns, std::string cluster, std::string wait_class) {
  PodFilter f;
  f.namespace_ = std::move(ns);
  f.cluster = std::move(cluster);
  f.wait_class = std::move(wait_class);
  return f;
}

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
  EXPECT_THAT(RenderStatusPage(m, {}, Filter("", "", "dependency")),
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

// Where a cluster's PD lives when it is not its own (a heterogeneous cluster), and a v1
// DMCluster, which has only its dm-master: both on the JSON view and the status page.
TEST(PodsJson, APdElsewhereAndADmClusterShowWhatApplies) {
  ViewModel m = Model();
  ClusterDependencies& hetero = m.dependencies[ClusterKey{"demo", "demo"}];
  hetero.pd_source = "PD of demo/basic (spec.cluster, no spec.pd)";
  ClusterDependencies& dm = m.dependencies[ClusterKey{"shop", "shop"}];
  dm = ClusterDependencies{};
  dm.tidb_cluster = false;
  dm.dm_master = {Readiness::kNotReady, 0, DependencyReason::kDmMasterNotReady};
  rapidjson::Document d;
  d.Parse(RenderPodsJson(m, {}).c_str());
  ASSERT_FALSE(d.HasParseError());
  ASSERT_EQ(d["clusters"].Size(), 2u);
  EXPECT_STREQ(d["clusters"][0]["pdSource"].GetString(),
               "PD of demo/basic (spec.cluster, no spec.pd)");
  const auto& deps = d["clusters"][1]["dependencies"];
  EXPECT_FALSE(deps.HasMember("pd"));
  EXPECT_FALSE(deps.HasMember("tikv"));
  EXPECT_STREQ(deps["dm-master"]["readiness"].GetString(), "not_ready");
  const std::string page = RenderStatusPage(m, {}, {});
  EXPECT_THAT(page, ::testing::HasSubstr("PD of demo/basic (spec.cluster, no spec.pd)"));
  EXPECT_THAT(page, ::testing::HasSubstr("dm-master: not_ready (dm_master_not_ready)"));
}

// heldBy (docs/DESIGN.md §4): on every dependency row, present even when empty; on no other row.
TEST(PodsJson, DependencyRowsCarryHeldBy) {
  ViewModel m = Model();
  auto snap = std::make_shared<WaitingSnapshot>(*m.waiting);
  WaitingPod held = snap->pods[0];
  held.pod = "demo-tidb-1";
  held.held_by = {{"demo-pd-0", WaitClass::kCapacity, "insufficient_cpu"},
                  {"demo-pd-1", WaitClass::kStarting, "pd_bootstrap"}};
  snap->pods.push_back(held);
  m.waiting = snap;
  rapidjson::Document d;
  const std::string body = RenderPodsJson(m, PodFilter{});
  d.Parse(body.c_str());
  ASSERT_FALSE(d.HasParseError()) << body;
  std::map<std::string, const rapidjson::Value*> by_pod;
  for (const auto& p : d["pods"].GetArray()) by_pod[p["pod"].GetString()] = &p;
  ASSERT_TRUE(by_pod.count("demo-tidb-0") && by_pod.count("demo-tidb-1") &&
              by_pod.count("shop-tikv-0"))
      << body;
  ASSERT_TRUE(by_pod["demo-tidb-0"]->HasMember("heldBy")) << body;
  EXPECT_TRUE((*by_pod["demo-tidb-0"])["heldBy"].GetArray().Empty());
  EXPECT_FALSE(by_pod["shop-tikv-0"]->HasMember("heldBy")) << body;
  const auto& list = (*by_pod["demo-tidb-1"])["heldBy"];
  ASSERT_EQ(list.Size(), 2u) << body;
  EXPECT_STREQ(list[0]["pod"].GetString(), "demo-pd-0");
  EXPECT_STREQ(list[0]["class"].GetString(), "capacity");
  EXPECT_STREQ(list[0]["reason"].GetString(), "insufficient_cpu");
  EXPECT_STREQ(list[1]["pod"].GetString(), "demo-pd-1");
  // The status page's pod detail shows the chain, the unexpected holder marked.
  PodFilter one;
  one.pod = "demo-tidb-1";
  const std::string page = Shown(RenderStatusPage(m, StatusPageOptions{}, one));
  EXPECT_THAT(page, HasSubstr("held by <b>demo-pd-0</b>: capacity/insufficient_cpu (needs "
                              "attention)"));
  EXPECT_THAT(page, HasSubstr("held by <b>demo-pd-1</b>: starting/pd_bootstrap (expected)"));
}

TEST(PodsJson, Filters) {
  rapidjson::Document d;
  d.Parse(RenderPodsJson(Model(), Filter("", "", "capacity")).c_str());
  ASSERT_EQ(d["pods"].Size(), 1u);
  EXPECT_STREQ(d["pods"][0]["pod"].GetString(), "shop-tikv-0");
  d.Parse(RenderPodsJson(Model(), Filter("demo", "", "")).c_str());
  EXPECT_EQ(d["pods"].Size(), 1u);
  EXPECT_EQ(d["clusters"].Size(), 1u);
  d.Parse(RenderPodsJson(Model(), Filter("", "shop-shop", "")).c_str());
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
  // Refreshed in place by its script, never by a reload that collapses what the user opened.
  EXPECT_THAT(html, Not(HasSubstr("http-equiv=\"refresh\"")));
  EXPECT_THAT(html, HasSubstr("shop-tikv-0"));
  EXPECT_THAT(html, HasSubstr("pd: not_ready (no_pd_leader)"));
  EXPECT_THAT(html, HasSubstr("pd: ready for 1h0m"));
  EXPECT_THAT(html, HasSubstr("capacity <span class=\"tag\">needs attention · 1"));
  EXPECT_THAT(html, HasSubstr("<b>dependency</b> <span class=\"tag\">1 pod, expected wait"));
  EXPECT_THAT(html, HasSubstr("2m5s"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;"));
  EXPECT_THAT(Shown(html), Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<script src")));
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
  const std::string html = Shown(RenderStatusPage(Fleet(40, 10), {}, {}));
  const size_t last_attention = html.rfind("needs attention ·");
  const size_t first_expected = html.find("<details");
  ASSERT_NE(last_attention, std::string::npos);
  ASSERT_NE(first_expected, std::string::npos);
  EXPECT_LT(last_attention, first_expected);
  EXPECT_LT(html.find("tc-39-tikv-99"), first_expected);
  // Filtered to the expected class, its rows are there, below every problem.
  const std::string all = RenderStatusPage(Fleet(40, 10), {}, Filter("", "", "dependency"));
  ASSERT_NE(all.find("tc-0-tikv-0<"), std::string::npos);
  EXPECT_GT(all.find("tc-0-tikv-0<"), all.find("<details"));
}

// Expected groups are collapsed to their count, their rows not sent: the script loads them when
// a group is opened, and without script the group's link opens the page filtered to them.
TEST(StatusPage, ExpectedGroupsAreCollapsedToACountWithoutRows) {
  const std::string html = RenderStatusPage(Fleet(2, 10), {}, {});
  EXPECT_THAT(html,
              HasSubstr("<details class=\"class-dependency\" "
                        "data-rows=\"?namespace=load-1&amp;cluster=tc-1&amp;class=dependency\">"
                        "<summary"));
  EXPECT_THAT(html, HasSubstr("10 pods, expected wait"));
  EXPECT_THAT(html, HasSubstr("<p class=\"rows\"><a href=\"?namespace=load-1&amp;cluster=tc-1&amp;"
                              "class=dependency\">show the 10 pods</a></p>"));
  EXPECT_THAT(html, Not(HasSubstr(" open>")));
  EXPECT_THAT(html, Not(HasSubstr("tc-1-tikv-3<")));
  // Filtered to an expected class, its groups are what was asked for: open, with their rows.
  const std::string open = RenderStatusPage(Fleet(2, 10), {}, Filter("", "", "dependency"));
  EXPECT_THAT(open, HasSubstr("class=dependency\" open><summary"));
  EXPECT_THAT(open, HasSubstr("tc-1-tikv-3<"));
}

// A fleet page is its problems and a count per expected group: at 40 clusters of 50 expected
// waits (2,000 pods) it stays far below what a page of every row was.
TEST(StatusPage, AFleetPageDoesNotGrowWithExpectedWaits) {
  const std::string small = RenderStatusPage(Fleet(40, 1), {}, {});
  const std::string large = RenderStatusPage(Fleet(40, 50), {}, {});
  EXPECT_LT(large.size(), small.size() + 1024) << "rows of expected waits in the page";
  EXPECT_LT(large.size(), 250u * 1024);
}

TEST(StatusPage, NaturalSortOfClustersAndPods) {
  const std::string html = RenderStatusPage(Fleet(12, 11), {}, Filter("", "", "dependency"));
  ASSERT_NE(html.find("tc-2-tikv-10<"), std::string::npos);
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
  std::string html = RenderStatusPage(m, {}, Filter("", "", "capacity"));
  EXPECT_THAT(html, HasSubstr("tc-3-tikv-99"));
  EXPECT_THAT(html, Not(HasSubstr("tc-3-tikv-0<")));
  EXPECT_THAT(html, HasSubstr("href=\"?class=capacity\">capacity 2</a>"));
  EXPECT_THAT(html, HasSubstr("<a href=\"./\">clear filters</a>"));
  html = RenderStatusPage(m, {}, Filter("load-1", "", ""));
  EXPECT_THAT(html,
              HasSubstr("data-rows=\"?namespace=load-1&amp;cluster=tc-1&amp;class=dependency\""));
  EXPECT_THAT(html, Not(HasSubstr("?namespace=load-2&amp;")));
  html = RenderStatusPage(m, {}, Filter("", "load-3-tc-3", ""));
  EXPECT_THAT(html, HasSubstr("tc-3-tikv-99"));
  EXPECT_THAT(html, Not(HasSubstr("tc-0-tikv-99")));
  // The class chips keep the other filters; the cluster name is a link to that cluster only.
  EXPECT_THAT(html, HasSubstr("href=\"?cluster=load-3-tc-3&amp;class=capacity\""));
  EXPECT_THAT(RenderStatusPage(m, {}, {}), HasSubstr("href=\"?cluster=load-2-tc-2\""));
  EXPECT_THAT(RenderStatusPage(m, {}, {}), HasSubstr("href=\"?namespace=load-2\""));
}

TEST(StatusPage, FilterValuesAreEncodedInLinks) {
  ViewModel m = Fleet(1, 1);
  const std::string html = RenderStatusPage(m, {}, Filter("a&b c", "", ""));
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
  const std::string html = RenderStatusPage(Fleet(4, 2), o, Filter("", "", "capacity"));
  EXPECT_THAT(html, HasSubstr("href=\"custom/metrics\""));
  EXPECT_THAT(html, HasSubstr("href=\"api/v1/pods\""));
  EXPECT_THAT(html, Not(HasSubstr("href=\"/")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"http")));
}

TEST(StatusPage, EmptyStateNamesSelectorNamespacesAndSync) {
  ViewModel m;
  m.now = kNow;
  m.synced = true;
  StatusPageOptions o;
  o.selector = "app.kubernetes.io/managed-by=tidb-operator";
  o.selector_v2 = "pingcap.com/managed-by=tidb-operator";
  o.namespaces = {"tidb-a", "tidb-b"};
  std::string html = RenderStatusPage(m, o, {});
  EXPECT_THAT(html, HasSubstr("No waiting pods."));
  EXPECT_THAT(html, HasSubstr("<code>app.kubernetes.io/managed-by=tidb-operator</code> and "
                              "<code>pingcap.com/managed-by=tidb-operator</code>"));
  EXPECT_THAT(html, HasSubstr("namespaces <code>tidb-a</code>, <code>tidb-b</code>"));
  o.namespaces.clear();
  html = RenderStatusPage(m, o, Filter("", "", "capacity"));
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
    EXPECT_THAT(value, HasSubstr("; script-src 'sha256-"));
    EXPECT_THAT(value, HasSubstr("; connect-src 'self';"));
    EXPECT_THAT(value, HasSubstr("form-action 'none'"));
  }
  EXPECT_TRUE(csp);
}

// ===== No data is not good news ===============================================================

// Issue 37: with the API server unreachable the page said a green "0 need attention" and "No
// waiting pods". Before the first list there is no data: the page says so first, and nothing
// reads as an all-clear.
TEST(StatusPage, BeforeTheFirstListThereIsNoData) {
  ViewModel m;
  m.now = kNow;
  m.health.not_synced_yet = {"pods", "events"};
  m.health.started_at = kNow - 12'000;
  m.health.api_address = "https://10.0.0.1:6443";
  m.health.api_reachable = false;
  m.health.api_error = "cannot connect: Connection refused";
  m.health.api_unreachable_since = kNow - 11'000;
  const std::string html = Shown(RenderStatusPage(m, {}, {}));
  const size_t banner = html.find("<div class=\"nodata\" role=\"alert\">");
  ASSERT_NE(banner, std::string::npos);
  EXPECT_LT(banner, html.find("class=\"summary\""));  // first
  EXPECT_THAT(html, HasSubstr("<b>No data yet</b>: waiting for the first list of <code>pods</code> "
                              "<code>events</code> (the exporter started "));
  EXPECT_THAT(html, HasSubstr("12s ago</time>"));
  EXPECT_THAT(html, HasSubstr("<b>The API server is unreachable</b> for <time datetime=\""));
  EXPECT_THAT(html, HasSubstr(">11s</time>: <code>https://10.0.0.1:6443</code>: cannot connect: "
                              "Connection refused."));
  EXPECT_THAT(html, HasSubstr("No data has arrived from the API server yet: not an all-clear."));
  EXPECT_THAT(html, HasSubstr("<p class=\"summary\"><span class=\"warn\">No data yet</span></p>"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"ok\"")));
  EXPECT_THAT(html, Not(HasSubstr("No waiting pods")));
  EXPECT_THAT(html, Not(HasSubstr("need attention")));
  EXPECT_THAT(html, HasSubstr("<title>not current · podwait</title>"));
}

// After the data stopped: what is shown is the last data, and the page says how old it is.
TEST(StatusPage, UnreachableAfterDataSaysSinceWhenAndHowOld) {
  ViewModel m = Fleet(2, 3);
  auto snap = std::make_shared<WaitingSnapshot>(*m.waiting);
  m.waiting = snap;
  m.synced = false;
  m.health.out_of_sync = {"pods", "events", "tidbclusters", "configmaps", "pds", "tikvs", "tidbs"};
  m.health.api_address = "https://10.0.0.1:6443";
  m.health.api_reachable = false;
  m.health.api_error = "cannot connect: Connection refused";
  m.health.api_unreachable_since = kNow - 3 * kMinute;
  m.health.last_data = kNow - 3 * kMinute - 5'000;
  std::string html = RenderStatusPage(m, {}, {});
  EXPECT_THAT(html, HasSubstr(">3m0s</time>: <code>https://10.0.0.1:6443</code>"));
  EXPECT_THAT(html,
              HasSubstr("<b>Out of sync</b>: the list or watch of <code>pods</code> "
                        "<code>events</code> <code>tidbclusters</code> <code>configmaps</code> "
                        "<code>pds</code> <code>tikvs</code> and 1 more keeps failing."));
  EXPECT_THAT(html, HasSubstr("The last data arrived <time datetime=\"2023-11-14T22:11:55Z\" "
                              "title=\"2023-11-14T22:11:55Z\">3m5s ago</time>: what follows is as "
                              "of then, not an all-clear."));
  EXPECT_THAT(html, HasSubstr("1 needs attention</span>"));  // Fleet(2, .): one capacity pod
  EXPECT_THAT(html, HasSubstr(" · as of the last data</span>"));
  EXPECT_THAT(html, HasSubstr("<b>not current</b>"));
  // Nothing waiting in the last data: still no green, no "No waiting pods".
  m.waiting = std::make_shared<WaitingSnapshot>();
  html = Shown(RenderStatusPage(m, {}, {}));
  EXPECT_THAT(html, HasSubstr("<span class=\"warn\">0 need attention</span>"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"ok\"")));
  EXPECT_THAT(html, Not(HasSubstr("No waiting pods")));
  EXPECT_THAT(html, HasSubstr("Nothing to show, and that is not an all-clear"));
  // Current again: the all-clear is allowed.
  m.health = {};
  m.synced = true;
  html = Shown(RenderStatusPage(m, {}, {}));
  EXPECT_THAT(html, HasSubstr("<span class=\"ok\">0 need attention</span>"));
  EXPECT_THAT(html, HasSubstr("No waiting pods."));
  EXPECT_THAT(html, Not(HasSubstr("class=\"nodata\"")));
}

TEST(PodsJson, HealthSaysWhatKeepsTheDataFromBeingCurrent) {
  ViewModel m = Model();
  rapidjson::Document d;
  d.Parse(RenderPodsJson(m, {}).c_str());
  EXPECT_TRUE(d["health"]["current"].GetBool());
  EXPECT_TRUE(d["health"]["apiServer"]["reachable"].GetBool());
  EXPECT_STREQ(d["now"].GetString(), "2023-11-14T22:15:00Z");
  m.health.out_of_sync = {"pods"};
  m.health.api_address = "https://10.0.0.1:6443";
  m.health.api_reachable = false;
  m.health.api_error = "refused";
  m.health.api_unreachable_since = kNow - kMinute;
  m.health.last_data = kNow - 2 * kMinute;
  d.Parse(RenderPodsJson(m, {}).c_str());
  const auto& h = d["health"];
  EXPECT_FALSE(h["current"].GetBool());
  EXPECT_STREQ(h["outOfSync"][0].GetString(), "pods");
  EXPECT_EQ(h["notSyncedYet"].Size(), 0u);
  EXPECT_STREQ(h["apiServer"]["address"].GetString(), "https://10.0.0.1:6443");
  EXPECT_FALSE(h["apiServer"]["reachable"].GetBool());
  EXPECT_STREQ(h["apiServer"]["error"].GetString(), "refused");
  EXPECT_STREQ(h["apiServer"]["unreachableSince"].GetString(), "2023-11-14T22:14:00Z");
  EXPECT_STREQ(h["lastData"].GetString(), "2023-11-14T22:13:00Z");
}

// ===== The headline counts the whole scope ====================================================

// Issue 37: a class filter turned the headline green while problems existed elsewhere.
TEST(StatusPage, TheHeadlineCountsTheWholeScopeAndSaysFiltered) {
  const ViewModel m = Fleet(4, 2);  // 8 dependency pods, capacity pods in load-0 and load-3
  std::string html = RenderStatusPage(m, {}, Filter("", "", "dependency"));
  EXPECT_THAT(html,
              HasSubstr("<span class=\"bad\">2 need attention</span>, <span class=\"calm\">"
                        "8 expected</span> <span class=\"meta\">in 4 clusters, 2 with "
                        "problems</span> <span class=\"filtered\">· filtered: 8 shown</span>"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"ok\"")));
  EXPECT_THAT(html, HasSubstr("<title>2 need attention · podwait</title>"));
  html = RenderStatusPage(m, {}, Filter("load-1", "", ""));
  EXPECT_THAT(html, HasSubstr("2 need attention</span>"));
  EXPECT_THAT(html, HasSubstr("filtered: 2 shown"));
  EXPECT_THAT(Shown(RenderStatusPage(m, {}, {})), Not(HasSubstr("class=\"filtered\"")));
}

// ===== No red inside "Expected" ===============================================================

TEST(StatusPage, DependencyChipsInsideExpectedAreCalm) {
  const std::string html = RenderStatusPage(Model(), {}, {});
  const size_t expected = html.find("id=\"expected\"");
  ASSERT_NE(expected, std::string::npos);
  // demo's PD is not ready: the reason its pods wait as designed, not a problem of its own.
  EXPECT_THAT(html.substr(expected), HasSubstr("<section class=\"cluster expected\">"));
  EXPECT_THAT(html.substr(expected), HasSubstr("dep not_ready"));
  EXPECT_THAT(html, HasSubstr(".expected .dep.not_ready{color:var(--calm)}"));
}

// ===== ?namespace=&pod=: where an alert links =================================================

TEST(StatusPage, APodLinkOpensItsClassReasonEvidenceSinceAndWhatHoldsIt) {
  ViewModel m = Model();
  std::string html = RenderStatusPage(
      m, {}, PodFilter::FromQuery({{"namespace", "demo"}, {"pod", "demo-tidb-0"}}));
  const size_t card = html.find("<section class=\"pod expected\">");
  ASSERT_NE(card, std::string::npos);
  const std::string c = html.substr(card, html.find("</section>", card) - card);
  EXPECT_THAT(c, HasSubstr("<a href=\"?namespace=demo\">demo</a> / demo-tidb-0</h2>"));
  EXPECT_THAT(c, HasSubstr("<dt>class</dt><dd><b>dependency</b> · expected wait: waiting for a "
                           "component it needs, which is not ready · <a "
                           "href=\"runbook#class-dependency\">runbook</a></dd>"));
  EXPECT_THAT(c, HasSubstr("<dt>reason</dt><dd>pd_not_ready</dd>"));
  EXPECT_THAT(c, HasSubstr("<dt>evidence</dt><dd>PD has no leader</dd>"));
  EXPECT_THAT(
      c, HasSubstr("<dt>since</dt><dd>initializing for <time datetime=\"2023-11-14T22:12:55Z\""));
  EXPECT_THAT(c, HasSubstr(", dependency for <time datetime=\"2023-11-14T22:14:00Z\""));
  EXPECT_THAT(c, HasSubstr("<dt>what holds it</dt><dd><span class=\"deps\"><span class=\"dep "
                           "not_ready\">pd: not_ready (no_pd_leader)</span>"));
  // Its group is open with its one row; nothing else is shown.
  EXPECT_THAT(html, HasSubstr("class=dependency\" open><summary"));
  EXPECT_THAT(html, Not(HasSubstr("shop-tikv-0<")));
  // The headline still counts everything.
  EXPECT_THAT(html, HasSubstr("1 needs attention</span>"));
  // A pod that is not waiting (any more) says so, and is not an error.
  html = RenderStatusPage(m, {}, PodFilter::FromQuery({{"namespace", "demo"}, {"pod", "gone-0"}}));
  EXPECT_THAT(html, HasSubstr("Pod demo/gone-0 is not waiting: it is Ready, gone, or not watched "
                              "here."));
}

TEST(PodsJson, PodAndExpectedFilters) {
  auto f = ParsePodFilter({{"namespace", "shop"}, {"pod", "shop-tikv-0"}, {"expected", "false"}});
  ASSERT_TRUE(f.ok()) << f.error;
  rapidjson::Document d;
  d.Parse(RenderPodsJson(Model(), *f).c_str());
  ASSERT_EQ(d["pods"].Size(), 1u);
  EXPECT_STREQ(d["pods"][0]["pod"].GetString(), "shop-tikv-0");
  EXPECT_FALSE(ParsePodFilter({{"expected", "maybe"}}).ok());
  // expected=false lists the problems only; each cluster still counts its pods by class.
  d.Parse(RenderPodsJson(Model(), *ParsePodFilter({{"expected", "false"}})).c_str());
  ASSERT_EQ(d["pods"].Size(), 1u);
  ASSERT_EQ(d["clusters"].Size(), 2u);
  EXPECT_EQ(d["clusters"][0]["waiting"]["dependency"].GetUint64(), 1u);
  EXPECT_EQ(d["clusters"][1]["waiting"]["capacity"].GetUint64(), 1u);
  // The scope is the whole one, whatever the filter.
  d.Parse(RenderPodsJson(Model(), Filter("", "", "capacity")).c_str());
  EXPECT_EQ(d["scope"]["needAttention"].GetUint64(), 1u);
  EXPECT_EQ(d["scope"]["expected"].GetUint64(), 1u);
  EXPECT_EQ(d["scope"]["clusters"].GetUint64(), 2u);
  EXPECT_EQ(d["scope"]["clustersWithProblems"].GetUint64(), 1u);
}

// The policy allows exactly the script the page carries.
TEST(StatusPage, ThePolicyAllowsThePagesOwnScriptByItsHash) {
  const std::string html = RenderStatusPage(Model(), {}, {});
  const std::string open = "</script><script>";
  const size_t start = html.find(open);
  ASSERT_NE(start, std::string::npos);
  const size_t end = html.find("</script>", start + open.size());
  const std::string script = html.substr(start + open.size(), end - start - open.size());
  EXPECT_THAT(script, HasSubstr("refreshes in place every"));
  std::string csp;
  for (const auto& [name, value] : StatusPageHeaders()) {
    if (name == "Content-Security-Policy") csp = value;
  }
  EXPECT_THAT(csp, HasSubstr("script-src 'sha256-" + views::Sha256Base64(script) + "'"));
}

}  // namespace
}  // namespace podwait
