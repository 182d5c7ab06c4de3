// Every list and watch of the exporter on one HTTP/2 connection, and what happens when that
// connection drops: the reflectors of 24 namespaces (one event loop, the real libcurl multi
// client) against the simulator behind nghttpx, the HTTP/2 front (TLS, ALPN h2) an API server
// has. They sync by watch-list over one TCP connection; nghttpx is killed and started again on
// its port; every watch resumes from its resourceVersion (no second sync) on one new connection.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "exporter/common/json.h"
#include "exporter/kube/reflector.h"
#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kNamespaces = 24;

// Established TCP connections of this process to 127.0.0.1:port (from /proc/net/tcp: every
// socket of the network namespace, so the peer's side is counted too when it is in this
// process; here the server is another process, and its side has the port as local port).
size_t ConnectionsTo(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  size_t n = 0;
  char want[8];
  std::snprintf(want, sizeof(want), "%04X", port);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state == "01" && remote.size() > 5 && remote.substr(remote.size() - 4) == want) ++n;
  }
  return n;
}

// nghttpx before the simulator: TLS with a self-signed certificate for 127.0.0.1, HTTP/2 to the
// client, HTTP/1.1 to the simulator; timeouts long enough for watches.
class H2Front {
 public:
  H2Front(int backend_port, const std::string& dir)
      : backend_port_(backend_port),
        port_(FreePort()),
        key_(dir + "/h2.key"),
        crt_(dir + "/h2.crt") {
    std::string out;
    const int rc = RunCommand(OpensslReq({"-keyout", key_, "-out", crt_, "-subj", "/CN=127.0.0.1",
                                          "-addext", "subjectAltName=IP:127.0.0.1"}),
                              &out);
    EXPECT_EQ(rc, 0) << out;
    Start();
  }
  void Start() {
    process_ = std::make_unique<Subprocess>(std::vector<std::string>{
        "nghttpx", "--frontend=127.0.0.1," + std::to_string(port_),
        "--backend=127.0.0.1," + std::to_string(backend_port_), "--workers=1",
        "--frontend-http2-max-concurrent-streams=1000", "--frontend-http2-read-timeout=1h",
        "--frontend-read-timeout=1h", "--stream-read-timeout=0", "--stream-write-timeout=0",
        "--backend-read-timeout=1h", "--backend-write-timeout=1h", "--no-ocsp", "--no-via",
        "--conf=/dev/null", "--log-level=WARN", key_, crt_});
    ASSERT_TRUE(WaitFor(
        [&] {
          const int fd = ConnectLoopback(port_);
          if (fd >= 0) ::close(fd);
          return fd >= 0;
        },
        20s))
        << process_->ReadLog();
  }
  void Kill() {
    process_->Signal(SIGKILL);
    process_->Wait(5s);
  }
  int port() const { return port_; }
  const std::string& ca() const { return crt_; }

 private:
  int backend_port_;
  int port_;
  std::string key_, crt_;
  std::unique_ptr<Subprocess> process_;
};

class Names final : public ReflectorHandler {
 public:
  void OnListBegin() override {}
  bool OnListItem(const rapidjson::Value&) override { return true; }
  void OnListEnd(const std::string&) override {}
  void OnListAbort() override {}
  bool OnEvent(WatchEventType, const rapidjson::Value&) override {
    ++events;
    return true;
  }
  std::atomic<int> events{0};
};

TEST(WatchH2, OneConnectionForEveryWatchAndEveryWatchResumesWhenItDrops) {
  std::string found;
  if (RunCommand({"sh", "-c", "command -v nghttpx"}, &found) != 0) {
    GTEST_FAIL() << "nghttpx is missing (scripts/setup.sh test installs nghttp2-proxy)";
  }
  const std::string dir = MakeTempDir();
  const std::string port_file = dir + "/sim.port";
  Subprocess sim({BinaryPath("podwait-sim"), "--listen", "127.0.0.1:0", "--port-file", port_file,
                  "--log-level", "warn", "--bookmark-interval", "1s", "--generate-clusters",
                  std::to_string(kNamespaces), "--pods-per-cluster", "4", "--churn-per-second",
                  "20"});
  int sim_port = 0;
  ASSERT_TRUE(
      WaitFor([&] { return static_cast<bool>(std::ifstream(port_file) >> sim_port); }, 60s));
  H2Front front(sim_port, dir);

  SyncStatus sync;
  KubeContext ctx;
  ctx.endpoint.api_url = "https://127.0.0.1:" + std::to_string(front.port());
  ctx.endpoint.tls.ca_file = front.ca();
  ctx.sync = &sync;
  ctx.loop = std::make_shared<KubeLoop>(ctx.env.async_http);
  std::vector<std::unique_ptr<Names>> handlers;
  std::vector<std::unique_ptr<Reflector>> reflectors;
  for (int i = 0; i < kNamespaces; ++i) {
    char ns[16];
    std::snprintf(ns, sizeof(ns), "load-%04d", i);
    ReflectorOptions o;
    o.resource = "pods";
    o.name = std::string("pods/") + ns;
    o.path = std::string("/api/v1/namespaces/") + ns + "/pods";
    o.backoff_initial_ms = 200;
    handlers.push_back(std::make_unique<Names>());
    reflectors.push_back(std::make_unique<Reflector>(ctx, o, *handlers.back()));
  }
  for (auto& r : reflectors) r->Start();
  ASSERT_TRUE(WaitFor([&] { return sync.AllSynced(); }, 30s));
  EXPECT_EQ(ConnectionsTo(front.port()), 1u);  // 24 watch-lists, then 24 watches: one connection

  std::vector<std::string> before;
  for (auto& r : reflectors) before.push_back(r->resource_version());
  front.Kill();
  front.Start();
  // Every watch comes back (a new watch request each), with no second sync, on one connection.
  ASSERT_TRUE(WaitFor(
      [&] {
        for (auto& r : reflectors) {
          if (r->watches() < 2) return false;
        }
        return true;
      },
      30s));
  const int events_before = [&] {
    int n = 0;
    for (auto& h : handlers) n += h->events;
    return n;
  }();
  ASSERT_TRUE(WaitFor(
      [&] {
        int n = 0;
        for (auto& h : handlers) n += h->events;
        return n > events_before + 20;
      },
      20s));  // the churn reaches the resumed watches
  for (size_t i = 0; i < reflectors.size(); ++i) {
    EXPECT_EQ(reflectors[i]->lists(), 1u) << i;  // resumed, not listed again
    EXPECT_GE(std::stoull(reflectors[i]->resource_version()), std::stoull(before[i])) << i;
  }
  EXPECT_TRUE(sync.AllSynced());
  EXPECT_EQ(ConnectionsTo(front.port()), 1u);
  for (auto& r : reflectors) r->Stop();
  ctx.loop->Stop();
}

}  // namespace
}  // namespace podwait::testing
