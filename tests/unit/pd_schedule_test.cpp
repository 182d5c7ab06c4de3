// The PD prober's schedule on simulated time (tests/support/simulated_async_http.h): each cluster
// on its own clock, so 900 PDs that accept and never answer leave the other 100 on their
// interval; the slow cadence of healthy clusters nobody waits on and what brings the fast one
// back (a pod that starts waiting, a status change, an unhealthy /health); kept connections; the
// rounds. Counts over windows of simulated time, never wall-clock timings.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "exporter/pd/prober.h"
#include "tests/support/process.h"
#include "tests/support/simulated_async_http.h"

namespace podwait {
namespace {

using testing::SimulatedAsyncHttp;

std::string Fixture(const std::string& name) {
  return testing::ReadFile(testing::SourcePath("tests/fixtures/real/pd/" + name));
}

HttpResponse Body(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

// The PDs of the test: healthy ones answer the real payloads; a cluster named in `hung` accepts
// and never answers; one in `unhealthy` answers /health with a member down.
class Fleet {
 public:
  std::set<std::string> hung;
  std::set<std::string> unhealthy;
  std::set<std::string> refused;  // the API server refuses the service proxy (403)

  SimulatedAsyncHttp::Reply Answer(const HttpRequest& request) {
    // http://<cluster>.test:2379/pd/api/v1/<endpoint>
    const std::string host = request.url.substr(7, request.url.find('.') - 7);
    const std::string path = request.url.substr(request.url.find("/pd/api/v1/") + 11);
    std::lock_guard<std::mutex> lock(mu_);
    if (hung.count(host) != 0) return {std::nullopt, 0};
    if (refused.count(host) != 0) {
      return {Body(403, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                        R"("message":"services \"x-pd:2379\" is forbidden","reason":"Forbidden",)"
                        R"("code":403})"),
              1};
    }
    if (path == "health" && unhealthy.count(host) != 0) {
      return {Body(503, R"([{"name":"pd-0","member_id":1,"client_urls":[],"health":false}])"), 2};
    }
    static const std::map<std::string, std::string> kFiles = {
        {"health", "health.json"},
        {"leader", "leader.json"},
        {"cluster/status", "cluster_status.json"},
        {"stores", "stores.json"},
        {"config/replicate", "config_replicate.json"}};
    auto it = kFiles.find(path);
    if (it == kFiles.end()) return {Body(404, "404 page not found"), 1};
    auto cached = bodies_.find(it->second);
    if (cached == bodies_.end()) cached = bodies_.emplace(it->second, Fixture(it->second)).first;
    return {Body(200, cached->second), 2};
  }
  void SetUnhealthy(const std::string& cluster, bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    if (on) {
      unhealthy.insert(cluster);
    } else {
      unhealthy.erase(cluster);
    }
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> bodies_;
};

// An AsyncHttp handing every call to one SimulatedAsyncHttp the test keeps.
class Forward final : public AsyncHttp {
 public:
  explicit Forward(SimulatedAsyncHttp* to) : to_(to) {}
  void Get(HttpRequest r, size_t max, Done done) override { to_->Get(std::move(r), max, done); }
  void Run(int64_t wait_ms) override { to_->Run(wait_ms); }
  void Wake() override { to_->Wake(); }
  void SetMaxConnections(size_t n) override { to_->SetMaxConnections(n); }
  size_t in_flight() const override { return to_->in_flight(); }

 private:
  SimulatedAsyncHttp* to_;
};

ClusterKey Key(const std::string& name) { return ClusterKey{"ns", name}; }

// A prober over `clusters` on simulated time, with the results it handed on.
class Harness {
 public:
  // `setup` prepares the fleet before the prober starts.
  Harness(std::vector<std::string> clusters, PdProberOptions options,
          PdApiServerRoute* via = nullptr, const std::function<void(Fleet&)>& setup = {})
      : http_(&clock_, [this](const HttpRequest& r) {
          {
            std::lock_guard<std::mutex> lock(mu_);
            requests_.push_back(r);
          }
          return fleet.Answer(r);
        }) {
    for (const auto& name : clusters) {
      targets_.push_back(PdTarget{Key(name), "http://" + name + ".test:2379", {}, via});
    }
    if (setup) setup(fleet);
    start_ = clock_.MonotonicMs();
    http_.SetHorizon(start_);
    Environment env{&clock_};
    env.async_http = [this] { return std::make_unique<Forward>(&http_); };
    prober_ = std::make_unique<PdProber>(
        options, env, nullptr,
        [this] {
          std::lock_guard<std::mutex> lock(mu_);
          return targets_;
        },
        [this](const ClusterKey& k, PdFacts f) {
          std::lock_guard<std::mutex> lock(mu_);
          results_[k.name].push_back(f);
        },
        [this] { ++urgent_; });
    prober_->Start();
  }
  ~Harness() { prober_->Stop(); }

  // Lets simulated time run until `ms` after the start.
  void RunUntil(int64_t ms) {
    sent_.clear();
    http_.SetHorizon(start_ + ms);
    ASSERT_TRUE(testing::WaitFor([&] { return clock_.MonotonicMs() >= start_ + ms; },
                                 std::chrono::seconds(60)));
    // A few more turns of the loop at the horizon: signals taken, due probes started.
    const uint64_t before = http_.runs();
    ASSERT_TRUE(
        testing::WaitFor([&] { return http_.runs() > before + 3; }, std::chrono::seconds(10)));
  }
  void Signal(std::map<ClusterKey, PdClusterSignal> s) { prober_->Signal(std::move(s)); }
  // A cluster the lister gives from now on.
  void AddTarget(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    targets_.push_back(PdTarget{Key(name), "http://" + name + ".test:2379", {}, nullptr});
  }

  // When (ms after the start) each request to `endpoint` of `cluster` was sent, within [from, to).
  std::vector<int64_t> Asked(const std::string& cluster, const std::string& endpoint,
                             int64_t from = 0, int64_t to = INT64_MAX) {
    std::vector<int64_t> at;
    for (const auto& [t, keep] : Sent(cluster, endpoint)) {
      if (t >= from && t < to) at.push_back(t);
    }
    return at;
  }
  bool KeptConnection(const std::string& cluster, const std::string& endpoint, int64_t at) {
    for (const auto& [t, keep] : Sent(cluster, endpoint)) {
      if (t == at) return keep;
    }
    ADD_FAILURE() << "no request to " << endpoint << " of " << cluster << " at " << at;
    return false;
  }
  size_t Results(const std::string& cluster) {
    std::lock_guard<std::mutex> lock(mu_);
    return results_[cluster].size();
  }
  std::vector<PdFacts> ResultsOf(const std::string& cluster) {
    std::lock_guard<std::mutex> lock(mu_);
    return results_[cluster];
  }
  std::vector<HttpRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  PdProber& prober() { return *prober_; }
  SimulatedAsyncHttp& http() { return http_; }
  int urgent() const { return urgent_.load(); }
  Fleet fleet;

 private:
  // (time after the start, connection kept) of the requests to one endpoint of one cluster.
  const std::vector<std::pair<int64_t, bool>>& Sent(const std::string& cluster,
                                                    const std::string& endpoint) {
    if (sent_.empty()) {
      for (const auto& s : http_.sent()) {
        sent_[s.url].emplace_back(s.at_ms - start_, s.keep_connection);
      }
    }
    return sent_["http://" + cluster + ".test:2379/pd/api/v1/" + endpoint];
  }

  FakeClock clock_;
  SimulatedAsyncHttp http_;
  std::vector<PdTarget> targets_;
  int64_t start_ = 0;
  std::mutex mu_;
  std::map<std::string, std::vector<PdFacts>> results_;
  std::vector<HttpRequest> requests_;
  std::map<std::string, std::vector<std::pair<int64_t, bool>>> sent_;  // by URL, after RunUntil
  std::atomic<int> urgent_{0};
  std::unique_ptr<PdProber> prober_;
};

std::vector<std::string> Names(int n, const char* prefix) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "%s%04d", prefix, i);
    names.push_back(name);
  }
  return names;
}

// Issue 38.5: 1,000 clusters, 900 PDs accept and never answer, --pd.interval=2s
// --pd.timeout=1s. Before, a round was a barrier and each healthy PD was probed every ~28 s; now
// every healthy cluster is probed on its interval. Over 100 s of simulated time after a 20 s
// first pass (the hung clusters sort first, and nothing is known of any PD before its first
// probe: 900 × 1 s / 32 slots ≈ 28 s) each healthy cluster is asked 50 times (one every 2 s), and
// the hung ones back off.
TEST(PdScheduleTest, NineInTenHungLeaveTheOthersOnTheirInterval) {
  std::vector<std::string> healthy = Names(100, "ok");
  std::vector<std::string> hung = Names(900, "hung");
  std::vector<std::string> all = healthy;
  all.insert(all.end(), hung.begin(), hung.end());
  PdProberOptions options;
  options.interval_ms = 2000;
  options.timeout_ms = 1000;
  options.concurrency = 32;
  Harness harness(all, options, nullptr,
                  [&](Fleet& f) { f.hung.insert(hung.begin(), hung.end()); });
  harness.RunUntil(140'000);
  int64_t worst_gap = 0;
  size_t fewest = SIZE_MAX;
  for (const auto& name : healthy) {
    const std::vector<int64_t> at = harness.Asked(name, "health", 40'000, 140'000);
    fewest = std::min(fewest, at.size());
    for (size_t i = 1; i < at.size(); ++i) worst_gap = std::max(worst_gap, at[i] - at[i - 1]);
    EXPECT_GE(at.size(), 49u) << name;
    EXPECT_LE(at.size(), 51u) << name;
  }
  size_t hung_asked = 0;
  for (const auto& name : hung) hung_asked += harness.Asked(name, "health", 40'000, 140'000).size();
  std::printf(
      "90%% hung, interval 2 s, timeout 1 s, 32 slots: healthy clusters asked >= %zu times in "
      "100 s, largest gap %lld ms; hung clusters asked %.1f times each\n",
      fewest, static_cast<long long>(worst_gap), static_cast<double>(hung_asked) / 900);
  EXPECT_LE(worst_gap, 2100);
  // No answer: asked again after 2, 4, 8, ... up to 60 s, not every 2 s (50 times).
  EXPECT_LT(hung_asked, 900u * 10);
}

// With only 4 slots the hung clusters saturate their half, and the healthy ones still keep theirs.
TEST(PdScheduleTest, HungClustersHoldAtMostHalfTheSlots) {
  std::vector<std::string> all = Names(10, "ok");
  for (const auto& name : Names(90, "hung")) all.push_back(name);
  PdProberOptions options;
  options.interval_ms = 2000;
  options.timeout_ms = 1000;
  options.concurrency = 4;
  Harness harness(all, options, nullptr, [](Fleet& f) {
    for (const auto& name : Names(90, "hung")) f.hung.insert(name);
  });
  harness.RunUntil(70'000);  // the first pass: 90 × 1 s / 4 slots
  for (const auto& name : Names(10, "ok")) {
    EXPECT_GE(harness.Asked(name, "health", 30'000, 70'000).size(), 19u) << name;
  }
}

PdProberOptions Cadences() {
  PdProberOptions options;
  options.interval_ms = 15'000;
  options.idle_interval_ms = 60'000;
  options.timeout_ms = 3000;
  options.concurrency = 8;
  return options;
}

// A healthy cluster nobody waits on: one full probe, then one /health a minute on a connection
// that is not kept; the full probe's connection is.
TEST(PdScheduleTest, AHealthyClusterNobodyWaitsOnGetsOneRequestAMinute) {
  Harness harness({"quiet"}, Cadences());
  harness.RunUntil(300'000);
  EXPECT_EQ(harness.Asked("quiet", "leader").size(), 1u);
  EXPECT_EQ(harness.Asked("quiet", "stores").size(), 1u);
  const std::vector<int64_t> health = harness.Asked("quiet", "health", 0, 300'000);
  EXPECT_THAT(health, ::testing::ElementsAre(0, 60'000, 120'000, 180'000, 240'000));
  EXPECT_TRUE(harness.KeptConnection("quiet", "health", 0));
  EXPECT_FALSE(harness.KeptConnection("quiet", "health", 60'000));
  EXPECT_EQ(harness.Results("quiet"), 1u);  // a healthy /health confirms, hands nothing on
  EXPECT_EQ(harness.prober().rounds_completed(), 5u);  // one per probe of the only cluster
}

// A pod of an idle cluster starts waiting: a full probe at once (within one turn of the loop, no
// simulated time passing), its result marked urgent, then the fast cadence while it waits and the
// slow one again after.
TEST(PdScheduleTest, APodThatStartsWaitingGetsAFullProbeAtOnce) {
  Harness harness({"busy", "other"}, Cadences());
  harness.RunUntil(1'000);
  harness.Signal({});  // the baseline: nobody waits
  harness.RunUntil(100'000);
  ASSERT_EQ(harness.Asked("busy", "stores").size(), 1u);
  harness.Signal({{Key("busy"), PdClusterSignal{true, 0}}});
  harness.RunUntil(100'000);
  EXPECT_THAT(harness.Asked("busy", "health", 100'000), ::testing::ElementsAre(100'000));
  harness.RunUntil(100'100);
  EXPECT_THAT(harness.Asked("busy", "stores", 100'000), ::testing::ElementsAre(100'006));
  EXPECT_EQ(harness.urgent(), 1);
  EXPECT_TRUE(harness.Asked("other", "stores", 100'000).empty());
  harness.RunUntil(160'000);  // fast while it waits: 100, 115, 130, 145 s
  EXPECT_EQ(harness.Asked("busy", "stores", 100'000).size(), 4u);
  harness.Signal({});  // it stopped waiting
  harness.RunUntil(400'000);
  EXPECT_LE(harness.Asked("busy", "stores", 160'000).size(), 1u);
  const size_t checks = harness.Asked("busy", "health", 200'000, 400'000).size();
  EXPECT_GE(checks, 3u);
  EXPECT_LE(checks, 4u);
}

// A cluster's first signal is its baseline (what the evaluation found once every input had
// listed): a cluster that waits there gets the fast cadence, not a probe at once.
TEST(PdScheduleTest, TheFirstSignalsSetTheCadenceAndProbeNothingAtOnce) {
  Harness harness({"waits", "idle"}, Cadences());
  harness.RunUntil(5'000);  // both probed once, healthy, nobody waits yet: slow cadence
  harness.Signal(
      {{Key("waits"), PdClusterSignal{true, 1}}, {Key("idle"), PdClusterSignal{false, 2}}});
  harness.RunUntil(50'000);
  EXPECT_THAT(harness.Asked("waits", "leader", 10), ::testing::ElementsAre(15'002, 30'002, 45'002));
  EXPECT_TRUE(harness.Asked("idle", "leader", 10).empty());
  EXPECT_EQ(harness.urgent(), 0);
}

// The exporter's first seconds: a cluster the pods name that the prober does not know yet is
// listed on ListAgain() and probed at once, not at the next interval's listing (15 s).
TEST(PdScheduleTest, ListAgainBringsANewClusterAtOnce) {
  Harness harness({"first"}, Cadences());
  harness.RunUntil(2'000);
  harness.AddTarget("late");
  harness.RunUntil(3'000);
  EXPECT_TRUE(harness.Asked("late", "health").empty()) << "not listed before the interval";
  harness.prober().ListAgain();
  harness.RunUntil(3'000);
  EXPECT_THAT(harness.Asked("late", "health"), ::testing::ElementsAre(3'000));
}

// A status stamp that changes brings a full probe at once; the first stamp seen does not.
TEST(PdScheduleTest, AStatusChangeGetsAFullProbeAtOnce) {
  Harness harness({"tc"}, Cadences());
  harness.RunUntil(90'000);
  harness.Signal({{Key("tc"), PdClusterSignal{false, 7}}});
  harness.RunUntil(95'000);
  EXPECT_TRUE(harness.Asked("tc", "stores", 60'000).empty());
  harness.Signal({{Key("tc"), PdClusterSignal{false, 8}}});
  harness.RunUntil(95'100);
  EXPECT_THAT(harness.Asked("tc", "leader", 60'000), ::testing::ElementsAre(95'002));
}

// /health of an idle cluster says a member is down: the full probe at once, then the fast
// cadence until a full answer is healthy again.
TEST(PdScheduleTest, AnUnhealthyCheckGetsTheFullProbeAndTheFastCadence) {
  Harness harness({"flaky"}, Cadences());
  harness.RunUntil(30'000);
  harness.fleet.SetUnhealthy("flaky", true);
  harness.RunUntil(100'000);
  // The check at 60 s, the full probe right after its answer.
  EXPECT_THAT(harness.Asked("flaky", "health", 1, 60'010), ::testing::ElementsAre(60'000, 60'002));
  const std::vector<int64_t> full = harness.Asked("flaky", "leader", 10, 100'000);
  ASSERT_FALSE(full.empty());
  EXPECT_EQ(full.front(), 60'004);
  EXPECT_EQ(full.size(), 3u);  // 60, 75, 90 s
  harness.fleet.SetUnhealthy("flaky", false);
  harness.RunUntil(400'000);
  EXPECT_LE(harness.Asked("flaky", "leader", 150'000).size(), 1u);
}

// Only fast-probed clusters keep a connection: the pool is sized to them and the slots.
TEST(PdScheduleTest, KeptConnectionsFollowTheCadence) {
  Harness harness(Names(20, "c"), Cadences());
  harness.RunUntil(1'000);
  EXPECT_EQ(harness.http().max_connections(), 8u);  // every cluster idle: the slots alone
  std::map<ClusterKey, PdClusterSignal> waiting;
  for (const auto& name : Names(5, "c")) waiting[Key(name)] = PdClusterSignal{true, 0};
  harness.Signal(waiting);
  harness.RunUntil(2'000);
  EXPECT_EQ(harness.http().max_connections(), 8u + 5u);
}

// Through the API server: a token of its budget per request (none at hand: the request waits and
// asks again), the user's credentials on every request, and a 403 on services/proxy named as
// "not reachable from here" rather than taken for PD's answer.
TEST(PdScheduleTest, ThroughTheApiServerEveryRequestTakesABudgetTokenAndCarriesCredentials) {
  struct Route final : PdApiServerRoute {
    std::atomic<int> asked{0}, taken{0}, answers{0};
    bool TryTake(int64_t) override {
      if (++asked % 2 == 1) return false;  // every other ask finds the budget spent
      ++taken;
      return true;
    }
    void Authorize(HttpRequest* r) override {
      r->headers.emplace_back("Authorization", "Bearer t");
    }
    void OnAnswer(const HttpResponse&) override { ++answers; }
  } route;
  Harness harness({"seen", "refused"}, Cadences(), &route,
                  [](Fleet& f) { f.refused.insert("refused"); });
  harness.RunUntil(10'000);
  const std::vector<HttpRequest> sent = harness.requests();
  ASSERT_EQ(sent.size(), 6u);  // seen: five endpoints; refused: /health alone
  EXPECT_EQ(route.taken.load(), 6);
  EXPECT_EQ(route.asked.load(), 12);
  EXPECT_EQ(route.answers.load(), 6);
  for (const HttpRequest& r : sent) {
    EXPECT_THAT(r.headers, ::testing::Contains(
                               std::pair<std::string, std::string>("Authorization", "Bearer t")));
    EXPECT_TRUE(r.keep_connection);
  }
  const std::vector<PdFacts> refused = harness.ResultsOf("refused");
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_FALSE(refused[0].reachable);
  EXPECT_THAT(refused[0].not_reachable_from_here, ::testing::HasSubstr("services/proxy"));
  EXPECT_THAT(refused[0].error, ::testing::HasSubstr("Forbidden"));
  const std::vector<PdFacts> seen = harness.ResultsOf("seen");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].success);
  EXPECT_TRUE(seen[0].not_reachable_from_here.empty());
}

}  // namespace
}  // namespace podwait
