#pragma once

// --web.config.file: the web configuration format shared by the Prometheus exporters (the
// exporter-toolkit's docs/web-configuration.md): TLS, client certificates, basic auth with bcrypt
// hashes, extra response headers and a request rate limit.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"

namespace podwait {

// Go's crypto/tls ClientAuthType, by the names the format uses.
enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,
  kRequireAnyClientCert,
  kVerifyClientCertIfGiven,
  kRequireAndVerifyClientCert,
};

struct TlsServerConfig {
  // PEM given inline, or files (relative paths are resolved against the config file's folder).
  std::string cert, key, client_ca;
  std::string cert_file, key_file, client_ca_file;
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  std::vector<std::string> client_allowed_sans;
  int min_version = 0x0303;                // TLS12, as the wire version number
  int max_version = 0x0304;                // TLS13
  std::vector<std::string> cipher_suites;  // OpenSSL names of the configured Go suite names
  bool prefer_server_cipher_suites = true;
  std::vector<std::string> curve_preferences;  // OpenSSL group names

  // As the toolkit's IsEnabled: any TLS field set means HTTPS.
  bool enabled() const {
    return !cert.empty() || !key.empty() || !client_ca.empty() || !cert_file.empty() ||
           !key_file.empty() || !client_ca_file.empty() || client_auth_set;
  }
  bool client_auth_set = false;
};

struct WebConfig {
  TlsServerConfig tls;
  bool http2 = true;  // accepted; civetweb serves HTTP/1.1 only
  std::vector<std::pair<std::string, std::string>> headers;
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash
  Timestamp rate_limit_interval = 0;                    // ms between requests; 0: no limit
  int rate_limit_burst = 0;
};

// Parses the YAML text of a web config. Strict, as the toolkit's yaml.UnmarshalStrict: an unknown
// key, a wrong type, an unknown client_auth_type, TLS version, cipher suite or curve, a header that
// may not be configured (or a value it may not take) and a password hash that is not bcrypt are
// errors. Relative file paths are joined to `dir`. Pure (reads no file).
bool ParseWebConfig(std::string_view yaml, const std::string& dir, WebConfig* out,
                    std::string* error);

// Reads and parses `path` and checks that its TLS settings can be used (certificate and key load
// and match, the client CA loads, client_allowed_sans has a client_auth_type that requires a
// certificate). *error names the file and the problem.
bool LoadWebConfig(const std::string& path, WebConfig* out, std::string* error);

// "$2a$", "$2b$" or "$2y$", a cost of 4..31 and 53 characters of bcrypt's base64.
bool IsBcryptHash(std::string_view hash);
// Checks `password` against a bcrypt hash with libcrypt; the result is compared in constant time.
bool VerifyBcrypt(const std::string& hash, const std::string& password);

// The web config of a running server: re-read when the file changes (exporter-toolkit reads it on
// every request and every new TLS connection), so new users, headers and certificates apply without
// a restart. Thread-safe.
class WebConfigSource {
 public:
  // REQUIRES: `initial` was loaded from `path` by LoadWebConfig.
  WebConfigSource(std::string path, WebConfig initial);
  WebConfigSource(const WebConfigSource&) = delete;
  WebConfigSource& operator=(const WebConfigSource&) = delete;

  // The current config; nullptr (and *error) when the file changed and can no longer be used.
  std::shared_ptr<const WebConfig> Current(std::string* error);
  const std::string& path() const { return path_; }

 private:
  struct Stamp {
    int64_t mtime_ns = 0, size = 0, inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  static Stamp StampOf(const std::string& path);
  std::string path_;
  std::mutex mu_;
  Stamp stamp_;
  std::shared_ptr<const WebConfig> current_;
  std::string error_;  // of the last failed reload, while the stamp is unchanged
};

// Basic-auth checks against basic_auth_users, as the toolkit's: an unknown user costs the same
// bcrypt work as a known one; results are cached (keyed by a digest of user, hash and password);
// one bcrypt at a time. Thread-safe.
class BasicAuthChecker {
 public:
  BasicAuthChecker();
  // `authorization`: the request's Authorization header (may be null).
  bool Allowed(const WebConfig& config, const char* authorization);

 private:
  std::mutex bcrypt_mu_;
  std::mutex cache_mu_;
  std::map<std::string, bool> cache_;
  std::string dummy_hash_;
};

// Token bucket for rate_limit. Thread-safe.
class RateLimiter {
 public:
  explicit RateLimiter(const Clock& clock) : clock_(clock) {}
  bool Allow(Timestamp interval, int burst);

 private:
  const Clock& clock_;
  std::mutex mu_;
  double tokens_ = -1;  // < 0: not started (a full bucket)
  int64_t last_ms_ = 0;
};

}  // namespace podwait
