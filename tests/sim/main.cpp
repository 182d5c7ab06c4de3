// podwait-sim: a fake Kubernetes API server + PD API + kube-state-metrics endpoint driven by a
// scenario file. See tests/sim/README.md.
#include <malloc.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "exporter/common/clock.h"
#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "tests/sim/http_server.h"
#include "tests/sim/simulator.h"

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

constexpr const char* kUsage = R"(usage: podwait-sim [flags]
  --listen HOST:PORT          address to serve on (default 127.0.0.1:0; port 0 picks a free port)
  --port-file PATH            write the chosen port to PATH once listening
  --scenario PATH             scenario JSON file (optional)
  --manual                    steps run only via POST /_sim/advance
  --loop                      replay the story: after the scenario's "cycle" (default: the last
                              step + 15s) every object is removed and the story starts again
  --time-scale X              run the timeline X times faster (default 1)
  --token-file PATH           require "Authorization: Bearer <contents>" (re-read per request)
  --forbid-service-proxy      the PD Services' service proxy answers 403 Forbidden
  --bookmark-interval DUR     BOOKMARK interval on watches (default 10s)
  --gone-as event|http        how a too-old resourceVersion is answered (default http)
  --watch-timeout DUR         watch length when the client gives no timeoutSeconds (default 30m)
  --history N                 watch events kept for resuming (default 200000)
  --watch-list on|off|ignore  the watch-list (sendInitialEvents): served, refused with 422 (the
                              WatchList feature off), or ignored (a plain watch; default on)
  --rbac-namespaces A,B,...   the account may list and watch in these namespaces only (a
                              namespaced install's Roles): cluster-wide requests are 403
  --generate-clusters N       generate N TiDB clusters ...
  --pods-per-cluster M        ... with M pods each (default 100)
  --generate-shape v1|v2      ... as tidb-operator v1 or v2 makes them (default v1)
  --churn-per-second R        flip readiness of R running pods per second
  --seed N                    seed for uids (default 1)
  --log-level LEVEL           debug, info, warn, error (default info)
)";

bool ReadFileText(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace podwait;
  sim::SimOptions options;
  std::string listen = "127.0.0.1:0";
  std::string port_file;
  std::string scenario;
  int gen_clusters = 0;
  int pods_per_cluster = 100;
  sim::Simulator::Shape shape = sim::Simulator::Shape::kV1;
  LogLevel level = LogLevel::kInfo;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string v;
    size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto value = [&]() -> std::string {
      if (!v.empty()) return v;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto duration = [&]() -> int64_t {
      std::string text = value();
      auto d = ParseDuration(text);
      if (!d) {
        std::fprintf(stderr, "%s: bad duration %s\n", a.c_str(), text.c_str());
        std::exit(2);
      }
      return *d;
    };
    if (a == "--listen")
      listen = value();
    else if (a == "--port-file")
      port_file = value();
    else if (a == "--scenario")
      scenario = value();
    else if (a == "--manual")
      options.manual = true;
    else if (a == "--loop")
      options.loop = true;
    else if (a == "--time-scale")
      options.time_scale = std::atof(value().c_str());
    else if (a == "--token-file")
      options.token_file = value();
    else if (a == "--forbid-service-proxy")
      options.forbid_service_proxy = true;
    else if (a == "--bookmark-interval")
      options.bookmark_interval_ms = std::max<int64_t>(10, duration());
    else if (a == "--gone-as") {
      std::string g = value();
      if (g != "event" && g != "http") {
        std::fprintf(stderr, "--gone-as must be event or http\n");
        return 2;
      }
      options.gone_as_event = g == "event";
    } else if (a == "--watch-list") {
      const std::string w = value();
      if (w != "on" && w != "off" && w != "ignore") {
        std::fprintf(stderr, "--watch-list must be on, off or ignore\n");
        return 2;
      }
      options.watch_list = w == "on"    ? sim::SimOptions::WatchList::kOn
                           : w == "off" ? sim::SimOptions::WatchList::kOff
                                        : sim::SimOptions::WatchList::kIgnore;
    } else if (a == "--rbac-namespaces") {
      std::string list = value();
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) options.rbac_namespaces.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
      std::sort(options.rbac_namespaces.begin(), options.rbac_namespaces.end());
    } else if (a == "--watch-timeout")
      options.default_watch_timeout_s = duration() / 1000;
    else if (a == "--history")
      options.history = static_cast<size_t>(std::atoll(value().c_str()));
    else if (a == "--generate-clusters")
      gen_clusters = std::atoi(value().c_str());
    else if (a == "--pods-per-cluster")
      pods_per_cluster = std::atoi(value().c_str());
    else if (a == "--generate-shape") {
      const std::string shape_name = value();
      if (shape_name != "v1" && shape_name != "v2") {
        std::fprintf(stderr, "--generate-shape must be v1 or v2\n");
        return 2;
      }
      shape = shape_name == "v2" ? sim::Simulator::Shape::kV2 : sim::Simulator::Shape::kV1;
    } else if (a == "--churn-per-second")
      options.churn_per_second = std::atoll(value().c_str());
    else if (a == "--seed")
      options.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--log-level") {
      auto l = ParseLogLevel(value());
      if (!l) {
        std::fprintf(stderr, "bad --log-level\n");
        return 2;
      }
      level = *l;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "unknown flag %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  ConfigureLogging(level, LogFormat::kLogfmt);

  sim::Simulator simulator(options, SystemClock::Instance());
  std::string error;
  if (!scenario.empty()) {
    std::string text;
    if (!ReadFileText(scenario, &text)) {
      std::fprintf(stderr, "cannot read scenario %s\n", scenario.c_str());
      return 1;
    }
    if (!simulator.LoadScenario(text, &error)) {
      std::fprintf(stderr, "scenario %s: %s\n", scenario.c_str(), error.c_str());
      return 1;
    }
  }
  if (gen_clusters > 0) {
    auto t0 = std::chrono::steady_clock::now();
    if (!simulator.Generate(gen_clusters, pods_per_cluster, &error, shape)) {
      std::fprintf(stderr, "generate: %s\n", error.c_str());
      return 1;
    }
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    LogInfo("generated", {{"clusters", std::to_string(gen_clusters)},
                          {"pods", std::to_string(simulator.store().Count(sim::Resource::kPods))},
                          {"ms", std::to_string(ms)}});
  }

  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {
    std::fprintf(stderr, "--listen wants HOST:PORT\n");
    return 2;
  }
  sim::HttpServer server;
  if (!server.Listen(listen.substr(0, colon), std::atoi(listen.substr(colon + 1).c_str()),
                     &error)) {
    std::fprintf(stderr, "listen %s: %s\n", listen.c_str(), error.c_str());
    return 1;
  }
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  server.Start(
      [&simulator](const sim::Request& req, sim::Responder& resp) { simulator.Handle(req, resp); });
  simulator.Start();
  std::string host = listen.substr(0, colon);
  std::printf("listening %s:%d\n", host.c_str(), server.port());
  std::fflush(stdout);
  if (!port_file.empty()) {
    std::string tmp = port_file + ".tmp";
    {
      std::ofstream out(tmp);
      out << server.port() << "\n";
    }
    std::rename(tmp.c_str(), port_file.c_str());
  }
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  LogInfo("stopping");
  simulator.Stop();
  server.Stop();
  return 0;
}
