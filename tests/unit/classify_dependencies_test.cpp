// Dependency readiness rules (docs/DESIGN.md §4): the pure evaluation table, ready_since across
// flaps and unknown spells, the readiness sources.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/classify/dependencies.h"
#include "tests/support/dependency_inputs.h"

namespace podwait {
namespace {

using fixtures::HealthyPd;
using fixtures::HealthyTc;
using fixtures::Unreachable;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Pair;

struct Row {
  const char* name;
  PdFacts pd;
  bool probed = true;
  int ready_pd_pods = 0;
  Readiness pd_readiness;
  std::string pd_reason;
  Readiness tikv_readiness;
  std::string tikv_reason;
};

class EvaluateTest : public ::testing::TestWithParam<Row> {};

TEST_P(EvaluateTest, PdApi) {
  const Row& row = GetParam();
  DependencyInputs in;
  in.pd = row.probed ? &row.pd : nullptr;
  in.ready_pd_pods = row.ready_pd_pods;
  in.readiness_source = ReadinessSource::kPdApi;
  DependencyEvaluation e = EvaluateDependencies(in);
  EXPECT_EQ(e.deps.pd.readiness, row.pd_readiness);
  EXPECT_EQ(DependencyReasonName(e.deps.pd.reason), row.pd_reason);
  EXPECT_EQ(e.deps.tikv.readiness, row.tikv_readiness);
  EXPECT_EQ(DependencyReasonName(e.deps.tikv.reason), row.tikv_reason);
}

std::vector<Row> Rows() {
  std::vector<Row> rows;
  using R = Readiness;
  rows.push_back({"healthy", HealthyPd(), true, 3, R::kReady, "", R::kReady, ""});
  {
    PdFacts f = HealthyPd();
    f.has_leader = false;
    rows.push_back(
        {"no_leader", f, true, 3, R::kNotReady, "no_pd_leader", R::kNotReady, "pd_not_ready"});
  }
  {
    PdFacts f = HealthyPd();
    f.members_healthy = 1;
    f.members_unhealthy = 2;
    rows.push_back({"minority_healthy", f, true, 3, R::kNotReady, "pd_unhealthy_majority",
                    R::kNotReady, "pd_not_ready"});
  }
  {
    PdFacts f = HealthyPd();
    f.members_healthy = 1;
    f.members_unhealthy = 1;  // 1 of 2 is not a majority
    rows.push_back({"half_healthy", f, true, 3, R::kNotReady, "pd_unhealthy_majority", R::kNotReady,
                    "pd_not_ready"});
  }
  {
    PdFacts f = HealthyPd();
    f.not_bootstrapped = true;
    f.is_initialized = false;
    f.tikv_stores.clear();
    rows.push_back(
        {"not_bootstrapped", f, true, 3, R::kReady, "", R::kNotReady, "tikv_not_bootstrapped"});
  }
  {
    PdFacts f = HealthyPd();
    f.is_initialized = false;
    rows.push_back(
        {"not_initialized", f, true, 3, R::kReady, "", R::kNotReady, "cluster_not_initialized"});
  }
  {
    PdFacts f = HealthyPd();
    f.tikv_stores = {{"Down", 2}, {"Offline", 1}};
    f.tiflash_stores = 2;  // TiFlash does not count
    rows.push_back({"no_store_up", f, true, 3, R::kReady, "", R::kNotReady, "no_tikv_store_up"});
  }
  {
    PdFacts f = HealthyPd();
    f.is_initialized.reset();  // PD < 3.0: the stores decide
    rows.push_back({"old_pd_store_up", f, true, 3, R::kReady, "", R::kReady, ""});
    f.tikv_stores.clear();
    rows.push_back(
        {"old_pd_no_store", f, true, 3, R::kReady, "", R::kNotReady, "no_tikv_store_up"});
  }
  {
    PdFacts f = HealthyPd();
    f.stores_known = false;
    f.tikv_stores.clear();
    rows.push_back({"stores_failed", f, true, 3, R::kReady, "", R::kUnknown, "dependency_unknown"});
  }
  rows.push_back({"unreachable_ready_pods", Unreachable(), true, 2, R::kUnknown,
                  "dependency_unknown", R::kUnknown, "dependency_unknown"});
  rows.push_back({"unreachable_no_ready_pods", Unreachable(), true, 0, R::kNotReady, "pd_not_ready",
                  R::kNotReady, "pd_not_ready"});
  rows.push_back({"never_probed_ready_pods", PdFacts{}, false, 1, R::kUnknown, "dependency_unknown",
                  R::kUnknown, "dependency_unknown"});
  return rows;
}

INSTANTIATE_TEST_SUITE_P(Table, EvaluateTest, ::testing::ValuesIn(Rows()),
                         [](const auto& p) { return std::string(p.param.name); });

// A tidb-operator v2 cluster whose PD API cannot be reached: its PD and TiKV instances (and the
// PD pods) decide, with the three values; Ready PD instances but no answer is unknown, never
// not ready. The facts are those V2Store computes from tests/fixtures/v2/objects/ (pd-*.json,
// tikv-*.json).
struct V2Row {
  const char* name;
  int pd_instances, pd_ready, tikv_instances, tikv_serving_ready, ready_pd_pods;
  bool reachable;
  Readiness pd;
  std::string pd_reason;
  Readiness tikv;
  std::string tikv_reason;
  DependencySource source;
};

class EvaluateV2Test : public ::testing::TestWithParam<V2Row> {};

TEST_P(EvaluateV2Test, InstancesWhenThePdApiCannotBeReached) {
  const V2Row& row = GetParam();
  for (ReadinessSource source :
       {ReadinessSource::kBoth, ReadinessSource::kPdApi, ReadinessSource::kTidbCluster}) {
    const std::string_view readiness_source = ReadinessSourceName(source);
    v2::ClusterFacts f;
    f.present = true;
    f.pd_instances = row.pd_instances;
    f.pd_instances_ready = row.pd_ready;
    f.tikv_instances = row.tikv_instances;
    f.tikv_serving_ready = row.tikv_serving_ready;
    PdFacts pd = row.reachable ? HealthyPd() : Unreachable();
    DependencyInputs in;
    in.pd = &pd;
    in.ready_pd_pods = row.ready_pd_pods;
    in.readiness_source = source;
    in.v2 = &f;
    DependencyEvaluation e = EvaluateDependencies(in);
    const bool api = row.reachable && source != ReadinessSource::kTidbCluster;
    if (api) {
      EXPECT_EQ(e.source, DependencySource::kPdApi) << readiness_source;
      continue;
    }
    EXPECT_EQ(e.source, row.source) << readiness_source;
    EXPECT_EQ(e.deps.pd.readiness, row.pd) << readiness_source;
    EXPECT_EQ(DependencyReasonName(e.deps.pd.reason), row.pd_reason) << readiness_source;
    EXPECT_EQ(e.deps.tikv.readiness, row.tikv) << readiness_source;
    EXPECT_EQ(DependencyReasonName(e.deps.tikv.reason), row.tikv_reason) << readiness_source;
  }
}

std::vector<V2Row> V2Rows() {
  using R = Readiness;
  using S = DependencySource;
  return {
      // pd-not-ready.json x3 (no PD instance Ready), no Ready PD pod: PD is down.
      {"NoPdInstanceReadyNoPdPod", 3, 0, 3, 0, 0, false, R::kNotReady, "pd_not_ready", R::kNotReady,
       "pd_not_ready", S::kV2Instances},
      // Ready PD pods alone (instances not yet updated) make it unknown, as for v1.
      {"NoPdInstanceReadyButPdPods", 3, 0, 3, 0, 2, false, R::kUnknown, "dependency_unknown",
       R::kNotReady, "no_tikv_store_up", S::kV2Instances},
      // pd-ready-*.json and tikv-1.json only (Preparing): PD unknown, TiKV not serving.
      {"PdInstancesReadyNoTikvServing", 3, 3, 1, 0, 3, false, R::kUnknown, "dependency_unknown",
       R::kNotReady, "no_tikv_store_up", S::kV2Instances},
      // pd-ready-*.json, tikv-0/1/2.json (two Serving): unknown both, never not ready.
      {"PdAndTikvInstancesReady", 3, 3, 3, 2, 3, false, R::kUnknown, "dependency_unknown",
       R::kUnknown, "dependency_unknown", S::kV2Instances},
      // No instances yet (a fresh Cluster object only), no pods.
      {"ClusterObjectOnly", 0, 0, 0, 0, 0, false, R::kNotReady, "pd_not_ready", R::kNotReady,
       "pd_not_ready", S::kV2Instances},
      // The PD API answers: it wins (checked above for both and pd-api).
      {"ApiAnswers", 3, 0, 3, 0, 0, true, R::kNotReady, "pd_not_ready", R::kNotReady,
       "pd_not_ready", S::kV2Instances},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, EvaluateV2Test, ::testing::ValuesIn(V2Rows()),
                         [](const auto& p) { return std::string(p.param.name); });

// The DM masters of a v2 cluster (its DM instances, dm.json / dm-ready.json): ready with a Ready
// majority, whatever PD does and whichever readiness source; no DM or DMWorker instances: the
// dependency does not apply.
TEST(EvaluateDmMaster, MajorityOfDmInstancesReadyWhateverPdSays) {
  struct DmRow {
    int dm, dm_ready, workers;
    Readiness want;
    const char* reason;
  };
  for (const DmRow& row : {
           DmRow{3, 2, 1, Readiness::kReady, ""}, DmRow{3, 3, 0, Readiness::kReady, ""},
           DmRow{3, 1, 1, Readiness::kNotReady, "dm_master_not_ready"},
           DmRow{2, 1, 1, Readiness::kNotReady, "dm_master_not_ready"},
           DmRow{0, 0, 2, Readiness::kNotReady, "dm_master_not_ready"},  // no DMGroup yet
       }) {
    for (bool pd_up : {true, false}) {
      v2::ClusterFacts f;
      f.present = true;
      f.dm_instances = row.dm;
      f.dm_instances_ready = row.dm_ready;
      f.dm_worker_instances = row.workers;
      PdFacts pd = pd_up ? HealthyPd() : Unreachable();
      DependencyInputs in;
      in.pd = &pd;
      in.v2 = &f;
      DependencyEvaluation e = EvaluateDependencies(in);
      SCOPED_TRACE(std::to_string(row.dm_ready) + "/" + std::to_string(row.dm) + " pd " +
                   (pd_up ? "up" : "unreachable"));
      EXPECT_TRUE(e.deps.Applies(Dependency::kDmMaster));
      EXPECT_EQ(e.deps.dm_master.readiness, row.want);
      EXPECT_EQ(DependencyReasonName(e.deps.dm_master.reason), row.reason);
    }
  }
}

TEST(EvaluateDmMaster, DoesNotApplyWithoutDmInstances) {
  PdFacts pd = HealthyPd();
  DependencyInputs in;
  in.pd = &pd;
  DependencyEvaluation v1 = EvaluateDependencies(in);
  EXPECT_FALSE(v1.deps.Applies(Dependency::kDmMaster));
  EXPECT_TRUE(v1.deps.Applies(Dependency::kPd));
  v2::ClusterFacts f;
  f.present = true;
  f.pd_instances = 3;
  in.v2 = &f;
  DependencyEvaluation v2 = EvaluateDependencies(in);
  EXPECT_FALSE(v2.deps.Applies(Dependency::kDmMaster));
  EXPECT_EQ(v2.deps.dm_master, DependencyStatus{});
}

// PD microservices mode (docs/DESIGN.md §4): tso is ready while a TSO instance is Ready, whatever
// PD says (PD no longer allocates timestamps, so a healthy PD is no TSO); it does not apply to a
// cluster in normal mode, nor while a mode switch is under way (pd_ms_mode false then).
TEST(EvaluateTso, ReadyWhileATsoInstanceIsReadyInMicroservicesMode) {
  struct TsoRow {
    bool ms;
    int tso, tso_ready;
    bool applies;
    Readiness want;
    const char* reason;
  };
  for (const TsoRow& row : {
           TsoRow{true, 3, 1, true, Readiness::kReady, ""},
           TsoRow{true, 2, 2, true, Readiness::kReady, ""},
           TsoRow{true, 2, 0, true, Readiness::kNotReady, "tso_not_ready"},
           TsoRow{true, 0, 0, true, Readiness::kNotReady, "tso_not_ready"},  // no TSOGroup yet
           TsoRow{false, 2, 0, false, Readiness::kUnknown, ""},
           TsoRow{false, 0, 0, false, Readiness::kUnknown, ""},
       }) {
    for (bool pd_up : {true, false}) {
      v2::ClusterFacts f;
      f.present = true;
      f.pd_ms_mode = row.ms;
      f.tso_instances = row.tso;
      f.tso_instances_ready = row.tso_ready;
      PdFacts pd = pd_up ? HealthyPd() : Unreachable();
      DependencyInputs in;
      in.pd = &pd;
      in.v2 = &f;
      DependencyEvaluation e = EvaluateDependencies(in);
      SCOPED_TRACE(std::string(row.ms ? "ms " : "normal ") + std::to_string(row.tso_ready) + "/" +
                   std::to_string(row.tso) + " pd " + (pd_up ? "up" : "unreachable"));
      EXPECT_EQ(e.deps.Applies(Dependency::kTso), row.applies);
      EXPECT_EQ(e.deps.tso.readiness, row.want);
      EXPECT_EQ(DependencyReasonName(e.deps.tso.reason), row.reason);
      if (pd_up) {
        EXPECT_EQ(e.deps.pd.readiness, Readiness::kReady);
      }
    }
  }
  // A v1 cluster (no v2 facts) has no tso.
  PdFacts pd = HealthyPd();
  DependencyInputs v1;
  v1.pd = &pd;
  EXPECT_FALSE(EvaluateDependencies(v1).deps.Applies(Dependency::kTso));
  EXPECT_EQ(PodReasonFor(Dependency::kTso, DependencyReason::kTsoNotReady), "tso_not_ready");
}

TEST(EvaluateSourceTest, BothUsesTidbClusterWhenApiUnreachable) {
  PdFacts down = Unreachable();
  TidbClusterStatus tc = HealthyTc();
  DependencyInputs in{&down, &tc, 3, ReadinessSource::kBoth};
  DependencyEvaluation e = EvaluateDependencies(in);
  EXPECT_EQ(e.source, DependencySource::kTidbCluster);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kReady);
  EXPECT_EQ(e.deps.tikv.readiness, Readiness::kReady);

  // The API wins when it answers.
  PdFacts up = HealthyPd();
  up.has_leader = false;
  in.pd = &up;
  e = EvaluateDependencies(in);
  EXPECT_EQ(e.source, DependencySource::kPdApi);
  EXPECT_EQ(DependencyReasonName(e.deps.pd.reason), "no_pd_leader");

  // pd-api ignores the TidbCluster: pods decide.
  in.pd = &down;
  in.readiness_source = ReadinessSource::kPdApi;
  e = EvaluateDependencies(in);
  EXPECT_EQ(e.source, DependencySource::kPods);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kUnknown);

  // tidbcluster ignores the API even when it answers.
  in.pd = &up;
  in.readiness_source = ReadinessSource::kTidbCluster;
  e = EvaluateDependencies(in);
  EXPECT_EQ(e.source, DependencySource::kTidbCluster);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kReady);
}

// The API server refused PD's service proxy (the user's RBAC): Ready PD pods and no answer say
// "not reachable from here", not a problem of the cluster; no Ready PD pod still says not ready.
TEST(EvaluateSourceTest, PdRefusedFromHereIsUnknownForThatReason) {
  PdFacts refused = Unreachable();
  refused.not_reachable_from_here = "the API server refused the PD service proxy (HTTP 403)";
  DependencyInputs in{&refused, nullptr, 3};
  DependencyEvaluation e = EvaluateDependencies(in);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(DependencyReasonName(e.deps.pd.reason), "pd_not_reachable_from_here");
  EXPECT_EQ(DependencyReasonName(e.deps.tikv.reason), "pd_not_reachable_from_here");
  in.ready_pd_pods = 0;
  e = EvaluateDependencies(in);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(e.deps.pd.reason), "pd_not_ready");
}

TEST(EvaluateSourceTest, TidbClusterReasons) {
  TidbClusterStatus tc = HealthyTc();
  DependencyInputs in{nullptr, &tc, 0, ReadinessSource::kTidbCluster};
  tc.pd_leader.clear();
  EXPECT_EQ(DependencyReasonName(EvaluateDependencies(in).deps.pd.reason), "no_pd_leader");
  tc = HealthyTc();
  tc.pd_members = {{"a", true}, {"b", false}};
  EXPECT_EQ(DependencyReasonName(EvaluateDependencies(in).deps.pd.reason), "pd_unhealthy_majority");
  tc = HealthyTc();
  tc.pd_members.clear();
  EXPECT_EQ(DependencyReasonName(EvaluateDependencies(in).deps.pd.reason), "pd_not_ready");
  tc = HealthyTc();
  tc.tikv_stores.clear();
  tc.tikv_bootstrapped = false;
  EXPECT_EQ(DependencyReasonName(EvaluateDependencies(in).deps.tikv.reason),
            "tikv_not_bootstrapped");
  tc = HealthyTc();
  tc.tikv_stores[0].state = "Down";
  EXPECT_EQ(DependencyReasonName(EvaluateDependencies(in).deps.tikv.reason), "no_tikv_store_up");
}

TEST(TransitionTest, ReadySinceAcrossFlapsAndUnknown) {
  TransitionMemory last;
  DependencyStatus s;
  auto step = [&](Readiness r, Timestamp now) {
    DependencyStatus next;
    next.readiness = r;
    s = ApplyTransition(s, next, &last, now);
  };
  step(Readiness::kNotReady, 100);
  EXPECT_EQ(s.ready_since, 0);
  step(Readiness::kReady, 200);
  EXPECT_EQ(s.ready_since, 200);
  step(Readiness::kReady, 300);
  EXPECT_EQ(s.ready_since, 200);  // still the same ready period
  step(Readiness::kUnknown, 400);
  EXPECT_EQ(s.ready_since, 200);
  step(Readiness::kReady, 500);
  EXPECT_EQ(s.ready_since, 200);  // unknown spell does not restart it
  step(Readiness::kNotReady, 600);
  EXPECT_EQ(s.ready_since, 200);  // "last became ready" stays visible
  step(Readiness::kUnknown, 650);
  step(Readiness::kReady, 700);
  EXPECT_EQ(s.ready_since, 700);  // not ready -> (unknown) -> ready: a new period
}

// The cluster's own date (cluster_since) on a first sight; a first sight without one is dated
// from the cluster's once it comes, never later than the first sight; a not-ready first verdict
// before the inputs are read is no sighting.
TEST(TransitionTest, FirstSightDatedByTheCluster) {
  auto ready = [] {
    DependencyStatus s;
    s.readiness = Readiness::kReady;
    return s;
  };
  TransitionMemory m;
  DependencyStatus s = ApplyTransition({}, ready(), &m, 1000, 100);
  EXPECT_EQ(s.ready_since, 100);
  s = ApplyTransition(s, ready(), &m, 2000, 50);
  EXPECT_EQ(s.ready_since, 100) << "dated by the cluster once: it stays";

  m = {};
  s = ApplyTransition({}, ready(), &m, 1000, 0);
  EXPECT_EQ(s.ready_since, 1000) << "no date yet: the first sight";
  s = ApplyTransition(s, ready(), &m, 1500, 5000);
  EXPECT_EQ(s.ready_since, 1000) << "a date after the first sight is not taken";
  s = ApplyTransition(s, ready(), &m, 2000, 100);
  EXPECT_EQ(s.ready_since, 100) << "the cluster's date, read after the first sight";

  m = {};
  DependencyStatus not_ready;
  not_ready.readiness = Readiness::kNotReady;
  s = ApplyTransition({}, not_ready, &m, 1000, 0, /*inputs_synced=*/false);
  s = ApplyTransition(s, ready(), &m, 1100, 100, false);
  EXPECT_EQ(s.ready_since, 100) << "a first not-ready before the inputs are read is no sighting";
  s = ApplyTransition(s, not_ready, &m, 1200, 0, false);
  s = ApplyTransition(s, ready(), &m, 1300, 100, false);
  EXPECT_EQ(s.ready_since, 1300) << "ready, not ready, ready: watched, whatever the inputs";

  m = {};
  s = ApplyTransition({}, not_ready, &m, 1000, 0, /*inputs_synced=*/true);
  s = ApplyTransition(s, ready(), &m, 1100, 100, true);
  EXPECT_EQ(s.ready_since, 1100) << "after the inputs are read, not ready is a sighting";
}

}  // namespace
}  // namespace podwait
