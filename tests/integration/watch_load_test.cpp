// An initial sync of many simulated pods through Reflector + PodSource + PodStore against
// podwait-sim: the store must equal the simulator's pods exactly. The time taken and the peak RSS
// of this process are reported as test properties (never asserted: docs/DESIGN.md §8 numbers go in
// BENCHMARKS.md). PODWAIT_LOAD_PODS sets the number of pods (default 20000; 100 per cluster),
// e.g. PODWAIT_LOAD_PODS=100000 for the docs/DESIGN.md §8 scale.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "exporter/app/observers.h"
#include "exporter/app/options.h"
#include "exporter/kube/reflector.h"
#include "exporter/sources/pods.h"
#include "exporter/state/pod_store.h"
#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using namespace std::chrono_literals;

// A field of /proc/self/status in KiB (VmRSS, VmHWM).
long StatusKiB(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  }
  return -1;
}

TEST(WatchLoad, InitialSyncOfManyPodsEqualsTheSimulator) {
  long pods_wanted = 20000;
  if (const char* env = std::getenv("PODWAIT_LOAD_PODS")) pods_wanted = std::atol(env);
  const long clusters = std::max(1L, pods_wanted / 100);

  const std::string port_file = MakeTempDir() + "/port";
  Subprocess sim({BinaryPath("podwait-sim"), "--listen", "127.0.0.1:0", "--port-file", port_file,
                  "--log-level", "warn", "--generate-clusters", std::to_string(clusters),
                  "--pods-per-cluster", "100"});
  int port = 0;
  ASSERT_TRUE(WaitFor(
      [&] {
        std::ifstream in(port_file);
        return static_cast<bool>(in >> port);
      },
      120s))
      << sim.ReadLog();

  Config config;
  config.kube_api_url = "http://127.0.0.1:" + std::to_string(port);
  KubeContext ctx;
  ctx.endpoint = *ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(config), ProcessEnv());
  SelfMetrics metrics;
  SyncStatus sync;
  ctx.observers = MakeSelfMetricsReflectorObservers(metrics);
  ctx.sync = &sync;
  PodStore store;
  PodSource source(store, PodParseOptions::FromConfig(config));
  Reflector reflector(ctx, PodReflectorOptions(config)[0], source);

  { std::ofstream("/proc/self/clear_refs") << "5"; }  // resets VmHWM to the current RSS
  const long rss_before = StatusKiB("VmRSS");
  const auto t0 = std::chrono::steady_clock::now();
  reflector.Start();
  ASSERT_TRUE(WaitFor([&] { return reflector.synced(); }, 300s));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long hwm = StatusKiB("VmHWM");
  const long rss_after = StatusKiB("VmRSS");

  EXPECT_EQ(static_cast<long>(store.Size()), clusters * 100);
  // Exactly the simulator's pods, by uid and resourceVersion.
  HttpResult state = HttpGet(port, "/_sim/state?resource=pods");
  rapidjson::Document doc;
  doc.Parse(state.body.c_str());
  ASSERT_FALSE(doc.HasParseError());
  size_t matched = 0;
  for (const auto& p : doc["resources"]["pods"].GetArray()) {
    PodPtr mine = store.Get(p["namespace"].GetString(), p["name"].GetString());
    if (mine != nullptr && mine->uid == p["uid"].GetString() &&
        mine->resource_version == p["resourceVersion"].GetString()) {
      ++matched;
    }
  }
  EXPECT_EQ(matched, store.Size());
  reflector.Stop();

  ::testing::Test::RecordProperty("pods", std::to_string(store.Size()));
  ::testing::Test::RecordProperty("sync_ms", std::to_string(static_cast<long>(seconds * 1000)));
  ::testing::Test::RecordProperty("rss_before_kib", std::to_string(rss_before));
  ::testing::Test::RecordProperty("peak_rss_kib", std::to_string(hwm));
  ::testing::Test::RecordProperty("rss_after_kib", std::to_string(rss_after));
  std::cout << "initial sync: " << store.Size() << " pods in " << seconds << " s; RSS before "
            << rss_before / 1024 << " MiB, peak " << hwm / 1024 << " MiB, after "
            << rss_after / 1024 << " MiB (test process: reflector + store)\n";
}

}  // namespace
}  // namespace podwait::testing
