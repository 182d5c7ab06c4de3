// tidb-operator v2 end to end: the real exporter against the simulator serving the v2 API
// (core.pingcap.com/v1alpha1) and pods of both generations, scraping /metrics and
// /api/v1/pods. The timeline is tests/scenarios/v2.json (a fresh v2 cluster: every pod created at
// once, TiKV/TiDB crash-looping until PD has a leader), stepped by hand (--manual). Its objects
// follow the made-up fixtures in tests/fixtures/v2/ (README there names the v2 source files).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;

bool Has(const std::string& text, const std::string& name,
         const std::map<std::string, std::string>& match) {
  return !FindSamples(text, name, match).empty();
}

std::map<std::string, std::string> Pod(const std::string& name) {
  return {{"namespace", "tidb-v2"}, {"tidb_cluster", "tidb-v2-basic"}, {"pod", name}};
}

std::map<std::string, std::string> Pod(const std::string& name, const std::string& cls) {
  auto m = Pod(name);
  m["class"] = cls;
  return m;
}

const char* kTikv[] = {"tikv-tikv-q7w4mz", "tikv-tikv-m3p8zc", "tikv-tikv-f6j2vd"};
constexpr const char* kTidb = "tidb-tidb-h2k9sd";

// Each v2 wait shape, in the order the timeline shows them:
//  - TiKV/TiDB main containers crash-looping while PD has no leader -> dependency;
//  - TiKV pods Ready while their TiKV instances are Ready=False -> waiting, stage starting;
//  - TiDB running, not Ready, while TiKV is not ready (PD not initialized) -> dependency;
//  - recovery once PD has a leader and the stores serve: nothing waits.
TEST(ExporterV2Scenarios, FreshV2ClusterWaitsOnPdThenRecovers) {
  SimAndExporter stack("tests/scenarios/v2.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds",
                           {{"tidb_cluster", "tidb-v2-basic"}, {"class", "dependency"}})
                       .size() == 4 &&
               SampleValue(t, "podwait_pd_leader", {{"tidb_cluster", "tidb-v2-basic"}}) == 0;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  for (const char* pod : kTikv) {
    EXPECT_TRUE(Has(text, "podwait_pod_waiting_seconds",
                    {{"pod", pod}, {"component", "tikv"}, {"class", "dependency"}}))
        << pod;
  }
  EXPECT_TRUE(Has(text, "podwait_pod_waiting_seconds",
                  {{"pod", kTidb}, {"component", "tidb"}, {"class", "dependency"}}));
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "tidb-v2-basic"}, {"dependency", "pd"}}),
            0);
  // The v2 resources are watched and held; the TidbCluster CRD is absent and holds nothing up.
  EXPECT_EQ(SampleValue(text, "podwait_objects", {{"resource", "tikvs"}}), 3);
  EXPECT_EQ(SampleValue(text, "podwait_objects", {{"resource", "clusters"}}), 1);
  EXPECT_EQ(HttpGet(stack.exporter_port(), "/readyz").status, 200);
  // A resource the API server does not serve has no watch_synced series (PodwaitWatchStale
  // stays quiet); the served ones are synced.
  EXPECT_TRUE(FindSamples(text, "podwait_watch_synced", {{"resource", "tidbclusters"}}).empty());
  EXPECT_EQ(SampleValue(text, "podwait_watch_synced", {{"resource", "pds"}}), 1);
  // The JSON view and the status page show the v2 cluster the same way.
  HttpResult pods = HttpGet(stack.exporter_port(), "/api/v1/pods?cluster=basic");
  EXPECT_THAT(pods.body, HasSubstr("\"tidbCluster\":\"tidb-v2-basic\""));
  EXPECT_THAT(pods.body, HasSubstr(kTidb));
  EXPECT_THAT(pods.body, HasSubstr("CrashLoopBackOff"));
  // The status page: its dependency waits collapsed to a count, their rows there when asked for.
  EXPECT_THAT(HttpGet(stack.exporter_port(), "/").body,
              HasSubstr("data-rows=\"?namespace=tidb-v2&amp;cluster=basic&amp;class=dependency\""));
  EXPECT_THAT(HttpGet(stack.exporter_port(), "/?cluster=basic&class=dependency").body,
              HasSubstr("tikv-tikv-q7w4mz"));

  // PD gets a leader; TiKV runs: its pods are Ready at once (no readiness probe), its instances
  // stay Ready=False (Preparing). The TiDB pod runs, not Ready, PD not initialized.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=tikv-running"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        // PD became ready moments ago (within --dependency.ready-grace): still `dependency`,
        // reason dependency_ready.
        return FindSamples(t, "podwait_pod_waiting_seconds",
                           {{"component", "tikv"},
                            {"stage", "starting"},
                            {"class", "dependency"},
                            {"reason", "dependency_ready"}})
                       .size() == 3 &&
               SampleValue(t, "podwait_pd_leader", {{"tidb_cluster", "tidb-v2-basic"}}) == 1 &&
               Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", kTidb}, {"stage", "starting"}, {"class", "dependency"}});
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  // The evidence names the instance that is not Ready.
  pods = HttpGet(stack.exporter_port(), "/api/v1/pods?cluster=basic");
  EXPECT_THAT(pods.body, HasSubstr("pod Ready; TiKV instance Ready=False InstanceNotHealthy"));
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "tidb-v2-basic"}, {"dependency", "pd"}}),
            1);
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "tidb-v2-basic"}, {"dependency", "tikv"}}),
            0);

  // The stores serve, TiDB becomes Ready: nothing of the cluster waits.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=tidb-ready"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds", {{"namespace", "tidb-v2"}}).empty() &&
               SampleValue(t, "podwait_dependency_ready",
                           {{"tidb_cluster", "tidb-v2-basic"}, {"dependency", "tikv"}}) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_EQ(SampleValue(text, "podwait_stage_duration_seconds_count",
                        {{"component", "tikv"}, {"stage", "starting"}, {"class", "dependency"}}),
            3);
}

// A fresh v2 cluster with every instance kind (tests/scenarios/v2-every-kind.json): each pod waits
// as its component's start-up does (model/v2.cpp Kinds()): whatever needs PD crash-loops on PD
// (dependency), TiProxy is Ready without PD, the DM worker crash-loops on its DM masters
// (dependency, dm_master_not_ready) while they form their quorum; then PD, the DM masters and the
// DM worker recover in turn.
TEST(ExporterV2Scenarios, FreshClusterWithEveryKind) {
  SimAndExporter stack("tests/scenarios/v2-every-kind.json");
  const std::map<std::string, std::string> cluster = {{"tidb_cluster", "tidb-v2-all-all"}};
  auto in_cluster = [&cluster](std::map<std::string, std::string> m) {
    m.insert(cluster.begin(), cluster.end());
    return m;
  };
  // Every component that waits for PD, one pod each but PD's three and TiKV's three.
  const std::vector<std::string> pd_dependent = {
      "tikv",       "tidb",      "tiflash",          "ticdc",  "tso",
      "scheduling", "scheduler", "resource-manager", "router", "tikv-worker"};
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds",
                           in_cluster({{"class", "dependency"}, {"reason", "no_pd_leader"}}))
                       .size() == 12 &&
               Has(t, "podwait_pod_waiting_seconds",
                   in_cluster({{"component", "dm-worker"}, {"reason", "dm_master_not_ready"}}));
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  for (const std::string& component : pd_dependent) {
    EXPECT_TRUE(Has(text, "podwait_pod_waiting_seconds",
                    in_cluster({{"component", component}, {"class", "dependency"}})))
        << component;
  }
  // The DM worker waits on its masters, which is expected; the masters form their quorum.
  EXPECT_TRUE(Has(text, "podwait_pod_waiting_seconds",
                  in_cluster({{"pod", "dmworker-dm-worker-t9c4fs"}, {"class", "dependency"}})));
  EXPECT_EQ(FindSamples(text, "podwait_pod_waiting_seconds",
                        in_cluster({{"component", "dm-master"}, {"class", "starting"}}))
                .size(),
            3u);
  EXPECT_EQ(
      SampleValue(text, "podwait_dependency_ready", in_cluster({{"dependency", "dm-master"}})), 0);
  // TiProxy starts without PD: never waiting.
  EXPECT_TRUE(
      FindSamples(text, "podwait_pod_waiting_seconds", in_cluster({{"component", "tiproxy"}}))
          .empty());
  // No crash loop pages.
  EXPECT_TRUE(FindSamples(text, "podwait_pod_waiting_seconds", in_cluster({{"class", "crashloop"}}))
                  .empty());
  // Every v2 resource is watched and held.
  for (const char* resource : {"tiproxies", "tikvworkers", "resourcemanagers", "routers",
                               "dmworkers", "tiproxygroups", "dmworkergroups"}) {
    EXPECT_EQ(SampleValue(text, "podwait_objects", {{"resource", resource}}), 1) << resource;
  }
  EXPECT_EQ(SampleValue(text, "podwait_objects", {{"resource", "dms"}}), 3);
  EXPECT_EQ(SampleValue(text, "podwait_watch_synced", {{"resource", "dmworkers"}}), 1);
  // The JSON view names the dm-master dependency of this cluster (and of no v1 cluster).
  HttpResult clusters = HttpGet(stack.exporter_port(), "/api/v1/pods?cluster=all");
  EXPECT_THAT(clusters.body, HasSubstr("\"dm-master\""));
  EXPECT_THAT(clusters.body, HasSubstr("dm-master not ready (dm_master_not_ready)"));

  // PD has a leader and the cluster initializes: everything that needed PD is Ready.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=pd-ready"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds", in_cluster({{"component", "tikv"}}))
                   .empty() &&
               FindSamples(t, "podwait_pod_waiting_seconds", in_cluster({{"component", "router"}}))
                   .empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  // The DM masters are Ready: the worker's back-off runs out within the grace (dependency_ready).
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=dm-masters-ready"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_dependency_ready",
                           in_cluster({{"dependency", "dm-master"}})) == 1 &&
               Has(t, "podwait_pod_waiting_seconds",
                   in_cluster({{"component", "dm-worker"}, {"reason", "dependency_ready"}}));
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=dm-worker-ready"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds", {{"namespace", "tidb-v2-all"}})
            .empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

// Without --pd.url-template the exporter probes PD where the v2 Cluster's status.pd says: here
// the simulator's PD path of the cluster. The template's default (http://basic-pd.tidb-v2:2379)
// would not resolve.
TEST(ExporterV2Scenarios, PdProbedAtTheClustersStatusPd) {
  SimAndExporter stack("tests/scenarios/v2.json", {}, /*start_exporter=*/false);
  const std::string url =
      "http://127.0.0.1:" + std::to_string(stack.sim_port()) + "/pd/tidb-v2/basic";
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"({"v2":[{"kind":"Cluster","namespace":"tidb-v2",)"
                                         R"("name":"basic","created":"-2m","since":"-2m",)"
                                         R"("pd":")" +
                                             url + R"("}]})"),
            200);
  stack.WithoutPdTemplate();
  stack.StartExporter();
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        // PD answers (HTTP errors while it has no leader, as the simulator's PD does), not a
        // name that does not resolve.
        return SampleValue(t, "podwait_pd_leader", {{"tidb_cluster", "tidb-v2-basic"}}) == 0 &&
               SampleValue(t, "podwait_probe_errors_total",
                           {{"endpoint", "leader"}, {"kind", "http_status"}}) > 0;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  // PD gets a leader (the scenario's pd-leader step would also rewrite the Cluster with its own
  // status.pd, which the exporter would follow).
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"({"pd":{"namespace":"tidb-v2","cluster":"basic",)"
                                         R"("state":"leader","healthy":true,"leader":0}})"),
            200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_pd_leader", {{"tidb_cluster", "tidb-v2-basic"}}) == 1 &&
               SampleValue(t, "podwait_pd_probe_success", {{"tidb_cluster", "tidb-v2-basic"}}) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

// Pods of both generations by default: a v2 pod without the legacy app.kubernetes.io labels is
// watched through the second selector and classified; a pod with both label sets is one pod;
// --selector.v2= turns the second watch off.
TEST(ExporterV2Scenarios, PodsWithoutLegacyLabelsAreWatched) {
  for (bool second : {true, false}) {
    SimAndExporter stack(
        "tests/scenarios/v2.json",
        second ? std::vector<std::string>{} : std::vector<std::string>{"--selector.v2="},
        /*start_exporter=*/false);
    ASSERT_EQ(stack.SimPost("/_sim/apply",
                            R"({"pods":[{"operator":"v2","legacyLabels":false,)"
                            R"("namespace":"tidb-v2","name":"tidb-tidb-h2k9sd","cluster":"basic",)"
                            R"("created":"-2m","stage":"waiting","reason":"CrashLoopBackOff",)"
                            R"("restarts":4}]})"),
              200);
    stack.StartExporter();
    std::string text;
    // The two pod reflectors sync independently: with the second one, wait for its pod too.
    ASSERT_TRUE(stack.ScrapeUntil(
        [second](const std::string& t) {
          return FindSamples(t, "podwait_pod_waiting_seconds", {{"component", "tikv"}}).size() ==
                     3 &&
                 (!second || Has(t, "podwait_pod_waiting_seconds", Pod(kTidb, "dependency")));
        },
        20, &text))
        << text << stack.exporter().ReadLog();
    EXPECT_EQ(
        SampleValue(
            text, "podwait_waiting_pods",
            {{"tidb_cluster", "tidb-v2-basic"}, {"component", "tikv"}, {"class", "dependency"}}),
        3)
        << "pods with both label sets are counted once";
    EXPECT_EQ(Has(text, "podwait_pod_waiting_seconds", Pod(kTidb, "dependency")), second) << text;
  }
}

// tidb-operator v2 holding a cluster on purpose (tests/scenarios/v2-planned.json, after the
// fixtures cluster-paused.json, cluster-suspending.json, cluster-suspended.json and
// pdgroup-mode-switching.json): a pause, its resume, a PD mode switch, a suspend and its resume.
// Every view says so: the pod's class and reason, podwait_cluster_hold, the JSON view's holds, the
// status page.
TEST(ExporterV2Scenarios, PauseModeSwitchSuspendAndResume) {
  SimAndExporter stack("tests/scenarios/v2-planned.json");
  const std::map<std::string, std::string> basic = {{"tidb_cluster", "tidb-v2-basic"}};
  auto hold = [&](const std::string& t, const std::string& h) {
    return Has(t, "podwait_cluster_hold",
               {{"namespace", "tidb-v2"}, {"tidb_cluster", "tidb-v2-basic"}, {"hold", h}});
  };
  auto nothing_waits = [](const std::string& t) {
    return FindSamples(t, "podwait_pod_waiting_seconds", {{"namespace", "tidb-v2"}}).empty();
  };
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_pd_leader", basic) == 1 && nothing_waits(t);
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_TRUE(FindSamples(text, "podwait_cluster_hold", {}).empty());

  // Paused: a TiKV crash-loops and nobody heals it. Planned, and the series names the instance.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=pause"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "tikv-tikv-q7w4mz"},
                    {"v2_instance", "tikv-q7w4mz"},
                    {"class", "planned"},
                    {"reason", "cluster_paused"}}) &&
               hold(t, "paused");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  HttpResult pods = HttpGet(stack.exporter_port(), "/api/v1/pods?cluster=basic");
  EXPECT_THAT(pods.body, HasSubstr("\"holds\":[\"paused\"]"));
  EXPECT_THAT(pods.body, HasSubstr("else crashloop/crash_loop"));
  EXPECT_THAT(HttpGet(stack.exporter_port(), "/").body, HasSubstr("held: paused"));

  // Resumed: the crash loop is the pod's own again.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=resume"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "tikv-tikv-q7w4mz"}, {"class", "crashloop"}}) &&
               !hold(t, "paused");
      },
      20, &text))
      << text << stack.exporter().ReadLog();

  // A PD mode switch restarts the PD pod: planned, pd_mode_switch; the TiKV healed meanwhile.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=mode-switch"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "pd-pd-x8d2kq"}, {"class", "planned"}, {"reason", "pd_mode_switch"}}) &&
               hold(t, "pd_mode_switch") &&
               FindSamples(t, "podwait_pod_waiting_seconds", {{"component", "tikv"}}).empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=mode-switched"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) { return nothing_waits(t) && !hold(t, "pd_mode_switch"); }, 20,
      &text))
      << text << stack.exporter().ReadLog();

  // Suspending: the TiDB pod stops. Suspended: every pod is gone, the cluster is still shown.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=suspend"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "tidb-tidb-h2k9sd"},
                    {"class", "planned"},
                    {"reason", "cluster_suspending"}}) &&
               hold(t, "suspending");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=suspended"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return nothing_waits(t) && hold(t, "suspended") && !hold(t, "suspending");
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  pods = HttpGet(stack.exporter_port(), "/api/v1/pods?cluster=basic");
  EXPECT_THAT(pods.body, HasSubstr("\"holds\":[\"suspended\"]"));

  // Resumed: the pods come back and wait on PD like a fresh cluster's; then all is Ready.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=resume-compute"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"pod", "tikv-tikv-q7w4mz"}, {"class", "dependency"}}) &&
               FindSamples(t, "podwait_cluster_hold", {}).empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=resumed"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(nothing_waits, 20, &text)) << text << stack.exporter().ReadLog();
}

// A kubelet eviction (tests/scenarios/v2-evicted.json, after
// tests/fixtures/v2/pods/tikv-evicted.json): the evicted v2 TiKV pod waits (stage starting,
// not_ready, evicted; its series name the instance; the evidence says to delete the pod), because
// v2 never re-creates a Failed pod; the evicted v1 TiKV pod does not (its StatefulSet re-creates
// it). Deleted and re-created, the v2 pod is Ready again and nothing waits.
TEST(ExporterV2Scenarios, EvictedV2PodWaitsEvictedV1PodDoesNot) {
  SimAndExporter stack("tests/scenarios/v2-evicted.json");
  auto nothing_waits = [](const std::string& t) {
    return FindSamples(t, "podwait_pod_waiting_seconds", {}).empty();
  };
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_pd_leader", {{"tidb_cluster", "tidb-v2-basic"}}) == 1 &&
               nothing_waits(t);
      },
      20, &text))
      << text << stack.exporter().ReadLog();

  ASSERT_EQ(stack.SimPost("/_sim/advance?to=evict"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   {{"namespace", "tidb-v2"},
                    {"pod", "tikv-tikv-m3p8zc"},
                    {"v2_instance", "tikv-m3p8zc"},
                    {"stage", "starting"},
                    {"class", "not_ready"},
                    {"reason", "evicted"}});
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  // The v1 pod is Failed too, and seen (its store is Down in PD), but not waiting.
  EXPECT_TRUE(FindSamples(text, "podwait_pod_waiting_seconds", {{"namespace", "tidb"}}).empty())
      << text;
  EXPECT_EQ(FindSamples(text, "podwait_pod_waiting_seconds", {}).size(), 1u) << text;
  HttpResult pods = HttpGet(stack.exporter_port(), "/api/v1/pods?namespace=tidb-v2");
  EXPECT_THAT(
      pods.body,
      HasSubstr("pod Failed (Evicted), never re-created by tidb-operator v2: delete the pod "
                "(kubectl -n tidb-v2 delete pod tikv-tikv-m3p8zc)"));
  EXPECT_THAT(pods.body, HasSubstr("TiKV instance Ready=False PodNotReady"));
  EXPECT_THAT(pods.body, HasSubstr("DisruptionTarget TerminationByKubelet"));
  EXPECT_THAT(pods.body, HasSubstr("kubelet: The node was low on resource: memory."));
  EXPECT_THAT(HttpGet(stack.exporter_port(), "/api/v1/pods?namespace=tidb").body,
              ::testing::Not(HasSubstr("demo-tikv-1")));

  // Someone deleted it; v2 created it again and it serves: nothing waits.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=pod-deleted"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(nothing_waits, 20, &text)) << text << stack.exporter().ReadLog();
}

// PD microservices mode (tests/scenarios/v2-pd-ms.json, after tests/fixtures/v2/objects/
// pdgroup-ms.json): TiDB's own crash loop with the TSO instances Ready is crashloop; every TSO
// instance down with PD healthy makes TiDB an expected dependency wait on tso (tso_not_ready),
// the dependency series says tso is not ready, and the TSO pods are the crash loop (paged); once
// TSO is back nothing waits.
TEST(ExporterV2Scenarios, PdMicroservicesTsoIsTidbsDependency) {
  SimAndExporter stack("tests/scenarios/v2-pd-ms.json");
  const std::map<std::string, std::string> ms = {{"namespace", "tidb-ms"},
                                                 {"tidb_cluster", "tidb-ms-ms"}};
  auto in_ms = [&ms](std::map<std::string, std::string> m) {
    m.insert(ms.begin(), ms.end());
    return m;
  };
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_pd_leader", ms) == 1 &&
               SampleValue(t, "podwait_dependency_ready", in_ms({{"dependency", "tso"}})) == 1 &&
               FindSamples(t, "podwait_pod_waiting_seconds", ms).empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();

  // TiDB crash-loops with PD, TSO and TiKV ready long before: its own crash loop.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=tidb-crash"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   in_ms({{"pod", "tidb-tidb-h2k9sd"}, {"class", "crashloop"}}));
      },
      20, &text))
      << text << stack.exporter().ReadLog();

  // Every TSO instance down, PD healthy: TiDB waits on tso; the TSO pods crash-loop.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=tso-down"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   in_ms({{"pod", "tidb-tidb-h2k9sd"},
                          {"class", "dependency"},
                          {"reason", "tso_not_ready"}})) &&
               FindSamples(t, "podwait_pod_waiting_seconds",
                           in_ms({{"component", "tso"}, {"class", "crashloop"}}))
                       .size() == 2;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready", in_ms({{"dependency", "tso"}})), 0);
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready", in_ms({{"dependency", "pd"}})), 1);
  HttpResult pods = HttpGet(stack.exporter_port(), "/api/v1/pods?namespace=tidb-ms");
  EXPECT_THAT(pods.body, HasSubstr("tso not ready (tso_not_ready)"));
  EXPECT_THAT(pods.body, HasSubstr("\"tso\":{"));

  ASSERT_EQ(stack.SimPost("/_sim/advance?to=tso-back"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds", ms).empty() &&
               SampleValue(t, "podwait_dependency_ready", in_ms({{"dependency", "tso"}})) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

// A cluster in normal PD mode has no tso series: TSO is PD's then.
TEST(ExporterV2Scenarios, NormalPdModeHasNoTsoDependency) {
  SimAndExporter stack("tests/scenarios/v2-planned.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_pd_leader", {{"tidb_cluster", "tidb-v2-basic"}}) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_TRUE(FindSamples(text, "podwait_dependency_ready", {{"dependency", "tso"}}).empty())
      << text;
}

// A switch to PD microservices mode (tests/scenarios/v2-pd-mode-switch.json): the switch waits
// for the TSO pods, it does not hold them. A TSO pod being created is planned (pd_mode_switch); a
// TSO pod short of cpu is capacity, the switch in its evidence; tso is no dependency during the
// switch, and becomes one once the switch completes.
TEST(ExporterV2Scenarios, ModeSwitchWaitsForTsoPodsDoesNotHoldThem) {
  SimAndExporter stack("tests/scenarios/v2-pd-mode-switch.json");
  const std::map<std::string, std::string> sw = {{"namespace", "tidb-sw"},
                                                 {"tidb_cluster", "tidb-sw-sw"}};
  auto in_sw = [&sw](std::map<std::string, std::string> m) {
    m.insert(sw.begin(), sw.end());
    return m;
  };
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return SampleValue(t, "podwait_pd_leader", sw) == 1 &&
               FindSamples(t, "podwait_pod_waiting_seconds", sw).empty();
      },
      20, &text))
      << text << stack.exporter().ReadLog();

  ASSERT_EQ(stack.SimPost("/_sim/advance?to=switch"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return Has(t, "podwait_pod_waiting_seconds",
                   in_sw({{"pod", "tso-tso-t3v8rw"},
                          {"stage", "starting"},
                          {"class", "planned"},
                          {"reason", "pd_mode_switch"}})) &&
               Has(t, "podwait_pod_waiting_seconds",
                   in_sw({{"pod", "tso-tso-k9m2xp"},
                          {"stage", "unscheduled"},
                          {"class", "capacity"},
                          {"reason", "insufficient_cpu"}})) &&
               Has(t, "podwait_cluster_hold", in_sw({{"hold", "pd_mode_switch"}}));
      },
      20, &text))
      << text << stack.exporter().ReadLog();
  EXPECT_TRUE(FindSamples(text, "podwait_dependency_ready", in_sw({{"dependency", "tso"}})).empty())
      << text;
  HttpResult pods = HttpGet(stack.exporter_port(), "/api/v1/pods?namespace=tidb-sw");
  EXPECT_THAT(pods.body, HasSubstr("PDGroup ModeSwitching=True WaitingForTSOGroupReady waits for "
                                   "this pod, does not hold it; PodScheduled=False Unschedulable: "
                                   "0/3 nodes are available: 3 Insufficient cpu."));
  EXPECT_THAT(pods.body,
              HasSubstr("PDGroup ModeSwitching=True WaitingForTSOGroupReady; else starting/"));

  // The switch completes: nothing waits, and the cluster's tso is ready.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=switched"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [&](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds", sw).empty() &&
               SampleValue(t, "podwait_dependency_ready", in_sw({{"dependency", "tso"}})) == 1;
      },
      20, &text))
      << text << stack.exporter().ReadLog();
}

}  // namespace
}  // namespace podwait::testing
