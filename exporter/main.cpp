// podwait-exporter: flags -> wiring -> serve -> wait for a signal.

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exporter/app/app.h"
#include "exporter/app/live_read.h"
#include "exporter/common/clock.h"
#include "exporter/common/log.h"
#include "exporter/config/flags.h"
#include "exporter/explain/explain.h"
#include "exporter/metrics/contract_json.h"
#include "podwait/version.h"

namespace {

// The allocator's defaults suit many busy threads, not a long-lived index of 100,000 small
// records next to short-lived snapshots and scrape buffers: one malloc arena per thread and a
// mmap threshold that rises to 32 MiB let freed scrape and list buffers stay resident as
// fragmentation (measured with 100,000 pods: ~60 MiB of RSS above the live heap; BENCHMARKS.md).
// One arena (the exporter needs about one core) and a fixed 64 KiB mmap threshold (large buffers
// go back to the kernel when freed) keep RSS near the live heap. MALLOC_ARENA_MAX or
// MALLOC_MMAP_THRESHOLD_ in the environment win over these.
void TuneAllocator() {
#ifdef __GLIBC__
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 1);
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr) mallopt(M_MMAP_THRESHOLD, 64 * 1024);
#endif
}

// explain's view of app/'s live read.
class LiveReadAdapter final : public podwait::LiveRead {
 public:
  explicit LiveReadAdapter(std::unique_ptr<podwait::LiveCluster> cluster)
      : cluster_(std::move(cluster)) {}
  std::optional<podwait::PodKeys> Selected() const override { return cluster_->Selected(); }
  void Refresh(podwait::Pipeline& pipeline) override { cluster_->Refresh(pipeline); }

 private:
  std::unique_ptr<podwait::LiveCluster> cluster_;
};

podwait::Result<std::unique_ptr<podwait::LiveRead>> ReadLive(podwait::Config* config,
                                                             const podwait::LiveRequest& request,
                                                             podwait::Pipeline& pipeline) {
  podwait::LiveReadOptions options;
  options.context_namespace = request.context_namespace;
  options.label_selector = request.label_selector;
  options.timeout = request.timeout;
  options.keep_watching = request.watch;
  auto cluster = podwait::ReadCluster(config, options, pipeline);
  if (!cluster.ok())
    return podwait::Result<std::unique_ptr<podwait::LiveRead>>::Fail(cluster.error);
  return podwait::Result<std::unique_ptr<podwait::LiveRead>>::Ok(
      std::make_unique<LiveReadAdapter>(std::move(*cluster)));
}

// -w ends on SIGINT or SIGTERM: the handler writes to a pipe that the wait polls.
int g_stop_pipe[2] = {-1, -1};

void OnStopSignal(int) {
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = write(g_stop_pipe[1], &byte, 1);
}

void CatchStopSignals() {
  if (pipe2(g_stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool WaitForStop(podwait::Timestamp ms) {
  pollfd fd{g_stop_pipe[0], POLLIN, 0};
  return poll(&fd, 1, static_cast<int>(ms)) > 0;
}

// `explain` and `kubectl podwait` (this binary installed as kubectl-podwait: kubectl runs a
// plugin by that name with the arguments after "podwait"), which is explain --live.
int Explain(std::vector<std::string> args, bool as_plugin) {
  podwait::ExplainEnvironment env;
  env.color = podwait::UseColor(isatty(STDOUT_FILENO) == 1, std::getenv("NO_COLOR"));
  env.live = ReadLive;
  env.catch_stop = CatchStopSignals;
  env.wait_for_stop = WaitForStop;
  if (as_plugin) {
    env.program = "kubectl podwait";
    env.live_by_default = true;
  }
  // A command-line tool: the reflectors' and the prober's warnings only (a list that fails).
  podwait::ConfigureLogging(podwait::LogLevel::kWarn, podwait::LogFormat::kLogfmt);
  return podwait::RunExplain(args, std::cin, std::cout, std::cerr, env);
}

bool InvokedAsPlugin(const char* argv0) {
  const std::string name(argv0 == nullptr ? "" : argv0);
  return name.substr(name.find_last_of('/') + 1) == "kubectl-podwait";
}

}  // namespace

int main(int argc, char** argv) {
  TuneAllocator();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (InvokedAsPlugin(argv[0])) return Explain(args, true);
  if (!args.empty() && args[0] == "explain") {
    return Explain(std::vector<std::string>(args.begin() + 1, args.end()), false);
  }
  if (!args.empty() && args[0] == "contract") {
    if (args.size() > 1) {
      std::fprintf(stderr,
                   "usage: podwait-exporter contract\n\nPrints the stages, classes, reasons, "
                   "metric families, tidb-operator v2 kinds and autoscalers as JSON.\n");
      return args[1] == "-h" || args[1] == "--help" ? 0 : 2;
    }
    std::fputs(podwait::RenderContractJson().c_str(), stdout);
    return 0;
  }
  podwait::Result<podwait::ParsedConfig> parsed = podwait::ParseFlags(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "podwait-exporter: error: %s\n", parsed.error.c_str());
    return 2;
  }
  switch (parsed->action) {
    case podwait::FlagAction::kHelp:
      std::fputs(podwait::FlagUsage().c_str(), stdout);
      return 0;
    case podwait::FlagAction::kVersion:
      std::printf("podwait-exporter, version %s (revision: %s)\n", podwait::kVersion,
                  podwait::kRevision);
      return 0;
    case podwait::FlagAction::kRun:
      break;
  }
  if (!parsed->positional.empty()) {
    std::fprintf(stderr, "podwait-exporter: error: unexpected argument \"%s\" (see --help)\n",
                 parsed->positional[0].c_str());
    return 2;
  }
  podwait::ConfigureLogging(parsed->config.log_level, parsed->config.log_format);

  // Block the stop signals in every thread; the main thread waits for them with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  podwait::LogInfo("starting podwait-exporter",
                   {{"version", podwait::kVersion}, {"revision", podwait::kRevision}});
  podwait::App app(parsed->config, podwait::SystemClock::Instance());
  if (podwait::Result<bool> started = app.Start(); !started.ok()) {
    podwait::LogError("cannot start", {{"err", started.error}});
    return 1;
  }
  int sig = 0;
  sigwait(&stop_signals, &sig);
  podwait::LogInfo("stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
  app.Stop();
  podwait::LogInfo("stopped");
  return 0;
}
