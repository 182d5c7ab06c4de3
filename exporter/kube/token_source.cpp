#include "exporter/kube/token_source.h"

#include <unistd.h>

#include "exporter/common/file.h"
#include "exporter/common/log.h"
#include "exporter/common/subprocess.h"
#include "exporter/kube/exec_credential.h"

namespace podwait {

namespace {

TokenSource::Fetched ReadTokenFile(const std::string& path) {
  TokenSource::Fetched out;
  Result<std::string> read = ReadWholeFile(path);
  if (!read.ok()) {
    out.error = std::move(read.error);
    return out;
  }
  std::string& token = *read;
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  // A file caught half-written: keep the previous token.
  if (token.empty()) {
    out.error = "the file is empty";
    return out;
  }
  out.token = std::move(token);
  return out;
}

}  // namespace

TokenSource::TokenSource(std::string path, const Clock& clock, Timestamp max_age)
    : TokenSource(
          path.empty() ? "" : "token file " + path,
          path.empty() ? Fetcher()
                       : [path](const std::atomic<bool>&) { return ReadTokenFile(path); },
          clock, Policy{max_age, 0, 0}) {}

TokenSource::TokenSource(std::string what, Fetcher fetch, const Clock& clock, Policy policy)
    : what_(std::move(what)), fetch_(std::move(fetch)), clock_(clock), policy_(policy) {}

std::string TokenSource::CachedToken() const {
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  return lock.owns_lock() ? token_ : std::string();
}

std::string TokenSource::Token() { return Fetch(nullptr); }

Result<std::string> TokenSource::TokenOrError() {
  std::string error;
  std::string token = Fetch(&error);
  if (!token.empty()) return Result<std::string>::Ok(std::move(token));
  if (error.empty()) error = cancelled_.load() ? "cancelled" : "no token";
  return Result<std::string>::Fail(std::move(error));
}

std::string TokenSource::Fetch(std::string* error) {
  if (!fetch_) return {};
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t mono = clock_.MonotonicMs();
  const Timestamp now = clock_.Now();
  bool due = stale_ || !loaded_ || (policy_.max_age > 0 && mono - attempt_ms_ >= policy_.max_age) ||
             (refresh_at_ > 0 && now >= refresh_at_);
  // After a failure, wait before trying again (a plugin is not run on every request).
  if (due && !stale_ && failing_ && mono - attempt_ms_ < policy_.failure_retry) due = false;
  if (!due || cancelled_.load()) return token_;
  stale_ = false;
  Fetched fetched = fetch_(cancelled_);
  // Measured from the end of the fetch: callers that queued behind a slow plugin that failed do
  // not each run it again at once.
  attempt_ms_ = clock_.MonotonicMs();
  if (fetched.token && !fetched.token->empty()) {
    token_ = std::move(*fetched.token);
    loaded_ = true;
    ++reads_;
    refresh_at_ = 0;
    if (fetched.expires_at > 0) {
      const Timestamp life = std::max<Timestamp>(0, fetched.expires_at - now);
      refresh_at_ = fetched.expires_at - std::min(policy_.expiry_margin, life / 2);
    }
    if (failing_) LogInfo("got a Kubernetes token again", {{"source", what_}});
    failing_ = false;
  } else if (!cancelled_.load()) {
    if (error != nullptr) {
      *error = fetched.error;
    } else if (!failing_) {
      LogWarn("cannot get the Kubernetes token; keeping the previous one",
              {{"source", what_}, {"err", fetched.error}});
    }
    failing_ = true;
  } else if (error != nullptr) {
    *error = fetched.error;
  }
  return token_;
}

void TokenSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  stale_ = true;
}

void TokenSource::Cancel() { cancelled_.store(true); }

int TokenSource::reads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reads_;
}

std::unique_ptr<TokenSource> MakeExecTokenSource(ExecPlugin plugin, const Environment& env,
                                                 ExecTokenOptions options) {
  std::string what = "exec plugin " + plugin.command;
  auto run = [plugin = std::move(plugin), timeout_ms = options.timeout_ms,
              runner = env.run](const std::atomic<bool>& cancel) {
    TokenSource::Fetched out;
    ExecCredentialParse cred = RunExecPlugin(plugin, timeout_ms, &cancel, runner);
    if (!cred.ok()) {
      out.error = std::move(cred.error);
      return out;
    }
    out.token = std::move(cred.value->token);
    out.expires_at = cred.value->expires_at;
    return out;
  };
  return std::make_unique<TokenSource>(
      std::move(what), std::move(run), *env.clock,
      TokenSource::Policy{0, options.expiry_margin, options.failure_retry, /*may_block=*/true});
}

std::unique_ptr<TokenSource> MakeTokenSource(const KubeEndpoint& endpoint, const Environment& env,
                                             ExecTokenOptions exec) {
  const Clock& clock = *env.clock;
  if (endpoint.exec) return MakeExecTokenSource(*endpoint.exec, env, exec);
  if (!endpoint.token_file.empty())
    return std::make_unique<TokenSource>(endpoint.token_file, clock);
  if (!endpoint.token.empty()) {
    return std::make_unique<TokenSource>(
        "token",
        [token = endpoint.token](const std::atomic<bool>&) {
          return TokenSource::Fetched{token, 0, ""};
        },
        clock, TokenSource::Policy{});
  }
  return nullptr;
}

}  // namespace podwait
