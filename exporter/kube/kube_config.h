#pragma once

// Where the Kubernetes API is and how to authenticate to it: in-cluster service account, or the
// explicit --kube.* flags. Plus TokenSource, which keeps a rotating bearer token fresh.

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "exporter/common/clock.h"
#include "exporter/config/config.h"
#include "exporter/net/http_client.h"

namespace podwait {

inline constexpr const char* kServiceAccountTokenFile =
    "/var/run/secrets/kubernetes.io/serviceaccount/token";
inline constexpr const char* kServiceAccountCaFile =
    "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";

// How to reach the API server. Plain data.
struct KubeEndpoint {
  std::string api_url;     // "https://10.0.0.1:443" or "http://127.0.0.1:8001", no trailing slash
  std::string token_file;  // empty: no Authorization header (kubectl proxy, tests)
  TlsOptions tls;
  bool in_cluster = false;
};

// Reads an environment variable; tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup ProcessEnv();

// Resolves the endpoint. An explicit config.kube_api_url wins (with the token and CA files given
// by flags, if any); otherwise the in-cluster configuration from KUBERNETES_SERVICE_HOST/_PORT and
// the service-account files (the flags still override the file paths). Returns nullopt with
// *error set when neither is available.
std::optional<KubeEndpoint> ResolveKubeEndpoint(const Config& config, const EnvLookup& env,
                                                std::string* error);

// Supplies the bearer token of a token file that may rotate (projected service-account tokens are
// refreshed by the kubelet, typically hourly). The file is re-read when the cached copy is older
// than `max_age` and on the next call after Invalidate() (call it after a 401). When a re-read
// fails the last good token is kept. Thread-safe. The token is never logged.
class TokenSource {
 public:
  // An empty path means "no token": Token() returns "".
  TokenSource(std::string path, const Clock& clock, Timestamp max_age = kMinute);
  TokenSource(const TokenSource&) = delete;
  TokenSource& operator=(const TokenSource&) = delete;

  // The current token (trailing whitespace stripped); "" when none could ever be read.
  std::string Token();
  // Forces a re-read on the next Token() call (after a 401 Unauthorized).
  void Invalidate();
  // How many times the file has been read successfully (for tests and debugging).
  int reads() const;

 private:
  bool ReadLocked();

  const std::string path_;
  const Clock& clock_;
  const Timestamp max_age_;
  mutable std::mutex mu_;
  std::string token_;
  int64_t read_at_ms_ = 0;
  bool loaded_ = false;
  bool stale_ = true;
  bool warned_ = false;
  int reads_ = 0;
};

}  // namespace podwait
