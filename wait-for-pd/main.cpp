// wait-for-pd: an init container that blocks until the TiDB cluster's PD is ready.
//
//   wait-for-pd --leader        (TiKV: PD has a leader)
//   wait-for-pd --initialized   (TiDB: PD's cluster/status says is_initialized; PD < 3.0 falls
//                                back to the leader wait with a warning)
//
// Exit 0 when ready; 1 when --timeout passes or on SIGTERM/SIGINT (with a short reason written to
// the termination log, which Kubernetes shows in the pod status); 2 on bad flags.

#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "exporter/net/http_client.h"
#include "exporter/pd/wait.h"
#include "podwait/version.h"

namespace {

constexpr const char* kUsage = R"(usage: wait-for-pd (--leader | --initialized) [flags]

Blocks until the TiDB cluster's PD is ready, then exits 0.

  --leader                 wait until PD has a leader (for TiKV)
  --initialized            wait until PD's cluster/status says is_initialized (for TiDB); a PD
                           that does not report it (PD < 3.0) falls back to the leader wait
  --pd-url URL             PD address (default: from the environment NAMESPACE and CLUSTER_NAME,
                           http://<cluster>-pd.<namespace>:2379, https with --pd.tls.ca-file)
  --timeout DURATION       give up after this long (exit 1); default 0 = wait forever
  --request-timeout DUR    timeout of each PD request (default 5s)
  --interval DURATION      pause between tries (default 1s, at least 100ms)
  --pd.tls.ca-file PATH    CA to verify PD
  --pd.tls.cert-file PATH  client certificate for PD mTLS
  --pd.tls.key-file PATH   client key for PD mTLS
  --termination-log PATH   where the reason goes when giving up (default /dev/termination-log)
  --log.level LEVEL        debug, info, warn, error (default info)
  --log.format FORMAT      logfmt or json (default logfmt)
  --version                print the version and exit
  -h, --help               this text

Durations are Go-style: 90s, 5m, 1h30m. The PD URL must be http:// or https://.
)";

// Below this, --interval would make wait-for-pd a busy loop against PD (--interval=0 spun).
constexpr int64_t kMinIntervalMs = 100;

std::atomic<bool> g_stop{false};
std::mutex g_mu;
std::condition_variable g_cv;

void OnSignal(int) { g_stop.store(true); }

struct Flags {
  std::optional<podwait::PdWaitMode> mode;
  std::string pd_url;
  int64_t timeout_ms = 0;
  int64_t request_timeout_ms = 5000;
  int64_t interval_ms = 1000;
  podwait::TlsOptions tls;
  std::string termination_log = "/dev/termination-log";
  podwait::LogLevel log_level = podwait::LogLevel::kInfo;
  podwait::LogFormat log_format = podwait::LogFormat::kLogfmt;
  bool help = false;
  bool version = false;
};

// Returns an error message, or "" when the flags are fine.
std::string ParseArgs(int argc, char** argv, Flags* f) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> inline_value;
    if (name.rfind("--", 0) == 0) {
      auto eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
    }
    auto value = [&](std::string* out) -> std::string {
      if (inline_value) {
        *out = *inline_value;
        return "";
      }
      if (i + 1 >= args.size()) return "flag " + name + " needs a value";
      *out = args[++i];
      return "";
    };
    auto duration = [&](int64_t* out) -> std::string {
      std::string v;
      if (auto e = value(&v); !e.empty()) return e;
      auto d = podwait::ParseDuration(v);
      if (!d) return "flag " + name + " expects a duration like 5s or 2m, got \"" + v + "\"";
      *out = *d;
      return "";
    };
    std::string err;
    if (name == "-h" || name == "--help") {
      f->help = true;
    } else if (name == "--version") {
      f->version = true;
    } else if (name == "--leader" || name == "--initialized") {
      auto mode =
          name == "--leader" ? podwait::PdWaitMode::kLeader : podwait::PdWaitMode::kInitialized;
      if (f->mode && *f->mode != mode) return "use either --leader or --initialized, not both";
      f->mode = mode;
    } else if (name == "--pd-url") {
      err = value(&f->pd_url);
    } else if (name == "--timeout") {
      err = duration(&f->timeout_ms);
    } else if (name == "--request-timeout") {
      err = duration(&f->request_timeout_ms);
      if (err.empty() && f->request_timeout_ms <= 0) err = "--request-timeout must be positive";
    } else if (name == "--interval") {
      err = duration(&f->interval_ms);
      if (err.empty() && f->interval_ms < kMinIntervalMs) {
        err = "--interval must be at least " + std::to_string(kMinIntervalMs) + "ms";
      }
    } else if (name == "--pd.tls.ca-file") {
      err = value(&f->tls.ca_file);
    } else if (name == "--pd.tls.cert-file") {
      err = value(&f->tls.cert_file);
    } else if (name == "--pd.tls.key-file") {
      err = value(&f->tls.key_file);
    } else if (name == "--termination-log") {
      err = value(&f->termination_log);
    } else if (name == "--log.level") {
      std::string v;
      err = value(&v);
      auto l = podwait::ParseLogLevel(v);
      if (err.empty() && !l) err = "flag --log.level expects debug, info, warn or error";
      if (l) f->log_level = *l;
    } else if (name == "--log.format") {
      std::string v;
      err = value(&v);
      auto l = podwait::ParseLogFormat(v);
      if (err.empty() && !l) err = "flag --log.format expects logfmt or json";
      if (l) f->log_format = *l;
    } else {
      return "unknown flag " + name;
    }
    if (!err.empty()) return err;
  }
  if (f->help || f->version) return "";
  if (!f->mode) return "one of --leader or --initialized is required";
  if (f->tls.cert_file.empty() != f->tls.key_file.empty()) {
    return "--pd.tls.cert-file and --pd.tls.key-file go together";
  }
  if (f->pd_url.empty()) {
    const char* ns = std::getenv("NAMESPACE");
    const char* cluster = std::getenv("CLUSTER_NAME");
    if (ns == nullptr || cluster == nullptr || *ns == '\0' || *cluster == '\0') {
      return "no PD address: pass --pd-url or set NAMESPACE and CLUSTER_NAME";
    }
    const char* scheme = f->tls.ca_file.empty() ? "http" : "https";
    f->pd_url = std::string(scheme) + "://" + cluster + "-pd." + ns + ":2379";
  }
  while (!f->pd_url.empty() && f->pd_url.back() == '/') f->pd_url.pop_back();
  if (std::string scheme_error; !podwait::CheckUrlScheme(f->pd_url, &scheme_error)) {
    return "--pd-url: " + scheme_error;
  }
  return "";
}

void WriteTerminationLog(const std::string& path, const std::string& reason) {
  if (path.empty()) return;
  std::ofstream out(path, std::ios::trunc);
  if (out) out << reason << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::string error = ParseArgs(argc, argv, &flags);
  if (flags.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (flags.version && error.empty()) {
    std::printf("wait-for-pd, version %s (revision: %s)\n", podwait::kVersion, podwait::kRevision);
    return 0;
  }
  if (!error.empty()) {
    std::fprintf(stderr, "wait-for-pd: %s\n\n%s", error.c_str(), kUsage);
    return 2;
  }
  podwait::ConfigureLogging(flags.log_level, flags.log_format);

  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  podwait::PdWaitOptions options;
  options.mode = *flags.mode;
  options.client.base_url = flags.pd_url;
  options.client.tls = flags.tls;
  options.client.timeout_ms = flags.request_timeout_ms;
  options.interval_ms = flags.interval_ms;
  options.deadline_ms = flags.timeout_ms;

  auto http = podwait::MakeCurlHttpClient();
  // Sleeps in small steps so a signal ends the wait promptly.
  auto sleep_ms = [](int64_t ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!g_stop.load() && std::chrono::steady_clock::now() < until) {
      std::unique_lock<std::mutex> lock(g_mu);
      g_cv.wait_for(lock, std::chrono::milliseconds(50));
    }
  };
  podwait::PdWaitResult result =
      podwait::WaitForPd(*http, options, podwait::SystemClock::Instance(), &g_stop, sleep_ms);
  if (result.ok) return 0;
  podwait::LogError("giving up",
                    {{"reason", result.reason}, {"tries", std::to_string(result.tries)}});
  WriteTerminationLog(flags.termination_log, result.reason);
  return 1;
}
