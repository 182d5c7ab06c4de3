// The pod reflector (Reflector + PodSource + PodStore, real libcurl client) against the
// podwait-sim process on loopback: initial sync across pages, adds/updates/deletes, a dropped
// watch resumes without a relist, 410 relists and leaves the store exactly equal to the
// simulator's, 429/500 back off, a malformed line and an oversized object are counted and
// skipped, a rotated token is picked up.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>

#include "exporter/app/observers.h"
#include "exporter/app/options.h"
#include "exporter/kube/reflector.h"
#include "exporter/sources/pods.h"
#include "exporter/state/pod_store.h"
#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

// podwait-sim as a child process.
class Sim {
 public:
  explicit Sim(std::vector<std::string> extra) {
    const std::string dir = MakeTempDir();
    port_file_ = dir + "/port";
    std::vector<std::string> argv = {
        BinaryPath("podwait-sim"), "--listen", "127.0.0.1:0", "--port-file", port_file_,
        "--bookmark-interval",     "1s",       "--log-level", "warn"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process_ = std::make_unique<Subprocess>(argv);
    WaitFor(
        [&] {
          std::ifstream in(port_file_);
          return static_cast<bool>(in >> port_);
        },
        60s);
    if (port_ == 0) ADD_FAILURE() << "podwait-sim did not start:\n" << process_->ReadLog();
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // POST /_sim/<what> with a JSON body; returns whether it answered 200.
  bool Post(const std::string& what, const std::string& body) {
    std::string out;
    const int rc =
        RunCommand({"curl", "-sS", "-f", "-X", "POST", "-H", "Content-Type: application/json",
                    "--data-binary", body, url() + "/_sim/" + what},
                   &out);
    EXPECT_EQ(rc, 0) << what << " " << body << ": " << out;
    return rc == 0;
  }
  // uid -> resourceVersion of the simulator's pods.
  std::map<std::string, std::string> Pods() {
    HttpResult r = HttpGet(port_, "/_sim/state?resource=pods");
    std::map<std::string, std::string> out;
    rapidjson::Document doc;
    doc.Parse(r.body.c_str());
    if (doc.HasParseError() || !doc.IsObject()) return out;
    for (const auto& p : doc["resources"]["pods"].GetArray()) {
      out[p["uid"].GetString()] = p["resourceVersion"].GetString();
    }
    return out;
  }

 private:
  std::string port_file_;
  int port_ = 0;
  std::unique_ptr<Subprocess> process_;
};

// Wraps the real client and records every request URL.
struct UrlLog {
  std::mutex mu;
  std::vector<std::string> urls;
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return urls;
  }
};
// Wraps the real multi client (the reflector's event loop) and records every request URL.
class RecordingHttp final : public AsyncHttp {
 public:
  explicit RecordingHttp(UrlLog* log) : log_(log), inner_(MakeCurlMultiHttp()) {}
  void Get(HttpRequest r, size_t max, Done done) override {
    Record(r);
    inner_->Get(std::move(r), max, std::move(done));
  }
  TransferId Fetch(HttpRequest r, size_t max, Done done) override {
    Record(r);
    return inner_->Fetch(std::move(r), max, std::move(done));
  }
  TransferId Stream(HttpRequest r, Data on_data, Done done) override {
    Record(r);
    return inner_->Stream(std::move(r), std::move(on_data), std::move(done));
  }
  void Cancel(TransferId id) override { inner_->Cancel(id); }
  void Run(int64_t wait_ms) override { inner_->Run(wait_ms); }
  void Wake() override { inner_->Wake(); }
  void SetMaxConnections(size_t n) override { inner_->SetMaxConnections(n); }
  size_t in_flight() const override { return inner_->in_flight(); }

 private:
  void Record(const HttpRequest& r) {
    std::lock_guard<std::mutex> lock(log_->mu);
    log_->urls.push_back(r.url);
  }
  UrlLog* log_;
  std::unique_ptr<AsyncHttp> inner_;
};

std::map<std::string, std::string> StorePods(const PodStore& store) {
  std::map<std::string, std::string> out;
  for (const auto& p : store.Snapshot()) out[p->uid] = p->resource_version;
  return out;
}

std::string PodOp(const std::string& name, const std::string& stage) {
  return R"({"pod":{"namespace":"tidb","name":")" + name +
         R"(","cluster":"basic","component":"tikv","stage":")" + stage + R"("}})";
}

class WatchPods : public ::testing::Test {
 protected:
  void StartSim(std::vector<std::string> extra = {}) {
    sim_ = std::make_unique<Sim>(extra);
    ASSERT_GT(sim_->port(), 0) << "podwait-sim did not start";
  }
  // The paged list unless `watch_list` (the paged list's protocol is what most tests look at).
  void StartReflector(int64_t page_size = 500, bool watch_list = false) {
    Config config;
    config.kube_api_url = sim_->url();
    auto ep = ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(config), ProcessEnv());
    ASSERT_TRUE(ep.ok()) << ep.error;
    ctx_.endpoint = *ep;
    ctx_.env.async_http = [this] { return std::make_unique<RecordingHttp>(&urls_); };
    ctx_.observers = MakeSelfMetricsReflectorObservers(metrics_);
    ctx_.sync = &sync_;
    if (tokens_) ctx_.tokens = tokens_.get();
    ReflectorOptions opts = PodReflectorOptions(config)[0];
    opts.page_size = page_size;
    opts.watch_list = watch_list;
    opts.backoff_initial_ms = backoff_initial_ms_;
    opts.backoff_max_ms = 2000;
    source_ = std::make_unique<PodSource>(store_, PodParseOptions::FromConfig(config));
    reflector_ = std::make_unique<Reflector>(ctx_, opts, *source_);
    reflector_->Start();
  }
  bool StoreEqualsSim(std::chrono::milliseconds timeout = 10s) {
    return WaitFor([&] { return StorePods(store_) == sim_->Pods(); }, timeout);
  }
  void TearDown() override {
    if (reflector_) reflector_->Stop();
  }
  double Restarts(const std::string& reason) {
    return metrics_.WatchRestarts("pods", reason).Value();
  }
  size_t CountUrls(const std::string& needle) {
    size_t n = 0;
    for (const auto& u : urls_.Get()) n += u.find(needle) != std::string::npos;
    return n;
  }

  std::unique_ptr<Sim> sim_;
  SelfMetrics metrics_;
  SyncStatus sync_;
  KubeContext ctx_;
  UrlLog urls_;
  std::unique_ptr<TokenSource> tokens_;
  int64_t backoff_initial_ms_ = 100;
  PodStore store_;
  std::unique_ptr<PodSource> source_;
  std::unique_ptr<Reflector> reflector_;
};

TEST_F(WatchPods, InitialSyncAcrossPages) {
  StartSim({"--generate-clusters", "7", "--pods-per-cluster", "30"});
  StartReflector(/*page_size=*/40);
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  EXPECT_TRUE(sync_.AllSynced());
  EXPECT_EQ(store_.Size(), 210u);
  EXPECT_TRUE(StoreEqualsSim());
  EXPECT_EQ(CountUrls("limit=40"), 6u);  // 210 pods in pages of 40
  EXPECT_EQ(CountUrls("continue="), 5u);
  EXPECT_EQ(metrics_.Objects("pods").Value(), 210);
  EXPECT_EQ(metrics_.WatchSynced("pods").Value(), 1);
  // The label selector reached the server: only tidb-operator pods are listed.
  EXPECT_EQ(CountUrls("labelSelector=app.kubernetes.io%2Fmanaged-by%3Dtidb-operator"),
            urls_.Get().size());
}

// The watch-list against the simulator as a Kubernetes 1.32+ API server serves it: one request
// is the sync (its initial events up to the end bookmark) and then the watch.
TEST_F(WatchPods, SyncByWatchList) {
  StartSim({"--generate-clusters", "7", "--pods-per-cluster", "30"});
  StartReflector(/*page_size=*/40, /*watch_list=*/true);
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  EXPECT_EQ(store_.Size(), 210u);
  EXPECT_TRUE(StoreEqualsSim());
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-0", "unschedulable")));
  ASSERT_TRUE(StoreEqualsSim());
  EXPECT_EQ(urls_.Get().size(), 1u);  // the sync and the watch: one request
  EXPECT_EQ(CountUrls("sendInitialEvents=true&resourceVersionMatch=NotOlderThan"), 1u);
  EXPECT_EQ(CountUrls("limit="), 0u);
  EXPECT_EQ(reflector_->lists(), 1u);
}

// A server with the WatchList feature off refuses the parameters (422): one refused request,
// then the paged list, and the watch from its version.
TEST_F(WatchPods, AServerThatRefusesTheWatchListIsListedInPages) {
  StartSim({"--generate-clusters", "7", "--pods-per-cluster", "30", "--watch-list", "off"});
  StartReflector(/*page_size=*/40, /*watch_list=*/true);
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  EXPECT_TRUE(StoreEqualsSim());
  EXPECT_EQ(CountUrls("sendInitialEvents=true"), 1u);
  EXPECT_EQ(CountUrls("limit=40"), 6u);
  ASSERT_TRUE(WaitFor([&] { return reflector_->watches() == 2; }, 10s));
  EXPECT_EQ(ctx_.watch_list->Get("/api/v1/pods"), WatchListSupport::State::kUnsupported);
}

// A server (or a proxy) that ignores the parameters answers with a plain watch: the state as
// ADDED events but no end bookmark, and then a regular bookmark: that is noticed, what the plain
// watch brought is dropped, and the sync is a paged list.
TEST_F(WatchPods, AServerThatIgnoresTheWatchListIsListedInPages) {
  StartSim({"--generate-clusters", "2", "--pods-per-cluster", "10", "--watch-list", "ignore"});
  StartReflector(/*page_size=*/40, /*watch_list=*/true);
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  EXPECT_TRUE(StoreEqualsSim());
  EXPECT_EQ(CountUrls("sendInitialEvents=true"), 1u);
  EXPECT_EQ(CountUrls("limit=40"), 1u);
  EXPECT_EQ(reflector_->lists(), 1u);
  EXPECT_EQ(ctx_.watch_list->Get("/api/v1/pods"), WatchListSupport::State::kUnsupported);
}

TEST_F(WatchPods, AddsUpdatesAndDeletes) {
  StartSim({"--generate-clusters", "2", "--pods-per-cluster", "5"});
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  ASSERT_TRUE(sim_->Post("apply", "[" + PodOp("basic-tikv-0", "unschedulable") + "," +
                                      PodOp("basic-tikv-1", "init") + "]"));
  ASSERT_TRUE(WaitFor([&] { return store_.Contains("tidb", "basic-tikv-1"); }, 10s));
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-0", "ready")));
  ASSERT_TRUE(sim_->Post("apply", R"({"delete":{"namespace":"tidb","name":"basic-tikv-1"}})"));
  ASSERT_TRUE(StoreEqualsSim());
  PodPtr p = store_.Get("tidb", "basic-tikv-0");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->IsReady());
  EXPECT_EQ(p->cluster, "basic");
  EXPECT_EQ(p->component, "tikv");
  EXPECT_FALSE(store_.Contains("tidb", "basic-tikv-1"));
  EXPECT_EQ(reflector_->lists(), 1u);
  EXPECT_GE(metrics_.WatchEvents("pods", "ADDED").Value(), 2);
  EXPECT_GE(metrics_.WatchEvents("pods", "DELETED").Value(), 1);
}

TEST_F(WatchPods, DroppedWatchResumesWithoutRelisting) {
  StartSim({"--generate-clusters", "1", "--pods-per-cluster", "5"});
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->watches() == 1 && reflector_->synced(); }, 20s));
  for (const char* mode : {"close", "reset"}) {
    const uint64_t watches = reflector_->watches();
    ASSERT_TRUE(
        sim_->Post("fault", std::string(R"({"fault":"drop_watches","mode":")") + mode + "\"}"));
    ASSERT_TRUE(WaitFor([&] { return reflector_->watches() > watches; }, 10s)) << mode;
  }
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-9", "pending")));
  ASSERT_TRUE(StoreEqualsSim());
  EXPECT_EQ(reflector_->lists(), 1u);
  EXPECT_EQ(metrics_.WatchRelists("pods").Value(), 0);
  EXPECT_EQ(CountUrls("limit="), 1u);
  // Every watch resumed from a resourceVersion, none from scratch.
  EXPECT_EQ(CountUrls("watch=true"), CountUrls("&resourceVersion="));
  EXPECT_EQ(CountUrls("resourceVersion=&"), 0u);
}

TEST_F(WatchPods, GoneWhileDisconnectedRelistsAndDropsGhosts) {
  StartSim({"--generate-clusters", "2", "--pods-per-cluster", "10"});
  backoff_initial_ms_ = 1500;  // a window of >= 750 ms while the watch is down
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced() && reflector_->watches() == 1; }, 20s));
  // Take the watch down: the next watch request fails, the reflector backs off.
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"status","code":500,"verb":"watch","count":1})"));
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"drop_watches"})"));
  ASSERT_TRUE(WaitFor([&] { return Restarts("server_error") >= 1; }, 10s));
  // Meanwhile: pods go and come, and the history the watch would resume from is compacted.
  auto before = sim_->Pods();
  std::string ops = "[";
  int n = 0;
  for (const auto& p : store_.Snapshot()) {
    if (n++ >= 4) break;
    ops += R"({"delete":{"namespace":")" + p->namespace_ + R"(","name":")" + p->name + "\"}},";
  }
  ops += PodOp("basic-tikv-7", "init") + "," + PodOp("basic-tikv-8", "init") + "]";
  ASSERT_TRUE(sim_->Post("apply", ops));
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"compact"})"));
  ASSERT_EQ(sim_->Pods().size(), before.size() - 4 + 2);
  ASSERT_TRUE(WaitFor([&] { return reflector_->lists() == 2; }, 10s));
  EXPECT_TRUE(StoreEqualsSim());  // no ghosts, nothing lost
  EXPECT_EQ(metrics_.WatchRelists("pods").Value(), 1);
  EXPECT_GE(Restarts("gone"), 1);
}

TEST_F(WatchPods, GoneAsAnErrorEventRelists) {
  StartSim({"--generate-clusters", "1", "--pods-per-cluster", "5"});
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced() && reflector_->watches() == 1; }, 20s));
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"gone","as":"event"})"));
  ASSERT_TRUE(WaitFor([&] { return reflector_->lists() >= 2; }, 10s));
  EXPECT_GE(metrics_.WatchEvents("pods", "ERROR").Value(), 1);
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-3", "init")));
  EXPECT_TRUE(StoreEqualsSim());
}

TEST_F(WatchPods, ThrottlingAndServerErrorsBackOff) {
  StartSim({"--generate-clusters", "1", "--pods-per-cluster", "3"});
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"status","code":429,"retryAfter":2,"verb":"list"})"));
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"status","code":500,"verb":"list"})"));
  const auto t0 = std::chrono::steady_clock::now();
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  // Retry-After: 2 was honoured before the second attempt.
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_EQ(Restarts("throttled"), 1);
  EXPECT_EQ(Restarts("server_error"), 1);
  EXPECT_EQ(CountUrls("limit="), 3u);
  EXPECT_TRUE(StoreEqualsSim());
}

TEST_F(WatchPods, MalformedLineAndOversizedObjectAreCountedAndSkipped) {
  StartSim({"--generate-clusters", "1", "--pods-per-cluster", "3"});
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced() && reflector_->watches() == 1; }, 20s));
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"malformed","resource":"pods"})"));
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-5", "init")));
  ASSERT_TRUE(WaitFor([&] { return store_.Contains("tidb", "basic-tikv-5"); }, 10s));
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 1);
  // An object bigger than the line limit (16 MiB by default): skipped, the stream goes on.
  ASSERT_TRUE(sim_->Post(
      "fault",
      R"({"fault":"oversized","resource":"pods","namespace":"tidb","name":"basic-tikv-5","bytes":17000000})"));
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-6", "init")));
  ASSERT_TRUE(WaitFor([&] { return store_.Contains("tidb", "basic-tikv-6"); }, 20s));
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 2);
  EXPECT_EQ(reflector_->lists(), 1u);
}

TEST_F(WatchPods, RotatedTokenIsPickedUp) {
  const std::string token_file = MakeTempDir() + "/token";
  { std::ofstream(token_file) << "token-one\n"; }
  StartSim({"--generate-clusters", "1", "--pods-per-cluster", "3", "--token-file", token_file});
  FakeClock clock;  // never advances: only a 401 can trigger a re-read
  tokens_ = std::make_unique<TokenSource>(token_file, clock);
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return reflector_->synced(); }, 20s));
  // The token rotates; the open watch is cut, the reconnect with the old token gets 401.
  { std::ofstream(token_file, std::ios::trunc) << "token-two\n"; }
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"drop_watches"})"));
  ASSERT_TRUE(WaitFor([&] { return Restarts("unauthorized") >= 1; }, 10s));
  ASSERT_TRUE(sim_->Post("apply", PodOp("basic-tikv-4", "init")));
  ASSERT_TRUE(WaitFor([&] { return store_.Contains("tidb", "basic-tikv-4"); }, 10s));
  EXPECT_EQ(tokens_->Token(), "token-two");
  EXPECT_EQ(reflector_->lists(), 1u);
}

TEST_F(WatchPods, StopsWithinASecondDuringAHangingRequest) {
  StartSim({"--generate-clusters", "1", "--pods-per-cluster", "3"});
  ASSERT_TRUE(sim_->Post("fault", R"({"fault":"hang","verb":"list","seconds":60})"));
  StartReflector();
  ASSERT_TRUE(WaitFor([&] { return CountUrls("limit=") == 1; }, 10s));
  std::this_thread::sleep_for(200ms);
  const auto t0 = std::chrono::steady_clock::now();
  reflector_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_FALSE(reflector_->synced());
}

}  // namespace
}  // namespace podwait::testing
