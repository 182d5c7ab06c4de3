// The PD prober, the cluster registry and the dependency store against the simulator's fake PDs
// (tests/sim: http://127.0.0.1:PORT/pd/{namespace}/{cluster}/pd/api/v1/...).
//
// PD down -> not ready; PD pods Ready but API refusing -> unknown; PD up, not bootstrapped -> pd
// ready, tikv not ready; TiKV joins and the cluster initializes -> both ready, ready-since set; a
// PD that hangs never stalls the other clusters' probes; Stop() is prompt; and the round time of
// 1,000 simulated clusters.

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "exporter/app/options.h"
#include "exporter/metrics/dependency_collector.h"
#include "exporter/pd/prober.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/dependency_store.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;
using testing::HttpPost;

// A running podwait-sim on a free loopback port.
class Sim {
 public:
  explicit Sim(std::vector<std::string> extra = {}) {
    port_file_ = testing::MakeTempDir() + "/port";
    std::vector<std::string> argv = {testing::BinaryPath("podwait-sim"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--port-file",
                                     port_file_,
                                     "--manual"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<testing::Subprocess>(argv);
    testing::WaitFor(
        [&] {
          std::string p = testing::ReadFile(port_file_);
          port_ = p.empty() ? 0 : std::atoi(p.c_str());
          return port_ > 0;
        },
        60s);
  }
  int port() const { return port_; }
  std::string log() const { return proc_->ReadLog(); }
  // Applies one "pd" op: {"namespace":..,"cluster":..,<spec>}.
  void Pd(const std::string& ns, const std::string& cluster, const std::string& spec) {
    std::string body = R"({"pd":{"namespace":")" + ns + R"(","cluster":")" + cluster + "\"" +
                       (spec.empty() ? "" : "," + spec) + "}}";
    ASSERT_EQ(HttpPost(port_, "/_sim/apply", body), 200) << body << "\n" << log();
  }
  std::string UrlTemplate() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/pd/{namespace}/{cluster}";
  }

 private:
  std::string port_file_;
  int port_ = 0;
  std::unique_ptr<testing::Subprocess> proc_;
};

// Counts requests (thread-safe).
struct CountingObserver final : PdProbeObserver {
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> errors{0};
  void OnRequest(PdEndpoint, double, PdErrorKind kind) override {
    ++requests;
    if (kind != PdErrorKind::kNone) ++errors;
  }
};

// Prober + registry + store wired the way the exporter wires them.
struct Pipeline {
  Pipeline(Config c, const Clock& clock, PdProbeObserver* observer = nullptr)
      : config(std::move(c)), registry(config), store(config, clock) {
    registry.SetListener([this](const auto& m) { store.SyncClusters(m); });
    prober = std::make_unique<PdProber>(
        PdProberOptionsFromConfig(config), Environment{&clock}, observer,
        [this] { return PdTargetsFor(registry.Clusters(), config); },
        [this](const ClusterKey& k, PdFacts f) { store.OnPdProbe(k, std::move(f)); });
  }
  std::optional<ClusterDependencies> Deps(const ClusterKey& k) { return store.Get(k); }
  bool Probed(const ClusterKey& k) {
    auto v = store.Views();
    auto it = v.find(k);
    return it != v.end() && it->second.pd.has_value();
  }
  Config config;
  ClusterRegistry registry;
  DependencyStore store;
  std::unique_ptr<PdProber> prober;
};

Config FastConfig(const Sim& sim) {
  Config c;
  c.pd_url_template = sim.UrlTemplate();
  c.pd_interval = 200;
  // A healthy cluster nobody waits on gets one /health a second: PD losing its leader is seen
  // there, and the full probe follows at once.
  c.pd_idle_interval = kSecond;
  c.pd_timeout = 2 * kSecond;
  c.pd_concurrency = 4;
  return c;
}

TEST(PdProberSim, DependencyLifecycle) {
  Sim sim;
  ASSERT_GT(sim.port(), 0) << sim.log();
  const ClusterKey down{"ns1", "down"};        // no PD answers, no Ready PD pod
  const ClusterKey blocked{"ns1", "blocked"};  // no PD answers, PD pods Ready
  const ClusterKey fresh{"ns1", "fresh"};      // PD up, TiKV not there yet
  sim.Pd(fresh.namespace_, fresh.name, R"("members":3,"state":"not_bootstrapped")");

  Pipeline p(FastConfig(sim), SystemClock::Instance());
  p.registry.SetPodClusters({down, blocked, fresh}, {{blocked, 3}, {fresh, 3}});
  p.prober->Start();
  ASSERT_TRUE(testing::WaitFor(
      [&] { return p.Probed(down) && p.Probed(blocked) && p.Probed(fresh); }, 10s));

  auto d = p.Deps(down);
  EXPECT_EQ(d->pd.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(d->pd.reason), "pd_not_ready");
  EXPECT_EQ(d->tikv.readiness, Readiness::kNotReady);

  d = p.Deps(blocked);
  EXPECT_EQ(d->pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(DependencyReasonName(d->pd.reason), "dependency_unknown");
  EXPECT_EQ(d->tikv.readiness, Readiness::kUnknown);

  d = p.Deps(fresh);
  EXPECT_EQ(d->pd.readiness, Readiness::kReady);
  EXPECT_GT(d->pd.ready_since, 0);
  EXPECT_EQ(d->tikv.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(d->tikv.reason), "tikv_not_bootstrapped");
  const Timestamp pd_since = d->pd.ready_since;

  // The first TiKV joins and bootstraps; then the cluster initializes.
  sim.Pd(fresh.namespace_, fresh.name, R"("state":"bootstrapped","stores":[{"state":"Up"}])");
  ASSERT_TRUE(testing::WaitFor(
      [&] { return DependencyReasonName(p.Deps(fresh)->tikv.reason) == "cluster_not_initialized"; },
      10s))
      << DependencyReasonName(p.Deps(fresh)->tikv.reason);
  sim.Pd(fresh.namespace_, fresh.name,
         R"("state":"initialized","stores":[{"state":"Up"},{"state":"Up","tiflash":true}])");
  ASSERT_TRUE(
      testing::WaitFor([&] { return p.Deps(fresh)->tikv.readiness == Readiness::kReady; }, 10s));
  d = p.Deps(fresh);
  EXPECT_EQ(d->pd.ready_since, pd_since);  // PD stayed ready all along
  EXPECT_GE(d->tikv.ready_since, pd_since);

  std::string text;
  DependencyCollector(p.store).AppendText(&text);
  EXPECT_THAT(text,
              HasSubstr("podwait_dependency_ready{namespace=\"ns1\",tidb_cluster=\"ns1-fresh\","
                        "dependency=\"tikv\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_dependency_ready_since_timestamp_seconds{namespace=\"ns1\","
                              "tidb_cluster=\"ns1-fresh\",dependency=\"tikv\"}"));
  EXPECT_THAT(text, HasSubstr("podwait_tikv_stores{namespace=\"ns1\",tidb_cluster=\"ns1-fresh\","
                              "state=\"Up\"} 1"));  // the TiFlash store is not counted
  EXPECT_THAT(
      text,
      HasSubstr("podwait_cluster_initialized{namespace=\"ns1\",tidb_cluster=\"ns1-fresh\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("podwait_pd_probe_success{namespace=\"ns1\",tidb_cluster=\"ns1-down\"} 0"));
  EXPECT_THAT(text, Not(HasSubstr("tidb_cluster=\"ns1-blocked\",dependency")));  // unknown: absent

  // PD loses its leader: not ready, and the old ready_since no longer counts.
  sim.Pd(fresh.namespace_, fresh.name, R"("state":"no_leader")");
  ASSERT_TRUE(testing::WaitFor(
      [&] { return DependencyReasonName(p.Deps(fresh)->pd.reason) == "no_pd_leader"; }, 10s));
  sim.Pd(fresh.namespace_, fresh.name, R"("state":"initialized","stores":[{"state":"Up"}])");
  ASSERT_TRUE(
      testing::WaitFor([&] { return p.Deps(fresh)->pd.readiness == Readiness::kReady; }, 10s));
  EXPECT_GT(p.Deps(fresh)->pd.ready_since, pd_since);

  // A cluster whose pods are all gone takes its state with it.
  p.registry.SetPodClusters({fresh}, {{fresh, 3}});
  EXPECT_FALSE(p.Deps(down));
  EXPECT_FALSE(p.Deps(blocked));
  p.prober->Stop();
}

TEST(PdProberSim, ProxyGarbageAndOldPd) {
  Sim sim;
  ASSERT_GT(sim.port(), 0) << sim.log();
  const ClusterKey html{"ns2", "html"}, garbage{"ns2", "garbage"}, legacy{"ns2", "legacy"};
  sim.Pd(html.namespace_, html.name, R"("state":"html")");
  sim.Pd(garbage.namespace_, garbage.name, R"("state":"garbage")");
  sim.Pd(legacy.namespace_, legacy.name,
         R"("state":"initialized","clusterStatus":"legacy","stores":[{"state":"Up"}])");
  Pipeline p(FastConfig(sim), SystemClock::Instance());
  p.registry.SetPodClusters({html, garbage, legacy}, {{html, 1}, {garbage, 0}, {legacy, 3}});
  p.prober->Start();
  ASSERT_TRUE(testing::WaitFor(
      [&] { return p.Probed(html) && p.Probed(garbage) && p.Probed(legacy); }, 10s));
  EXPECT_EQ(p.Deps(html)->pd.readiness, Readiness::kUnknown);      // a proxy page is not PD
  EXPECT_EQ(p.Deps(garbage)->pd.readiness, Readiness::kNotReady);  // and no Ready PD pod
  auto d = p.Deps(legacy);  // PD < 3.0: no is_initialized, the Up store decides
  EXPECT_EQ(d->pd.readiness, Readiness::kReady);
  EXPECT_EQ(d->tikv.readiness, Readiness::kReady);
  p.prober->Stop();
}

TEST(PdProberSim, HangingPdNeverStallsOthersAndStopIsPrompt) {
  Sim sim;
  ASSERT_GT(sim.port(), 0) << sim.log();
  std::vector<ClusterKey> clusters;
  const ClusterKey hung{"ns3", "hung"};
  sim.Pd(hung.namespace_, hung.name, R"("state":"hang","hangSeconds":60)");
  clusters.push_back(hung);
  for (int i = 0; i < 20; ++i) {
    ClusterKey k{"ns3", "ok-" + std::to_string(i)};
    sim.Pd(k.namespace_, k.name, R"("state":"initialized","stores":[{"state":"Up"}])");
    clusters.push_back(k);
  }
  Config c = FastConfig(sim);
  c.pd_timeout = 6 * kSecond;
  c.pd_interval = 10 * kSecond;
  c.pd_concurrency = 2;
  Pipeline p(c, SystemClock::Instance());
  p.registry.SetPodClusters(clusters, {});
  const auto start = std::chrono::steady_clock::now();
  p.prober->Start();
  // The hung PD holds one worker for up to 6 s; the other worker probes all 20 meanwhile (well
  // under a second unsanitized; the margin is for sanitizer builds on a busy machine).
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        for (size_t i = 1; i < clusters.size(); ++i) {
          if (!p.Probed(clusters[i])) return false;
        }
        return true;
      },
      10s));
  const auto others_done = std::chrono::steady_clock::now() - start;
  EXPECT_LT(others_done, 5s) << "healthy clusters waited for the hung one";
  EXPECT_FALSE(p.Probed(hung));
  for (size_t i = 1; i < clusters.size(); ++i) {
    EXPECT_EQ(p.Deps(clusters[i])->tikv.readiness, Readiness::kReady) << clusters[i].name;
  }
  // The hung probe ends with the timeout, as a failure.
  ASSERT_TRUE(testing::WaitFor([&] { return p.Probed(hung); }, 20s));
  EXPECT_FALSE(p.store.Views().at(hung).pd->success);
  EXPECT_THAT(p.store.Views().at(hung).pd->error, HasSubstr("health"));

  // Stop while the hung PD holds a request: returns within a second.
  ClusterKey hung2{"ns3", "hung2"};
  sim.Pd(hung2.namespace_, hung2.name, R"("state":"hang","hangSeconds":60)");
  Config slow = c;
  slow.pd_timeout = 30 * kSecond;
  Pipeline q(slow, SystemClock::Instance());
  q.registry.SetPodClusters({hung2}, {});
  q.prober->Start();
  std::this_thread::sleep_for(500ms);
  const auto stop_start = std::chrono::steady_clock::now();
  q.prober->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_start, 1s);
  p.prober->Stop();
}

// Issue 38.5 against the simulator's PDs: nine clusters in ten have a PD that accepts and never
// answers (--pd.interval=2s --pd.timeout=1s, 32 slots); each healthy cluster is still probed on
// its interval. Before, the round was a barrier: a healthy PD waited for every hung one (~28 s
// at 1,000 clusters). PODWAIT_HUNG_TEST_CLUSTERS sets the fleet (default 300; 1,000 for the
// figure in BENCHMARKS.md); the gaps are printed, the assertion counts probes in a window.
TEST(PdProberSim, NineInTenHungLeaveTheOthersOnTheirInterval) {
  const char* env = std::getenv("PODWAIT_HUNG_TEST_CLUSTERS");
  const int n = env != nullptr ? std::atoi(env) : 300;
  Sim sim({"--generate-clusters", std::to_string(n), "--pods-per-cluster", "3"});
  ASSERT_GT(sim.port(), 0) << sim.log();
  std::vector<ClusterKey> clusters, healthy;
  std::string hang = "[";
  for (int i = 0; i < n; ++i) {
    char ns[32], name[32];
    std::snprintf(ns, sizeof(ns), "load-%04d", i);
    std::snprintf(name, sizeof(name), "tc-%04d", i);
    clusters.push_back(ClusterKey{ns, name});
    if (i % 10 == 5) {
      healthy.push_back(clusters.back());
      continue;
    }
    hang += std::string(hang.size() > 1 ? "," : "") + R"({"pd":{"namespace":")" + ns +
            R"(","cluster":")" + name + R"(","fault":"hang","hangSeconds":600}})";
  }
  ASSERT_EQ(HttpPost(sim.port(), "/_sim/apply", hang + "]"), 200);
  Config c;
  c.pd_url_template = sim.UrlTemplate();
  c.pd_interval = 2 * kSecond;
  c.pd_idle_interval = 0;  // every cluster at the fast cadence, as in the issue's run
  c.pd_timeout = 1 * kSecond;
  c.pd_concurrency = 32;
  std::mutex mu;
  std::map<ClusterKey, std::vector<Timestamp>> probed;  // when each full probe began (wall)
  PdProber prober(
      PdProberOptionsFromConfig(c), Environment{}, nullptr,
      [&] { return PdTargetsFor(clusters, c); },
      [&](const ClusterKey& k, PdFacts f) {
        std::lock_guard<std::mutex> lock(mu);
        probed[k].push_back(f.probed_at);
      });
  prober.Start();
  // The first pass asks every PD once, the hung ones for a timeout each (n × 0.9 s / 32 slots);
  // then a window of 10 s.
  const auto first_pass = std::chrono::milliseconds(n * 900 / 32 + 2000);
  std::this_thread::sleep_for(first_pass);
  const Timestamp from = SystemClock::Instance().Now();
  std::this_thread::sleep_for(10s);
  const Timestamp to = SystemClock::Instance().Now();
  prober.Stop();
  std::vector<Timestamp> gaps;
  size_t fewest = SIZE_MAX;
  for (const ClusterKey& k : healthy) {
    std::vector<Timestamp> in;
    for (Timestamp t : probed[k]) {
      if (t >= from && t < to) in.push_back(t);
    }
    fewest = std::min(fewest, in.size());
    for (size_t i = 1; i < in.size(); ++i) gaps.push_back(in[i] - in[i - 1]);
    // Five expected; four leaves room for a loaded machine and the sanitizer builds.
    EXPECT_GE(in.size(), 4u) << k.namespace_ << "/" << k.name;
  }
  std::sort(gaps.begin(), gaps.end());
  ASSERT_FALSE(gaps.empty());
  std::printf(
      "%d clusters, 90%% hung, interval 2 s, timeout 1 s, 32 slots: healthy clusters' probe gap "
      "p50 %lld ms, p99 %lld ms, max %lld ms; fewest probes in 10 s: %zu\n",
      n, static_cast<long long>(gaps[gaps.size() / 2]),
      static_cast<long long>(gaps[gaps.size() * 99 / 100]), static_cast<long long>(gaps.back()),
      fewest);
}

// Measures one probe round over 1,000 simulated clusters (the simulator's generated load).
// The requirement is that a round fits in one --pd.interval (default 15 s); the measured time is
// printed for BENCHMARKS.md.
TEST(PdProberSim, ThousandClustersRoundFitsInOneInterval) {
  Sim sim({"--generate-clusters", "1000", "--pods-per-cluster", "3"});
  ASSERT_GT(sim.port(), 0) << sim.log();
  std::vector<ClusterKey> clusters;
  for (int i = 0; i < 1000; ++i) {
    char ns[32], name[32];
    std::snprintf(ns, sizeof(ns), "load-%04d", i);
    std::snprintf(name, sizeof(name), "tc-%04d", i);
    clusters.push_back(ClusterKey{ns, name});
  }
  Config c;
  c.pd_url_template = sim.UrlTemplate();
  c.pd_interval = 15 * kSecond;  // the default
  c.pd_timeout = 3 * kSecond;
  c.pd_concurrency = 32;  // the default
  CountingObserver counter;
  Pipeline p(c, SystemClock::Instance(), &counter);
  p.registry.SetPodClusters(clusters, {});
  p.prober->Start();
  ASSERT_TRUE(testing::WaitFor([&] { return p.prober->rounds_completed() >= 1; }, 30s));
  const int64_t round_ms = p.prober->last_round_ms();
  p.prober->Stop();
  std::printf("probe round over %zu clusters (concurrency %d): %lld ms, %lld requests\n",
              clusters.size(), c.pd_concurrency, static_cast<long long>(round_ms),
              static_cast<long long>(counter.requests.load()));
  // Five endpoints per healthy cluster; no-leader ones also try /members.
  EXPECT_GE(counter.requests.load(), 5000);
  EXPECT_LT(round_ms, c.pd_interval);
  int ready = 0, not_ready = 0;
  for (const auto& [k, d] : p.store.Snapshot()) {
    ready += d.pd.readiness == Readiness::kReady;
    not_ready += d.pd.readiness == Readiness::kNotReady;
  }
  EXPECT_EQ(ready, 900);      // nine in ten generated clusters are healthy
  EXPECT_EQ(not_ready, 100);  // every tenth has no PD leader
}

}  // namespace
}  // namespace podwait
