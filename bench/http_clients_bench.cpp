// The HTTP server (real civetweb on loopback) answering /healthz while idle and slow clients hold
// connections (tests/support/tcp_clients.h), for several worker-thread counts and request
// timeouts. Each iteration is one GET with the 2 s timeout of the requirement; `failed` counts the
// ones that did not answer in time, `rss_mb` is the process's resident memory with the server up.
// Bounded: a fixed number of iterations per case.
//
//   build/bench/http_clients_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "exporter/http/server.h"
#include "exporter/net/http_client.h"
#include "tests/support/tcp_clients.h"

namespace podwait {
namespace {

double RssMb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  }
  return 0;
}

// Args: worker threads, request timeout (ms), idle clients, slow clients.
void BM_HealthzWithMisbehavingClients(benchmark::State& state) {
  HttpServerLimits limits;
  limits.worker_threads = static_cast<int>(state.range(0));
  limits.request_timeout_ms = static_cast<int>(state.range(1));
  HttpServer server(limits);
  server.Handle("/healthz", [](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.body = "ok\n";
    return reply;
  });
  if (Result<bool> started = server.Start({"127.0.0.1:0"}); !started.ok()) {
    state.SkipWithError(started.error.c_str());
    return;
  }
  testing::MisbehavingClients clients(server.port(), static_cast<int>(state.range(2)),
                                      static_cast<int>(state.range(3)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the server take them
  auto http = MakeCurlHttpClient();
  HttpRequest request;
  request.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/healthz";
  request.timeout_ms = 2000;
  request.connect_timeout_ms = 2000;
  int failed = 0;
  for (auto _ : state) {
    HttpResponse r = http->Get(request);
    if (!r.ok()) ++failed;
  }
  state.counters["failed"] = failed;
  state.counters["rss_mb"] = RssMb();
  server.Stop();
}
BENCHMARK(BM_HealthzWithMisbehavingClients)
    ->ArgNames({"threads", "timeout_ms", "idle", "slow"})
    ->Args({4, 30000, 0, 0})
    ->Args({4, 30000, 4, 0})
    ->Args({4, 30000, 0, 4})
    ->Args({64, 5000, 32, 16})
    ->Args({64, 5000, 48, 16})
    ->Args({128, 5000, 0, 0})
    ->Args({128, 5000, 32, 16})
    ->Args({128, 5000, 96, 16})
    ->Args({128, 5000, 112, 16})
    ->Args({256, 5000, 0, 0})
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace podwait

BENCHMARK_MAIN();
