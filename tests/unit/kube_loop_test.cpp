// The event loop with many watches (exporter/kube/kube_loop.h) on the real libcurl multi client,
// against a loopback server (the simulator's HTTP server): a watch that stalls does not delay the
// others, and every reflector of the loop stops at once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "exporter/common/json.h"
#include "exporter/kube/reflector.h"
#include "tests/sim/http_server.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using namespace std::chrono_literals;

std::string Pod(const std::string& ns, const std::string& name, int rv) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","resourceVersion":")" + std::to_string(rv) + R"("}})";
}

// Namespace "stall-*" answers its watch with headers and then nothing, forever; every other
// namespace's watch-list sends its pod and the end bookmark at once and then stays open.
class WatchServer {
 public:
  WatchServer() {
    std::string error;
    listening_ = server_.Listen("127.0.0.1", 0, &error);
    server_.Start([this](const sim::Request& req, sim::Responder& resp) { Serve(req, resp); });
  }
  ~WatchServer() {
    stop_ = true;
    server_.Stop();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
  bool listening() const { return listening_; }

 private:
  void Serve(const sim::Request& req, sim::Responder& resp) {
    // /api/v1/namespaces/<ns>/pods
    const std::string ns =
        req.path.substr(std::string("/api/v1/namespaces/").size(), req.path.find("/pods") - 19);
    resp.BeginChunked(200, "application/json");
    if (ns.rfind("stall-", 0) != 0) {
      resp.WriteChunk(R"({"type":"ADDED","object":)" + Pod(ns, "p-" + ns, 5) + "}\n" +
                      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1",)"
                      R"("metadata":{"resourceVersion":"6","annotations":)"
                      R"({"k8s.io/initial-events-end":"true"}}}})" +
                      "\n");
    }
    while (!stop_ && !resp.PeerGone()) std::this_thread::sleep_for(20ms);
  }

  sim::HttpServer server_;
  bool listening_ = false;
  std::atomic<bool> stop_{false};
};

class NameHandler final : public ReflectorHandler {
 public:
  void OnListBegin() override {}
  bool OnListItem(const rapidjson::Value& o) override {
    std::lock_guard<std::mutex> lock(mu_);
    names_.insert(std::string(json::Str(json::Object(&o, "metadata"), "name")));
    return true;
  }
  void OnListEnd(const std::string&) override {}
  void OnListAbort() override {}
  bool OnEvent(WatchEventType, const rapidjson::Value&) override { return true; }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return names_.size();
  }

 private:
  mutable std::mutex mu_;
  std::set<std::string> names_;
};

TEST(KubeLoop, AStalledWatchDoesNotDelayTheOthers) {
  WatchServer server;
  ASSERT_TRUE(server.listening());
  SyncStatus sync;
  KubeContext ctx;
  ctx.endpoint.api_url = server.url();
  ctx.sync = &sync;
  ctx.loop = std::make_shared<KubeLoop>(ctx.env.async_http);
  constexpr int kNamespaces = 40;
  std::vector<std::unique_ptr<NameHandler>> handlers;
  std::vector<std::unique_ptr<Reflector>> reflectors;
  for (int i = 0; i < kNamespaces; ++i) {
    // Every fourth namespace stalls.
    const std::string ns = (i % 4 == 0 ? "stall-" : "ns-") + std::to_string(i);
    ReflectorOptions o;
    o.resource = "pods";
    o.name = "pods/" + ns;
    o.path = "/api/v1/namespaces/" + ns + "/pods";
    o.watch_list_idle_ms = 60'000;  // the stalled ones stay stalled for the test
    handlers.push_back(std::make_unique<NameHandler>());
    reflectors.push_back(std::make_unique<Reflector>(ctx, o, *handlers.back()));
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& r : reflectors) r->Start();
  // Every namespace that answers is synced within a second or two, all on one loop thread.
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        for (int i = 0; i < kNamespaces; ++i) {
          if (i % 4 != 0 && !reflectors[i]->synced()) return false;
        }
        return true;
      },
      10s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  for (int i = 0; i < kNamespaces; ++i) {
    EXPECT_EQ(reflectors[i]->synced(), i % 4 != 0) << i;
    EXPECT_EQ(handlers[i]->size(), i % 4 != 0 ? 1u : 0u) << i;
  }
  EXPECT_FALSE(sync.AllSynced());  // the stalled ones hold /readyz, as they should
  // Stopping every reflector of the loop is prompt.
  const auto t1 = std::chrono::steady_clock::now();
  for (auto& r : reflectors) r->Stop();
  ctx.loop->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t1, 2s);
}

// Posted tasks run in order on the loop thread; Call() waits for its task; timers fire in order
// of their due time, and a cancelled one never fires.
TEST(KubeLoop, TasksAndTimers) {
  KubeLoop loop(MakeCurlMultiHttp);
  loop.Start();
  std::mutex mu;
  std::vector<std::string> ran;
  auto note = [&](std::string what) {
    std::lock_guard<std::mutex> lock(mu);
    ran.push_back(std::move(what));
  };
  loop.Call([&] {
    EXPECT_TRUE(loop.OnLoopThread());
    loop.After(60, [&] { note("timer 60"); });
    const KubeLoop::TimerId cancelled = loop.After(30, [&] { note("cancelled"); });
    loop.After(20, [&] { note("timer 20"); });
    loop.CancelTimer(cancelled);
  });
  loop.Post([&] { note("posted"); });
  EXPECT_FALSE(loop.OnLoopThread());
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        std::lock_guard<std::mutex> lock(mu);
        return ran.size() == 3;
      },
      5s));
  loop.Stop();
  EXPECT_THAT(ran, ::testing::ElementsAre("posted", "timer 20", "timer 60"));
}

}  // namespace
}  // namespace podwait
