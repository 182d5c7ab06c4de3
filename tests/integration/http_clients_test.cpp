// Defect 3: four idle TCP connections stalled the HTTP server for ~30 s (4 worker threads, 30 s
// request timeout), so /metrics and /healthz timed out and a liveness probe would restart the pod.
// Here 32 idle and 16 slow (one byte a second) clients stay connected, reconnecting whenever the
// server drops them, while /metrics and /healthz must keep answering within the 2 s the
// requirement gives (the client's timeout; no other timing is asserted).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "exporter/net/http_client.h"
#include "tests/support/process.h"
#include "tests/support/tcp_clients.h"

namespace podwait::testing {
namespace {

using namespace std::chrono_literals;

TEST(HttpClients, MetricsAndHealthzAnswerWhileIdleAndSlowClientsHoldConnections) {
  const int port = FreePort();
  // An API server that refuses connections: the exporter serves anyway.
  const RefusingPort refusing;
  Subprocess exporter({BinaryPath("podwait-exporter"),
                       "--web.listen-address=127.0.0.1:" + std::to_string(port),
                       "--kube.api-url=http://127.0.0.1:" + std::to_string(refusing.port())});
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/healthz").status == 200; }, 20s))
      << exporter.ReadLog();

  MisbehavingClients clients(port, /*idle=*/32, /*slow=*/16);
  ASSERT_EQ(clients.open(), 48);
  auto http = MakeCurlHttpClient();
  auto get = [&](const std::string& path) {
    HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port) + path;
    request.timeout_ms = 2000;
    request.connect_timeout_ms = 2000;
    return http->Get(request);
  };
  // Longer than the server's request timeout, so clients are dropped and come back meanwhile.
  const auto until = std::chrono::steady_clock::now() + 12s;
  int rounds = 0;
  while (std::chrono::steady_clock::now() < until) {
    for (const char* path : {"/metrics", "/healthz"}) {
      HttpResponse r = get(path);
      EXPECT_EQ(r.error, "") << path << " round " << rounds;
      EXPECT_EQ(r.status, 200) << path << " round " << rounds;
    }
    ++rounds;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_GE(clients.open(), 40) << "the misbehaving clients stayed connected";
  EXPECT_TRUE(exporter.Running());
}

}  // namespace
}  // namespace podwait::testing
