#include "exporter/kube/kube_config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "exporter/common/log.h"

namespace podwait {

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::optional<KubeEndpoint> ResolveKubeEndpoint(const Config& config, const EnvLookup& env,
                                                std::string* error) {
  KubeEndpoint ep;
  ep.tls.insecure_skip_verify = config.kube_insecure_skip_tls_verify;
  if (!config.kube_api_url.empty()) {
    const std::string& url = config.kube_api_url;
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      *error = "--kube.api-url must start with http:// or https://";
      return std::nullopt;
    }
    ep.api_url = url;
    while (!ep.api_url.empty() && ep.api_url.back() == '/') ep.api_url.pop_back();
    ep.token_file = config.kube_token_file;
    ep.tls.ca_file = config.kube_ca_file;
    return ep;
  }
  const auto host = env("KUBERNETES_SERVICE_HOST");
  const auto port = env("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty()) {
    *error =
        "no Kubernetes API: set --kube.api-url, or run in a cluster (KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT are not set)";
    return std::nullopt;
  }
  const bool ipv6 = host->find(':') != std::string::npos;
  ep.api_url = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  ep.token_file =
      config.kube_token_file.empty() ? kServiceAccountTokenFile : config.kube_token_file;
  ep.tls.ca_file = config.kube_ca_file.empty() ? kServiceAccountCaFile : config.kube_ca_file;
  ep.in_cluster = true;
  return ep;
}

TokenSource::TokenSource(std::string path, const Clock& clock, Timestamp max_age)
    : path_(std::move(path)), clock_(clock), max_age_(max_age) {}

bool TokenSource::ReadLocked() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return false;
  std::string token = buf.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) return false;  // a file caught half-written: keep the previous token
  token_ = std::move(token);
  ++reads_;
  return true;
}

std::string TokenSource::Token() {
  if (path_.empty()) return {};
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = clock_.MonotonicMs();
  if (stale_ || !loaded_ || now - read_at_ms_ >= max_age_) {
    read_at_ms_ = now;
    stale_ = false;
    if (ReadLocked()) {
      loaded_ = true;
      warned_ = false;
    } else if (!warned_) {
      warned_ = true;
      LogWarn("cannot read the Kubernetes token file; keeping the previous token",
              {{"file", path_}});
    }
  }
  return token_;
}

void TokenSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  stale_ = true;
}

int TokenSource::reads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reads_;
}

}  // namespace podwait
