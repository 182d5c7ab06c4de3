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
#include <span>
#include <string>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/flag_table.h"
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
  --pd.url URL             PD address (default: from the environment NAMESPACE and CLUSTER_NAME,
                           http://<cluster>-pd.<namespace>:2379, https with --pd.tls.ca-file)
  --timeout DURATION       give up after this long (exit 1); default 0 = wait forever
  --pd.timeout DURATION    timeout of each PD request (default 5s)
  --pd.interval DURATION   pause between tries (default 1s, at least 100ms)
  --pd.tls.ca-file PATH    CA to verify PD
  --pd.tls.cert-file PATH  client certificate for PD mTLS
  --pd.tls.key-file PATH   client key for PD mTLS
  --termination-log PATH   where the reason goes when giving up (default /dev/termination-log)
  --log.level LEVEL        debug, info, warn, error (default info)
  --log.format FORMAT      logfmt or json (default logfmt)
  --version                print the version and exit
  -h, --help               this text

Durations are Go-style: 90s, 5m, 1h30m. The PD URL must be http:// or https://. The flags are
named as the exporter's (--pd.*); the older --pd-url, --request-timeout and --interval still
work, with a warning.
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
  std::vector<std::string> deprecated;  // old spellings used, logged once each
};

using podwait::FlagKind;
using podwait::FlagSpec;

FlagSpec<Flags> ModeFlag(std::string_view name, podwait::PdWaitMode mode) {
  return {name, FlagKind::kBool, "",
          [mode](Flags& f, const std::string& v) {
            if (v != "true") return std::string("takes no value");
            if (f.mode && *f.mode != mode) {
              return std::string("use either --leader or --initialized, not both");
            }
            f.mode = mode;
            return std::string();
          },
          [](const Flags&) { return std::string(); }};
}

FlagSpec<Flags> TlsFlag(std::string_view name, std::string podwait::TlsOptions::*field) {
  return {name, FlagKind::kString, "",
          [field](Flags& f, const std::string& v) {
            f.tls.*field = v;
            return std::string();
          },
          [field](const Flags& f) { return f.tls.*field; }};
}

// wait-for-pd's flags (kUsage says what each does).
const std::vector<FlagSpec<Flags>>& FlagTable() {
  using podwait::DeprecatedAlias;
  using podwait::DurationFlag;
  using podwait::StringFlag;
  static const std::vector<FlagSpec<Flags>> table = {
      ModeFlag("leader", podwait::PdWaitMode::kLeader),
      ModeFlag("initialized", podwait::PdWaitMode::kInitialized),
      StringFlag("pd.url", "", &Flags::pd_url),
      DurationFlag("timeout", "", &Flags::timeout_ms),
      DurationFlag("pd.timeout", "", &Flags::request_timeout_ms),
      DurationFlag("pd.interval", "", &Flags::interval_ms),
      // The spellings of before the exporter's names were adopted.
      DeprecatedAlias(StringFlag("pd.url", "", &Flags::pd_url), "pd-url"),
      DeprecatedAlias(DurationFlag("pd.timeout", "", &Flags::request_timeout_ms),
                      "request-timeout"),
      DeprecatedAlias(DurationFlag("pd.interval", "", &Flags::interval_ms), "interval"),
      TlsFlag("pd.tls.ca-file", &podwait::TlsOptions::ca_file),
      TlsFlag("pd.tls.cert-file", &podwait::TlsOptions::cert_file),
      TlsFlag("pd.tls.key-file", &podwait::TlsOptions::key_file),
      StringFlag("termination-log", "", &Flags::termination_log),
      {"log.level", FlagKind::kString, "",
       [](Flags& f, const std::string& v) {
         auto l = podwait::ParseLogLevel(v);
         if (!l) return std::string("expects debug, info, warn or error");
         f.log_level = *l;
         return std::string();
       },
       [](const Flags&) { return std::string("info"); }},
      {"log.format", FlagKind::kString, "",
       [](Flags& f, const std::string& v) {
         auto l = podwait::ParseLogFormat(v);
         if (!l) return std::string("expects logfmt or json");
         f.log_format = *l;
         return std::string();
       },
       [](const Flags&) { return std::string("logfmt"); }},
  };
  return table;
}

// Returns an error message, or "" when the flags are fine.
std::string ParseArgs(int argc, char** argv, Flags* f) {
  podwait::Result<podwait::ParsedFlags> parsed =
      podwait::ParseFlagTable(std::span<const FlagSpec<Flags>>(FlagTable()),
                              std::vector<std::string>(argv + 1, argv + argc), f);
  if (!parsed.ok()) return parsed.error;
  if (parsed.value->action == podwait::FlagAction::kHelp) {
    f->help = true;
    return "";
  }
  if (parsed.value->action == podwait::FlagAction::kVersion) {
    f->version = true;
    return "";
  }
  f->deprecated = parsed.value->deprecated;
  if (!parsed.value->positional.empty()) {
    return "unexpected argument \"" + parsed.value->positional[0] + "\"";
  }
  if (f->request_timeout_ms <= 0) return "--pd.timeout must be positive";
  if (f->interval_ms < kMinIntervalMs) {
    return "--pd.interval must be at least " + std::to_string(kMinIntervalMs) + "ms";
  }
  if (!f->mode) return "one of --leader or --initialized is required";
  if (f->tls.cert_file.empty() != f->tls.key_file.empty()) {
    return "--pd.tls.cert-file and --pd.tls.key-file go together";
  }
  if (f->pd_url.empty()) {
    const char* ns = std::getenv("NAMESPACE");
    const char* cluster = std::getenv("CLUSTER_NAME");
    if (ns == nullptr || cluster == nullptr || *ns == '\0' || *cluster == '\0') {
      return "no PD address: pass --pd.url or set NAMESPACE and CLUSTER_NAME";
    }
    const char* scheme = f->tls.ca_file.empty() ? "http" : "https";
    f->pd_url = std::string(scheme) + "://" + cluster + "-pd." + ns + ":2379";
  }
  while (!f->pd_url.empty() && f->pd_url.back() == '/') f->pd_url.pop_back();
  if (podwait::Result<bool> scheme = podwait::CheckUrlScheme(f->pd_url); !scheme.ok()) {
    return "--pd.url: " + scheme.error;
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
  for (const std::string& note : flags.deprecated) podwait::LogWarn(note);

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
