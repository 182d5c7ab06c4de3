#pragma once

// --web.config.file: the web configuration format shared by the Prometheus exporters (the
// exporter-toolkit's docs/web-configuration.md): TLS, client certificates, basic auth with bcrypt
// hashes, extra response headers and a request rate limit.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"

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
Result<WebConfig> ParseWebConfig(std::string_view yaml, const std::string& dir);

// Reads and parses `path` and checks that its TLS settings can be used (certificate and key load
// and match, the client CA loads, client_allowed_sans has a client_auth_type that requires a
// certificate). The certificate, key and CA files are read here, into the inline fields (cert,
// key, client_ca), so a config keeps serving what was read even when the files change under it;
// the *_file fields keep the names. The error names the file and the problem.
Result<WebConfig> LoadWebConfig(const std::string& path);

// "$2a$", "$2b$" or "$2y$", a cost of 4..31 and 53 characters of bcrypt's base64.
bool IsBcryptHash(std::string_view hash);
// The cost of a bcrypt hash; REQUIRES: IsBcryptHash(hash).
int BcryptCost(std::string_view hash);
// Checks `password` against a bcrypt hash with libcrypt; the result is compared in constant time.
// A password with a NUL byte never matches (crypt would read it only up to the NUL).
bool VerifyBcrypt(const std::string& hash, const std::string& password);

// A file's identity and version: a change of contents, or a rename over it, changes it.
struct FileStamp {
  std::string path;
  int64_t mtime_ns = 0, size = 0, inode = 0;
  static FileStamp Of(const std::string& path);
  bool Current() const { return *this == Of(path); }
  bool operator==(const FileStamp&) const = default;
};

// The state of the last reload, for podwait_web_config_last_reload_successful and its timestamp.
struct WebConfigReloadStatus {
  bool successful = true;
  Timestamp last_success = 0;  // when the config in use was loaded (Unix ms)
};

// The web config of a running server, re-read when the file or any certificate, key or CA file
// it names changes (exporter-toolkit reads them on every request and every new TLS connection),
// so new users, headers and certificates apply without a restart. A reload that fails (garbage,
// a deleted file, a half-written certificate) keeps the last good config in use, is logged once
// and shows in status(); it is retried when one of the files it read changes. Thread-safe.
class WebConfigSource {
 public:
  // Loads `path` (LoadWebConfig); an error when it cannot be used.
  static Result<std::unique_ptr<WebConfigSource>> Open(const std::string& path, const Clock& clock);
  WebConfigSource(const WebConfigSource&) = delete;
  WebConfigSource& operator=(const WebConfigSource&) = delete;

  // The config in use: the file's, or the last good one while the file cannot be used. Never null.
  std::shared_ptr<const WebConfig> Current();
  // Reloads first when a file changed.
  WebConfigReloadStatus status();
  const std::string& path() const { return path_; }

 private:
  WebConfigSource(std::string path, const Clock& clock) : path_(std::move(path)), clock_(clock) {}
  bool Changed() const;  // REQUIRES: mu_ held
  const std::string path_;
  const Clock& clock_;
  std::mutex mu_;
  // The files the last load read (whether it succeeded or not) and their stamps then.
  std::vector<FileStamp> stamps_;
  std::shared_ptr<const WebConfig> current_;
  std::string error_;  // of the last failed reload; empty after a good one
  Timestamp last_success_ = 0;
};

enum class AuthResult {
  kAllowed,
  kDenied,
  // Every bcrypt slot is busy and the queue is full: answer 429 without checking.
  kBusy,
};

// Basic-auth checks against basic_auth_users, as the toolkit's, built so that password guessers
// cannot starve good clients:
// - verified credentials are cached (keyed by a digest of user, hash and password; only
//   successes, so guesses can neither fill nor evict the cache) and answered without bcrypt;
// - bcrypt runs on at most `slots` threads at once with at most `queue` waiting, and one check at
//   a time per client address; beyond that the answer is kBusy at once, so guessers never hold
//   the server's worker threads, and a guesser cannot take every slot from a good client whose
//   credentials are not verified yet (after a restart or a reload);
// - an unknown user is checked against a hash of a random password at the highest cost of the
//   configured users, so it costs what a known one does;
// - a NUL byte in the user or password is refused.
// Thread-safe.
class BasicAuthChecker {
 public:
  explicit BasicAuthChecker(int slots = 2, int queue = 8);
  // Whether the credentials are ones already verified against `config` (no bcrypt, no waiting).
  // True when `config` has no users.
  bool Cached(const WebConfig& config, const char* authorization);
  // Cached, else a bcrypt check. `authorization`: the request's Authorization header (may be
  // null); `client`: the client's address.
  AuthResult Check(const WebConfig& config, const char* authorization,
                   const std::string& client = "");
  // bcrypt checks running or waiting for `client`.
  int Pending(const std::string& client);
  // The hash an unknown user is checked against: of a random password, at the highest cost of
  // `config`'s users (made once per cost).
  const std::string& UnknownUserHash(const WebConfig& config);

 private:
  struct Credentials {
    std::string user, password;
  };
  static std::optional<Credentials> Parse(const char* authorization);
  static std::string CacheKey(const Credentials& c, const std::string& hash);
  const std::string& DummyHash(int cost);
  bool AcquireSlot(const std::string& client);
  void ReleaseSlot(const std::string& client);
  const int slots_, queue_;
  std::mutex slot_mu_;
  std::condition_variable slot_cv_;
  int running_ = 0, waiting_ = 0;
  std::map<std::string, int> pending_;  // by client; only clients with a check
  std::mutex cache_mu_;
  std::set<std::string> verified_;  // digests of good credentials
  std::mutex dummy_mu_;
  std::map<int, std::string> dummy_hashes_;  // by cost
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
