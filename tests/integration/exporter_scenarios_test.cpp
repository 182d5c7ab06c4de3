// The exporter against the simulator, end to end, scraping /metrics (issue: classification and the
// metric contract). Each test drives the simulator's timeline by hand (--manual).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::IsEmpty;
using ::testing::SizeIs;

bool Has(const std::string& text, const std::string& name,
         const std::map<std::string, std::string>& match) {
  return !FindSamples(text, name, match).empty();
}

// The original report (tests/scenarios/demo.json): 3 PD pods Running, demo-tikv-0 unschedulable
// while the autoscaler adds a node, demo-tidb-0..4 in Init:0/1 on wait-for-pd; then PD becomes
// ready, the node arrives and every pod moves on.
TEST(ExporterScenarios, OriginalReportThenPdReadyAndPodsMoveOn) {
  SimAndExporter stack("tests/scenarios/demo.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        // Pods, events, the autoscaler ConfigMap and PD probes arrive on their own schedules
        // (sanitizer builds stretch them): wait until each has been seen.
        return FindSamples(t, "podwait_pod_waiting_seconds",
                           {{"namespace", "demo"}, {"component", "tidb"}, {"class", "dependency"}})
                       .size() == 5 &&
               Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "demo-tikv-0"}, {"class", "scale_up"}}) &&
               Has(t, "podwait_pod_waiting_seconds",
                   {{"namespace", "shop"}, {"class", "capacity"}}) &&
               SampleValue(t, "podwait_autoscaler_detected", {{"kind", "cluster-autoscaler"}}) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(Has(text, "podwait_pod_waiting_seconds",
                    {{"namespace", "demo"},
                     {"tidb_cluster", "demo-demo"},
                     {"pod", "demo-tidb-" + std::to_string(i)},
                     {"stage", "initializing"},
                     {"class", "dependency"}}))
        << "demo-tidb-" << i;
  }
  EXPECT_TRUE(Has(text, "podwait_pod_waiting_seconds",
                  {{"pod", "demo-tikv-0"}, {"stage", "unscheduled"}, {"class", "scale_up"}}));
  // PD forming its quorum is an expected wait (--pd.bootstrap-grace): no red on the first screen.
  // (A PD pod already Ready, once PD has its leader, is not waiting.)
  for (int i = 0; i < 3; ++i) {
    for (const Sample& pd : FindSamples(text, "podwait_pod_waiting_seconds",
                                        {{"pod", "demo-pd-" + std::to_string(i)}})) {
      EXPECT_EQ(pd.labels.at("class"), "starting") << "demo-pd-" << i;
      EXPECT_EQ(pd.labels.at("reason"), "pd_bootstrap") << "demo-pd-" << i;
    }
  }
  EXPECT_TRUE(FindSamples(text, "podwait_pod_waiting_seconds",
                          {{"namespace", "demo"}, {"class", "not_ready"}})
                  .empty());
  EXPECT_TRUE(
      Has(text, "podwait_pod_waiting_seconds",
          {{"namespace", "shop"}, {"class", "capacity"}, {"reason", "max_node_group_size"}}));
  EXPECT_EQ(
      SampleValue(text, "podwait_waiting_pods",
                  {{"tidb_cluster", "demo-demo"}, {"component", "tidb"}, {"class", "dependency"}}),
      5);
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "demo-demo"}, {"dependency", "pd"}}),
            0);
  EXPECT_EQ(SampleValue(text, "podwait_autoscaler_detected", {{"kind", "cluster-autoscaler"}}), 1);

  // Everything after: PD ready, TiKV up, the node arrives, init done, TiDB ready.
  int code = 0;
  while ((code = stack.SimPost("/_sim/advance")) == 200) {
  }
  EXPECT_EQ(code, 409) << "the timeline ends";
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        // The pods move on through the watch; PD's readiness arrives with the next probe round,
        // which may come a little later (1 s interval): wait for both.
        return FindSamples(t, "podwait_pod_waiting_seconds", {{"namespace", "demo"}}).empty() &&
               SampleValue(t, "podwait_dependency_ready",
                           {{"tidb_cluster", "demo-demo"}, {"dependency", "pd"}}) == 1 &&
               SampleValue(
                   t, "podwait_stage_duration_seconds_count",
                   {{"component", "tidb"}, {"stage", "initializing"}, {"class", "dependency"}}) ==
                   5;
      },
      20, &text))
      << text;
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "demo-demo"}, {"dependency", "pd"}}),
            1);
  EXPECT_EQ(SampleValue(text, "podwait_stage_duration_seconds_count",
                        {{"component", "tikv"}, {"stage", "unscheduled"}, {"class", "scale_up"}}),
            1);

  // A relist (410 on the next watch) and a dropped connection observe nothing twice.
  // (For the pods watch: without `resource` the next watch request of any resource could take it.)
  EXPECT_EQ(stack.SimPost("/_sim/fault", R"({"fault":"gone","as":"event","resource":"pods"})"),
            200);
  EXPECT_EQ(stack.SimPost("/_sim/fault", R"({"fault":"drop_watches","mode":"reset"})"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_watch_relists_total", {{"resource", "pods"}}) >= 1;
      },
      20, &text))
      << text;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  text = stack.Scrape();
  EXPECT_EQ(
      SampleValue(text, "podwait_stage_duration_seconds_count",
                  {{"component", "tidb"}, {"stage", "initializing"}, {"class", "dependency"}}),
      5);
  EXPECT_EQ(SampleValue(text, "podwait_stage_duration_seconds_count",
                        {{"component", "tikv"}, {"stage", "unscheduled"}, {"class", "scale_up"}}),
            1);
}

// A cluster whose PD is ready from the start, for the tests below.
const char* kReadyCluster = R"([
  {"pd": {"namespace": "cases", "cluster": "basic", "state": "initialized",
          "stores": [{"id": 1, "state": "Up", "pod": "basic-tikv-0"}]}},
  {"pod": {"namespace": "cases", "name": "basic-pd-0", "stage": "ready", "created": "-10m"}},
  {"pod": {"namespace": "cases", "name": "basic-tikv-0", "stage": "ready", "created": "-10m"}}
])";

TEST(ExporterScenarios, PodStillInInitAfterPdReadyBecomesDependencyStuck) {
  SimAndExporter stack("tests/scenarios/empty.json", {"--dependency.ready-grace=3s"});
  ASSERT_EQ(stack.SimPost("/_sim/apply", kReadyCluster), 200);
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"({"pod": {"namespace": "cases", "name": "basic-tidb-0",
      "stage": "init", "waitForPd": true, "created": "-5m"}})"),
            200);
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return Has(
            t, "podwait_pod_waiting_seconds",
            {{"pod", "basic-tidb-0"}, {"stage", "initializing"}, {"class", "dependency_stuck"}});
      },
      20, &text))
      << text;
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "cases-basic"}, {"dependency", "tikv"}}),
            1);
}

TEST(ExporterScenarios, NotTriggerScaleUpIsCapacity) {
  SimAndExporter stack("tests/scenarios/empty.json");
  ASSERT_EQ(stack.SimPost("/_sim/apply", kReadyCluster), 200);
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"([
    {"pod": {"namespace": "cases", "name": "basic-tikv-1", "stage": "unschedulable", "created": "-5m",
             "since": "-5m", "message": "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}},
    {"event": {"namespace": "cases", "pod": "basic-tikv-1", "reason": "NotTriggerScaleUp",
               "message": "pod didn't trigger scale-up: 1 max node group size reached", "first": "-4m"}}
  ])"),
            200);
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return Has(
            t, "podwait_pod_waiting_seconds",
            {{"pod", "basic-tikv-1"}, {"class", "capacity"}, {"reason", "max_node_group_size"}});
      },
      20, &text))
      << text;
}

TEST(ExporterScenarios, UnboundPvcIsConstraints) {
  SimAndExporter stack("tests/scenarios/empty.json");
  ASSERT_EQ(stack.SimPost("/_sim/apply", kReadyCluster), 200);
  // The message as in tests/fixtures/real/k8s/pod-pending-unschedulable-unbound-pvc.status.yaml.
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"({"pod": {"namespace": "cases", "name": "basic-tikv-2",
      "stage": "unschedulable", "created": "-5m", "since": "-5m",
      "message": "0/3 nodes are available: 3 pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."}})"),
            200);
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "basic-tikv-2"}, {"class", "constraints"}, {"reason", "unbound_pvc"}});
      },
      20, &text))
      << text;
}

TEST(ExporterScenarios, TidbFailoverRecordedWhileWaitingOnPd) {
  SimAndExporter stack("tests/scenarios/empty.json");
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"([
    {"pd": {"namespace": "fo", "cluster": "fo", "state": "no_leader"}},
    {"pod": {"namespace": "fo", "name": "fo-pd-0", "stage": "running", "created": "-10m"}},
    {"pod": {"namespace": "fo", "name": "fo-tidb-0", "stage": "init", "waitForPd": true, "created": "-8m"}},
    {"pod": {"namespace": "fo", "name": "fo-tidb-1", "stage": "init", "waitForPd": true, "created": "-8m"}},
    {"tidbcluster": {"namespace": "fo", "name": "fo", "pd": {"replicas": 1, "healthy": false, "leader": null},
                     "tidb": {"replicas": 2}}}
  ])"),
            200);
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "fo-tidb-0"}, {"class", "dependency"}});
      },
      20, &text))
      << text;
  // tidb-operator marks the waiting TiDB pod as a failure member (its 5m failover period passed).
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"({"tidbcluster": {"namespace": "fo", "name": "fo",
      "pd": {"replicas": 1, "healthy": false, "leader": null},
      "tidb": {"replicas": 2, "failureMembers": [{"pod": "fo-tidb-0", "createdAt": "now"}]}}})"),
            200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_failover_during_dependency_wait",
                           {{"tidb_cluster", "fo-fo"}, {"component", "tidb"}}) == 1;
      },
      20, &text))
      << text;
  EXPECT_EQ(SampleValue(text, "podwait_failover_members",
                        {{"tidb_cluster", "fo-fo"}, {"component", "tidb"}}),
            1);
}

TEST(ExporterScenarios, ReadyzIsUnavailableBeforeSyncAndOkAfter) {
  SimAndExporter stack("tests/scenarios/demo.json", {}, /*start_exporter=*/false);
  // The first pod sync (a watch-list, or a list where that is not served) hangs for 3 s: the
  // exporter is alive but not ready meanwhile.
  ASSERT_EQ(stack.SimPost("/_sim/fault",
                          R"({"fault":"hang","seconds":3,"resource":"pods","verb":"any"})"),
            200);
  stack.StartExporter();
  HttpResult before = HttpGet(stack.exporter_port(), "/readyz");
  EXPECT_EQ(before.status, 503) << before.body;
  EXPECT_THAT(before.body, ::testing::HasSubstr("pods"));
  EXPECT_TRUE(WaitFor([&] { return HttpGet(stack.exporter_port(), "/readyz").status == 200; },
                      std::chrono::seconds(30)))
      << stack.exporter().ReadLog();
}

TEST(ExporterScenarios, WatchingNamedNamespacesKeepsEveryNamespacesTidbClusters) {
  // One reflector per namespace; readiness from TidbCluster status only, so a namespace whose
  // TidbCluster the other namespace's list dropped would lose its dependency series.
  SimAndExporter stack("tests/scenarios/demo.json",
                       {"--namespaces=demo,shop", "--readiness.source=tidbcluster"});
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_watch_synced", {{"resource", "tidbclusters"}}) == 1 &&
               !FindSamples(t, "podwait_dependency_ready",
                            {{"tidb_cluster", "demo-demo"}, {"dependency", "pd"}})
                    .empty() &&
               !FindSamples(t, "podwait_dependency_ready",
                            {{"tidb_cluster", "shop-shop"}, {"dependency", "pd"}})
                    .empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "shop-shop"}, {"dependency", "pd"}}),
            1);
  // And it stays so after both namespaces' TidbCluster watches relist.
  ASSERT_EQ(stack.SimPost("/_sim/fault",
                          R"({"fault":"gone","as":"http","count":2,"resource":"tidbclusters"})"),
            200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_watch_relists_total", {{"resource", "tidbclusters"}}) >= 2;
      },
      20, &text))
      << text;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  text = stack.Scrape();
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "shop-shop"}, {"dependency", "pd"}}),
            1);
  EXPECT_FALSE(FindSamples(text, "podwait_dependency_ready",
                           {{"tidb_cluster", "demo-demo"}, {"dependency", "pd"}})
                   .empty());
}

TEST(ExporterScenarios, ScrapeWithWaitingPodsPassesPromtool) {
  SimAndExporter stack("tests/scenarios/demo.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds").size() >= 10 &&
               !FindSamples(t, "podwait_stage_duration_seconds_bucket").empty();
      },
      20, &text))
      << text;
  std::string out;
  EXPECT_EQ(RunCommand({"promtool", "check", "metrics"}, &out, text), 0) << out;
  EXPECT_EQ(out, "") << "promtool reported problems";
}

TEST(ExporterScenarios, JsonViewAndStatusPage) {
  SimAndExporter stack("tests/scenarios/demo.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds", {{"class", "capacity"}});
      },
      20, &text));
  HttpResult json = HttpGet(stack.exporter_port(), "/api/v1/pods?class=capacity");
  EXPECT_EQ(json.status, 200);
  EXPECT_EQ(json.content_type, "application/json");
  EXPECT_THAT(json.body, ::testing::HasSubstr("\"pod\":\"shop-tikv-2\""));
  EXPECT_THAT(json.body, ::testing::Not(::testing::HasSubstr("demo-tidb-0")));
  HttpResult page = HttpGet(stack.exporter_port(), "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_THAT(page.body, ::testing::HasSubstr("shop-tikv-2"));
  // Expected waits are a count until opened; filtered to their class, their rows are there.
  EXPECT_THAT(page.body, ::testing::HasSubstr(">show the 7 pods</a>"));
  EXPECT_THAT(HttpGet(stack.exporter_port(), "/?class=dependency").body,
              ::testing::HasSubstr("demo-tidb-0"));
}

}  // namespace
}  // namespace podwait::testing
