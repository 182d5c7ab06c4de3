// Dependency readiness (docs/DESIGN.md §4): the pure evaluation table, ready_since across flaps and
// unknown spells, the readiness sources, and the store's cluster membership.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/state/dependency_store.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Pair;

PdFacts HealthyPd() {
  PdFacts f;
  f.reachable = true;
  f.success = true;
  f.health_known = true;
  f.members_healthy = 3;
  f.leader_known = true;
  f.has_leader = true;
  f.cluster_status_known = true;
  f.is_initialized = true;
  f.stores_known = true;
  f.tikv_stores = {{"Up", 3}};
  return f;
}

PdFacts Unreachable() {
  PdFacts f;
  f.error = "health: Couldn't connect to server";
  return f;
}

TidbClusterStatus HealthyTc() {
  TidbClusterStatus tc;
  tc.key = {"ns", "c"};
  tc.pd_members = {{"c-pd-0", true}, {"c-pd-1", true}, {"c-pd-2", false}};
  tc.pd_leader = "c-pd-0";
  tc.tikv_stores = {{"1", "c-tikv-0", "Up"}};
  tc.tikv_bootstrapped = true;
  return tc;
}

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
  in.readiness_source = "pd-api";
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
  for (const char* readiness_source : {"both", "pd-api", "tidbcluster"}) {
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
    in.readiness_source = readiness_source;
    in.v2 = &f;
    DependencyEvaluation e = EvaluateDependencies(in);
    const bool api = row.reachable && std::string_view(readiness_source) != "tidbcluster";
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

TEST(EvaluateSourceTest, BothUsesTidbClusterWhenApiUnreachable) {
  PdFacts down = Unreachable();
  TidbClusterStatus tc = HealthyTc();
  DependencyInputs in{&down, &tc, 3, "both"};
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
  in.readiness_source = "pd-api";
  e = EvaluateDependencies(in);
  EXPECT_EQ(e.source, DependencySource::kPods);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kUnknown);

  // tidbcluster ignores the API even when it answers.
  in.pd = &up;
  in.readiness_source = "tidbcluster";
  e = EvaluateDependencies(in);
  EXPECT_EQ(e.source, DependencySource::kTidbCluster);
  EXPECT_EQ(e.deps.pd.readiness, Readiness::kReady);
}

TEST(EvaluateSourceTest, TidbClusterReasons) {
  TidbClusterStatus tc = HealthyTc();
  DependencyInputs in{nullptr, &tc, 0, "tidbcluster"};
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
  Readiness last = Readiness::kUnknown;
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

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() : store_(config_, clock_) {}
  void Sync(std::map<ClusterKey, ClusterInfo> m) { store_.SyncClusters(m); }
  Config config_;
  FakeClock clock_{1'000'000};
  DependencyStore store_;
  const ClusterKey a_{"ns", "a"};
  const ClusterKey b_{"ns", "b"};
};

TEST_F(StoreTest, LifecycleOfOneCluster) {
  ClusterInfo pods_not_ready;
  pods_not_ready.from_pods = true;
  Sync({{a_, pods_not_ready}});
  auto d = store_.Get(a_);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pd.readiness, Readiness::kNotReady);  // no Ready PD pod, never probed

  ClusterInfo pods_ready = pods_not_ready;
  pods_ready.ready_pd_pods = 3;
  Sync({{a_, pods_ready}});
  EXPECT_EQ(store_.Get(a_)->pd.readiness, Readiness::kUnknown);

  clock_.Advance(kSecond);
  PdFacts boot = HealthyPd();
  boot.not_bootstrapped = true;
  boot.is_initialized = false;
  boot.tikv_stores.clear();
  store_.OnPdProbe(a_, boot);
  d = store_.Get(a_);
  EXPECT_EQ(d->pd.readiness, Readiness::kReady);
  EXPECT_EQ(d->pd.ready_since, clock_.Now());
  EXPECT_EQ(d->tikv.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(d->tikv.reason), "tikv_not_bootstrapped");
  const Timestamp pd_since = clock_.Now();

  clock_.Advance(kMinute);
  store_.OnPdProbe(a_, HealthyPd());
  d = store_.Get(a_);
  EXPECT_EQ(d->pd.ready_since, pd_since);
  EXPECT_EQ(d->tikv.readiness, Readiness::kReady);
  EXPECT_EQ(d->tikv.ready_since, clock_.Now());

  // Unknown spell (API blocked, PD pods Ready): readiness unknown, ready_since kept.
  clock_.Advance(kMinute);
  store_.OnPdProbe(a_, Unreachable());
  d = store_.Get(a_);
  EXPECT_EQ(d->pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(DependencyReasonName(d->pd.reason), "dependency_unknown");
  clock_.Advance(kMinute);
  store_.OnPdProbe(a_, HealthyPd());
  EXPECT_EQ(store_.Get(a_)->pd.ready_since, pd_since);
}

TEST_F(StoreTest, ClusterRemovalDropsItsState) {
  Sync({{a_, {}}, {b_, {}}});
  store_.OnPdProbe(a_, HealthyPd());
  EXPECT_THAT(store_.Snapshot(), ElementsAre(Pair(a_, ::testing::_), Pair(b_, ::testing::_)));
  Sync({{b_, {}}});
  EXPECT_THAT(store_.Snapshot(), ElementsAre(Pair(b_, ::testing::_)));
  store_.OnPdProbe(a_, HealthyPd());  // a late probe result of a removed cluster is ignored
  EXPECT_FALSE(store_.Get(a_));
  Sync({{a_, {}}, {b_, {}}});
  EXPECT_EQ(store_.Get(a_)->pd.readiness, Readiness::kNotReady);  // starts afresh
  EXPECT_FALSE(store_.Views().at(a_).pd.has_value());
}

TEST_F(StoreTest, TidbClusterFallbackAndFailureMembers) {
  ClusterInfo info;
  info.ready_pd_pods = 3;
  Sync({{ClusterKey{"ns", "c"}, info}});
  TidbClusterStatus tc = HealthyTc();
  tc.failure_members = {{"tidb", "c-tidb-0", "c-tidb-0", 123}, {"tikv", "4", "c-tikv-1", 456}};
  store_.OnTidbCluster(tc);
  auto views = store_.Views();
  const auto& v = views.at(tc.key);
  EXPECT_EQ(v.source, DependencySource::kTidbCluster);
  EXPECT_EQ(v.deps.pd.readiness, Readiness::kReady);
  EXPECT_THAT(v.failover_members,
              ElementsAre(Pair("pd", 0), Pair("tidb", 1), Pair("tiflash", 0), Pair("tikv", 1)));
  EXPECT_THAT(store_.FailureMembers(), ElementsAre(Field(&FailureMember::pod, "c-tidb-0"),
                                                   Field(&FailureMember::pod, "c-tikv-1")));
  EXPECT_EQ(store_.FailureMembers()[1].created_at, 456);

  store_.OnTidbClusterDeleted(tc.key);
  EXPECT_EQ(store_.Get(tc.key)->pd.readiness, Readiness::kUnknown);  // back to the pods
  EXPECT_THAT(store_.FailureMembers(), IsEmpty());
}

TEST_F(StoreTest, ReplaceTidbClustersKeepsOnlyListed) {
  ClusterInfo info;
  Sync({{ClusterKey{"ns", "c"}, info}});
  store_.ReplaceTidbClusters({HealthyTc()});
  EXPECT_EQ(store_.Get(ClusterKey{"ns", "c"})->pd.readiness, Readiness::kReady);
  store_.ReplaceTidbClusters({});
  EXPECT_EQ(store_.Get(ClusterKey{"ns", "c"})->pd.readiness, Readiness::kNotReady);
}

TEST_F(StoreTest, V2FactsDecideWhenThePdApiIsUnreachable) {
  const ClusterKey key{"tidb-v2", "basic"};
  ClusterInfo info;
  Sync({{key, info}});
  store_.OnPdProbe(key, Unreachable());
  EXPECT_EQ(store_.Views().at(key).source, DependencySource::kPods);
  v2::ClusterFacts f;
  f.present = true;
  f.pd_instances = 3;
  f.pd_instances_ready = 3;
  f.tikv_instances = 3;
  f.tikv_serving_ready = 0;
  f.tikv_store_states = {{"Preparing", 3}};
  store_.OnV2Cluster(key, f);
  auto v = store_.Views().at(key);
  EXPECT_EQ(v.source, DependencySource::kV2Instances);
  EXPECT_EQ(v.deps.pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(v.deps.tikv.readiness, Readiness::kNotReady);
  ASSERT_TRUE(v.v2.has_value());
  EXPECT_THAT(v.failover_members, IsEmpty()) << "v2 records no failover members";
  // Forgotten (no longer present): back to the pods.
  store_.OnV2Cluster(key, v2::ClusterFacts{});
  EXPECT_EQ(store_.Views().at(key).source, DependencySource::kPods);
  EXPECT_FALSE(store_.Views().at(key).v2.has_value());
}

}  // namespace
}  // namespace podwait
