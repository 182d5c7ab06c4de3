#pragma once

// Keeps a bearer token for the Kubernetes API fresh: a fixed token, a rotating token file or an
// exec credential plugin.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/kube/endpoint.h"

namespace podwait {

// Supplies a bearer token that may change: it is fetched again when the cached one is older than
// `max_age`, when it is about to expire, and on the next call after Invalidate() (call it after a
// 401). When a fetch fails the last good token is kept and a warning is logged once per streak of
// failures. Thread-safe: Token() may be called from several threads; fetches are serialized (a
// caller waits while another thread runs an exec plugin, at most the plugin's timeout or until
// Cancel()). The token is never logged.
class TokenSource {
 public:
  struct Fetched {
    std::optional<std::string> token;  // nullopt or empty: the fetch failed
    Timestamp expires_at = 0;          // wall-clock expiry; 0: none known
    std::string error;                 // why it failed
  };
  // `cancel` turns true when Cancel() is called: a long fetch should give up then.
  using Fetcher = std::function<Fetched(const std::atomic<bool>& cancel)>;
  struct Policy {
    Timestamp max_age = 0;        // fetch again when the last attempt is this old; 0: never
    Timestamp expiry_margin = 0;  // fetch again this long before expires_at (at most half the
                                  // token's remaining life)
    Timestamp failure_retry = 0;  // after a failed fetch, wait this long before the next attempt
                                  // (Invalidate() skips the wait)
    bool may_block = false;       // a fetch runs a plugin that can take long (or hang)
  };

  // A rotating token file (projected service-account tokens are refreshed by the kubelet,
  // typically hourly), re-read every `max_age` (trailing whitespace stripped; an empty file
  // counts as a failed read). An empty path means "no token": Token() returns "".
  TokenSource(std::string path, const Clock& clock, Timestamp max_age = kMinute);
  // Any fetcher; `what` names it in logs ("token file /x", "exec plugin aws").
  TokenSource(std::string what, Fetcher fetch, const Clock& clock, Policy policy);
  TokenSource(const TokenSource&) = delete;
  TokenSource& operator=(const TokenSource&) = delete;

  // The current token; "" when none could ever be fetched.
  std::string Token();
  // The same for a caller that must say why there is none (`kubectl podwait` fetches the token
  // before its first request): the token, or the error of the fetch that failed, which is then
  // not logged.
  Result<std::string> TokenOrError();
  // Whether Token() may wait long for a fetch (an exec plugin).
  bool may_block() const { return policy_.may_block; }
  // The last token fetched, without fetching (and without waiting for a fetch in progress); ""
  // when there is none yet.
  std::string CachedToken() const;
  // Forces a fetch on the next Token() call (after a 401 Unauthorized).
  void Invalidate();
  // For shutdown: a fetch in progress is told to give up (an exec plugin is killed within
  // ~100 ms) and no further fetch starts; Token() keeps returning the last token.
  void Cancel();
  // How many fetches succeeded (for tests and debugging).
  int reads() const;

 private:
  const std::string what_;
  const Fetcher fetch_;
  const Clock& clock_;
  const Policy policy_;
  // Token() and TokenOrError(); `error` receives why a fetch failed (nullptr: log it instead).
  std::string Fetch(std::string* error);

  std::atomic<bool> cancelled_{false};
  mutable std::mutex mu_;
  std::string token_;
  int64_t attempt_ms_ = 0;    // monotonic time the last fetch ended
  Timestamp refresh_at_ = 0;  // wall-clock time to fetch again (expiry minus margin); 0: none
  bool loaded_ = false;
  bool stale_ = true;
  bool failing_ = false;
  int reads_ = 0;
};

struct ExecTokenOptions {
  int64_t timeout_ms = 30'000;  // the plugin is killed after this long
  Timestamp expiry_margin = 30 * kSecond;
  Timestamp failure_retry = 5 * kSecond;
};

// A token from an exec credential plugin: run on first use, again `expiry_margin` before the
// credential's expirationTimestamp (a credential without one is kept until a 401), and after
// Invalidate(). A failing run (not found, non-zero exit with its stderr, timeout, bad output)
// keeps the last good token.
std::unique_ptr<TokenSource> MakeExecTokenSource(ExecPlugin plugin, const Environment& env,
                                                 ExecTokenOptions options = {});

// The token source the endpoint asks for, or nullptr when requests carry no bearer token.
// `exec` applies to an exec plugin (a command-line run gives it its deadline).
std::unique_ptr<TokenSource> MakeTokenSource(const KubeEndpoint& endpoint, const Environment& env,
                                             ExecTokenOptions exec = {});

}  // namespace podwait
