#include "exporter/kube/kube_config.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "exporter/common/file.h"
#include "exporter/common/log.h"
#include "exporter/kube/kubeconfig.h"

namespace podwait {
namespace {

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Where the kubeconfig named the file: "<kubeconfig>: <item> <path> cannot be read: <why>".
bool CheckReadable(const std::string& kubeconfig, const std::string& item, const std::string& path,
                   std::string* error) {
  if (path.empty() || access(path.c_str(), R_OK) == 0) return true;
  *error = kubeconfig + ": " + item + " " + path + " cannot be read: " + std::strerror(errno);
  return false;
}

std::optional<KubeEndpoint> FromApiUrl(const Config& config, std::string* error) {
  KubeEndpoint ep;
  const std::string& url = config.kube_api_url;
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    *error = "--kube.api-url must start with http:// or https://";
    return std::nullopt;
  }
  ep.api_url = url;
  while (!ep.api_url.empty() && ep.api_url.back() == '/') ep.api_url.pop_back();
  ep.token_file = config.kube_token_file;
  ep.tls.ca_file = config.kube_ca_file;
  ep.tls.insecure_skip_verify = config.kube_insecure_skip_tls_verify;
  ep.source = "--kube.api-url";
  if (!config.kubeconfig.empty() || !config.kube_context.empty()) {
    ep.warnings.push_back("--kubeconfig and --kube.context are ignored: --kube.api-url is set");
  }
  return ep;
}

KubeEndpoint InCluster(const Config& config, const std::string& host, const std::string& port) {
  KubeEndpoint ep;
  const bool ipv6 = host.find(':') != std::string::npos;
  ep.api_url = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  ep.token_file =
      config.kube_token_file.empty() ? kServiceAccountTokenFile : config.kube_token_file;
  ep.tls.ca_file = config.kube_ca_file.empty() ? kServiceAccountCaFile : config.kube_ca_file;
  ep.tls.insecure_skip_verify = config.kube_insecure_skip_tls_verify;
  ep.source = KubeEndpoint::kInClusterSource;
  return ep;
}

// The endpoint of the kubeconfig at `path` (found through `source`), with the --kube.* flags
// laid over it.
std::optional<KubeEndpoint> FromKubeconfig(const Config& config, const std::string& path,
                                           const std::string& source, std::string* error) {
  std::string text;
  std::string why;
  if (!ReadWholeFile(path, &text, &why)) {
    *error = "cannot read the kubeconfig " + path + " (" + source + "): " + why;
    return std::nullopt;
  }
  KubeconfigParse parsed = ParseKubeconfig(text, path, config.kube_context);
  if (!parsed.ok()) {
    *error = parsed.error;
    return std::nullopt;
  }
  KubeEndpoint& ep = *parsed.value;
  ep.source = source;
  ep.kubeconfig = path;
  const std::string cluster = "certificate-authority of cluster \"" + ep.cluster + "\"";
  const std::string user = "of user \"" + ep.user + "\"";
  if ((config.kube_ca_file.empty() && !CheckReadable(path, cluster, ep.tls.ca_file, error)) ||
      !CheckReadable(path, "client-certificate " + user, ep.tls.cert_file, error) ||
      !CheckReadable(path, "client-key " + user, ep.tls.key_file, error) ||
      (config.kube_token_file.empty() &&
       !CheckReadable(path, "tokenFile " + user, ep.token_file, error))) {
    return std::nullopt;
  }
  if (ep.exec && ep.exec->provide_cluster_info && ep.exec->certificate_authority_pem.empty() &&
      !ep.tls.ca_file.empty() &&
      !ReadWholeFile(ep.tls.ca_file, &ep.exec->certificate_authority_pem, &why)) {
    *error = path + ": " + cluster + " " + ep.tls.ca_file + " cannot be read: " + why;
    return std::nullopt;
  }
  if (!config.kube_token_file.empty()) {
    ep.token_file = config.kube_token_file;
    ep.token.clear();
    ep.exec.reset();
  }
  if (!config.kube_ca_file.empty()) {
    ep.tls.ca_file = config.kube_ca_file;
    ep.tls.ca_pem.clear();
  }
  if (config.kube_insecure_skip_tls_verify) ep.tls.insecure_skip_verify = true;
  return std::move(parsed.value);
}

std::vector<std::string> SplitPathList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    if (colon > start) out.push_back(list.substr(start, colon - start));
    start = colon + 1;
  }
  return out;
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::optional<KubeEndpoint> ResolveKubeEndpoint(const Config& config, const EnvLookup& env,
                                                std::string* error) {
  if (!config.kube_api_url.empty()) return FromApiUrl(config, error);
  if (!config.kubeconfig.empty()) {
    return FromKubeconfig(config, config.kubeconfig, "--kubeconfig", error);
  }
  const std::string host = env("KUBERNETES_SERVICE_HOST").value_or("");
  const std::string port = env("KUBERNETES_SERVICE_PORT").value_or("");
  if (!host.empty() && !port.empty() && config.kube_context.empty()) {
    return InCluster(config, host, port);
  }
  if (const std::string list = env("KUBECONFIG").value_or(""); !list.empty()) {
    for (const std::string& path : SplitPathList(list)) {
      if (Exists(path)) return FromKubeconfig(config, path, "KUBECONFIG", error);
    }
    *error = "KUBECONFIG names no file that exists (" + list +
             "); kubectl would not read ~/.kube/config either";
    return std::nullopt;
  }
  if (const std::string home = env("HOME").value_or(""); !home.empty()) {
    const std::string path = home + "/.kube/config";
    if (Exists(path)) return FromKubeconfig(config, path, "~/.kube/config", error);
  }
  if (!config.kube_context.empty()) {
    *error = "--kube.context=" + config.kube_context +
             " needs a kubeconfig, and there is none: pass --kubeconfig, set KUBECONFIG or create "
             "~/.kube/config";
  } else {
    *error =
        "no Kubernetes API: pass --kube.api-url or --kubeconfig, set KUBECONFIG or create "
        "~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT are not set)";
  }
  return std::nullopt;
}

std::string DescribeAuth(const KubeEndpoint& endpoint) {
  std::string out;
  if (endpoint.exec) {
    out = "exec plugin " + endpoint.exec->command;
  } else if (!endpoint.token_file.empty()) {
    out = "token file " + endpoint.token_file;
  } else if (!endpoint.token.empty()) {
    out = "token";
  }
  if (!endpoint.tls.cert_file.empty() || !endpoint.tls.cert_pem.empty()) {
    out += out.empty() ? "client certificate" : " and client certificate";
  }
  return out.empty() ? "none" : out;
}

void LogKubeEndpoint(const KubeEndpoint& endpoint) {
  if (!endpoint.kubeconfig.empty()) {
    LogInfo("Kubernetes API from a kubeconfig", {{"source", endpoint.source},
                                                 {"file", endpoint.kubeconfig},
                                                 {"context", endpoint.context},
                                                 {"cluster", endpoint.cluster},
                                                 {"user", endpoint.user},
                                                 {"server", endpoint.api_url},
                                                 {"auth", DescribeAuth(endpoint)}});
  } else {
    LogInfo("Kubernetes API", {{"source", endpoint.source},
                               {"server", endpoint.api_url},
                               {"auth", DescribeAuth(endpoint)}});
  }
  for (const auto& what : endpoint.ignored) {
    LogDebug("kubeconfig setting not used", {{"file", endpoint.kubeconfig}, {"setting", what}});
  }
  for (const auto& what : endpoint.warnings) LogWarn(what);
}

namespace {

TokenSource::Fetched ReadTokenFile(const std::string& path) {
  TokenSource::Fetched out;
  std::string token;
  if (!ReadWholeFile(path, &token, &out.error)) return out;
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

std::string TokenSource::Token() {
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
  attempt_ms_ = mono;
  Fetched fetched = fetch_(cancelled_);
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
    if (!failing_) {
      LogWarn("cannot get the Kubernetes token; keeping the previous one",
              {{"source", what_}, {"err", fetched.error}});
    }
    failing_ = true;
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

std::unique_ptr<TokenSource> MakeExecTokenSource(ExecPlugin plugin, const Clock& clock,
                                                 ExecTokenOptions options) {
  std::string what = "exec plugin " + plugin.command;
  auto run = [plugin = std::move(plugin),
              timeout_ms = options.timeout_ms](const std::atomic<bool>& cancel) {
    TokenSource::Fetched out;
    ExecCredentialParse cred = RunExecPlugin(plugin, timeout_ms, &cancel);
    if (!cred.ok()) {
      out.error = std::move(cred.error);
      return out;
    }
    out.token = std::move(cred.value->token);
    out.expires_at = cred.value->expires_at;
    return out;
  };
  return std::make_unique<TokenSource>(
      std::move(what), std::move(run), clock,
      TokenSource::Policy{0, options.expiry_margin, options.failure_retry});
}

std::unique_ptr<TokenSource> MakeTokenSource(const KubeEndpoint& endpoint, const Clock& clock) {
  if (endpoint.exec) return MakeExecTokenSource(*endpoint.exec, clock);
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
