#include "exporter/http/web_config.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>

#include "exporter/common/base64.h"
#include "exporter/common/file.h"
#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "exporter/http/tls_context.h"

namespace podwait {
namespace {

// The headers the toolkit lets a web config set, and the values it accepts (empty: any).
const std::vector<std::pair<std::string_view, std::vector<std::string_view>>>& AllowedHeaders() {
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> headers = {
      {"Strict-Transport-Security", {}},
      {"X-Content-Type-Options", {"nosniff"}},
      {"X-Frame-Options", {"deny", "sameorigin"}},
      {"X-XSS-Protection", {}},
      {"Content-Security-Policy", {}},
  };
  return headers;
}

// Go's crypto/tls suite names -> OpenSSL's. TLS 1.3 suites are accepted and, as in Go, not
// configurable (they are always on).
const std::map<std::string_view, std::string_view>& CipherSuiteNames() {
  static const std::map<std::string_view, std::string_view> names = {
      {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
      {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
      {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
      {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
      {"TLS_AES_128_GCM_SHA256", ""},
      {"TLS_AES_256_GCM_SHA384", ""},
      {"TLS_CHACHA20_POLY1305_SHA256", ""},
  };
  return names;
}

std::optional<int> TlsVersion(const std::string& name) {
  if (name == "TLS10") return 0x0301;
  if (name == "TLS11") return 0x0302;
  if (name == "TLS12") return 0x0303;
  if (name == "TLS13") return 0x0304;
  return std::nullopt;
}

std::optional<ClientAuth> ParseClientAuth(const std::string& s) {
  if (s.empty() || s == "NoClientCert") return ClientAuth::kNoClientCert;
  if (s == "RequestClientCert") return ClientAuth::kRequestClientCert;
  // "RequireClientCert" is the toolkit's older spelling, still accepted there.
  if (s == "RequireAnyClientCert" || s == "RequireClientCert")
    return ClientAuth::kRequireAnyClientCert;
  if (s == "VerifyClientCertIfGiven") return ClientAuth::kVerifyClientCertIfGiven;
  if (s == "RequireAndVerifyClientCert") return ClientAuth::kRequireAndVerifyClientCert;
  return std::nullopt;
}

std::string JoinDir(const std::string& dir, const std::string& path) {
  if (path.empty() || path.front() == '/' || dir.empty()) return path;
  return dir + "/" + path;
}

std::string Where(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return m.line >= 0 ? "line " + std::to_string(m.line + 1) + ": " : "";
}

// Decodes a YAML subtree strictly; the first problem goes to error_.
class Decoder {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(const YAML::Node& node, const std::string& what) {
    if (error_.empty()) error_ = Where(node) + what;
  }

  // A mapping (or null) whose keys are all in `known`.
  bool Mapping(const YAML::Node& node, const std::string& name,
               std::initializer_list<std::string_view> known) {
    if (!node || node.IsNull()) return false;
    if (!node.IsMap()) {
      Fail(node, name + " must be a mapping");
      return false;
    }
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        Fail(kv.first, "field " + key + " not found in " + name);
        return false;
      }
    }
    return Unique(node);
  }

  // No key twice (yaml-cpp would keep one of them silently; Go's strict decoding refuses).
  bool Unique(const YAML::Node& map) {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (!seen.insert(key).second) {
        Fail(kv.first, "key \"" + key + "\" already set in map");
        return false;
      }
    }
    return true;
  }

  void String(const YAML::Node& node, const std::string& name, std::string* out) {
    if (!node || node.IsNull()) return;
    if (!node.IsScalar()) return Fail(node, name + " must be a string");
    *out = node.as<std::string>();
  }

  void Bool(const YAML::Node& node, const std::string& name, bool* out) {
    if (!node || node.IsNull()) return;
    bool v = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) {
      return Fail(node, name + " must be true or false");
    }
    *out = v;
  }

  void StringList(const YAML::Node& node, const std::string& name, std::vector<std::string>* out) {
    if (!node || node.IsNull()) return;
    if (!node.IsSequence()) return Fail(node, name + " must be a list of strings");
    for (const auto& item : node) {
      if (!item.IsScalar()) return Fail(item, name + " must be a list of strings");
      out->push_back(item.as<std::string>());
    }
  }

 private:
  std::string error_;
};

void DecodeTls(Decoder& d, const YAML::Node& node, const std::string& dir, TlsServerConfig* tls) {
  if (!d.Mapping(node, "tls_server_config",
                 {"cert", "key", "client_ca", "cert_file", "key_file", "client_auth_type",
                  "client_ca_file", "client_allowed_sans", "min_version", "max_version",
                  "cipher_suites", "prefer_server_cipher_suites", "curve_preferences"})) {
    return;
  }
  d.String(node["cert"], "cert", &tls->cert);
  d.String(node["key"], "key", &tls->key);
  d.String(node["client_ca"], "client_ca", &tls->client_ca);
  d.String(node["cert_file"], "cert_file", &tls->cert_file);
  d.String(node["key_file"], "key_file", &tls->key_file);
  d.String(node["client_ca_file"], "client_ca_file", &tls->client_ca_file);
  tls->cert_file = JoinDir(dir, tls->cert_file);
  tls->key_file = JoinDir(dir, tls->key_file);
  tls->client_ca_file = JoinDir(dir, tls->client_ca_file);

  std::string client_auth;
  d.String(node["client_auth_type"], "client_auth_type", &client_auth);
  tls->client_auth_set = !client_auth.empty();
  if (auto a = ParseClientAuth(client_auth)) {
    tls->client_auth = *a;
  } else {
    d.Fail(node["client_auth_type"], "invalid ClientAuth: " + client_auth);
  }
  d.StringList(node["client_allowed_sans"], "client_allowed_sans", &tls->client_allowed_sans);

  for (const char* field : {"min_version", "max_version"}) {
    std::string v;
    d.String(node[field], field, &v);
    if (v.empty()) continue;
    auto version = TlsVersion(v);
    if (!version) {
      d.Fail(node[field], "unknown TLS version: " + v);
      continue;
    }
    (std::string_view(field) == "min_version" ? tls->min_version : tls->max_version) = *version;
  }

  std::vector<std::string> suites;
  d.StringList(node["cipher_suites"], "cipher_suites", &suites);
  for (const auto& s : suites) {
    auto it = CipherSuiteNames().find(s);
    if (it == CipherSuiteNames().end()) {
      d.Fail(node["cipher_suites"], "unknown cipher: " + s);
    } else if (!it->second.empty()) {
      tls->cipher_suites.emplace_back(it->second);
    }
  }
  d.Bool(node["prefer_server_cipher_suites"], "prefer_server_cipher_suites",
         &tls->prefer_server_cipher_suites);

  std::vector<std::string> curves;
  d.StringList(node["curve_preferences"], "curve_preferences", &curves);
  static const std::map<std::string, std::string> kCurves = {
      {"CurveP256", "P-256"}, {"CurveP384", "P-384"}, {"CurveP521", "P-521"}, {"X25519", "X25519"}};
  for (const auto& c : curves) {
    auto it = kCurves.find(c);
    if (it == kCurves.end()) {
      d.Fail(node["curve_preferences"], "unknown curve: " + c);
    } else {
      tls->curve_preferences.push_back(it->second);
    }
  }
}

void DecodeHttp(Decoder& d, const YAML::Node& node, WebConfig* config) {
  if (!d.Mapping(node, "http_server_config", {"http2", "headers"})) return;
  d.Bool(node["http2"], "http2", &config->http2);
  const YAML::Node headers = node["headers"];
  if (!headers || headers.IsNull()) return;
  if (!headers.IsMap()) return d.Fail(headers, "headers must be a mapping");
  if (!d.Unique(headers)) return;
  for (const auto& kv : headers) {
    const std::string name = kv.first.as<std::string>();
    std::string value;
    d.String(kv.second, name, &value);
    auto allowed = std::find_if(AllowedHeaders().begin(), AllowedHeaders().end(),
                                [&](const auto& h) { return h.first == name; });
    if (allowed == AllowedHeaders().end()) {
      return d.Fail(kv.first, "HTTP header \"" + name + "\" can not be configured");
    }
    const auto& values = allowed->second;
    if (!values.empty() && std::find(values.begin(), values.end(), value) == values.end()) {
      std::string expected;
      for (auto v : values)
        expected += (expected.empty() ? "" : " ") + ("\"" + std::string(v) + "\"");
      return d.Fail(kv.second, "invalid value for " + name + ". Expected one of: [" + expected +
                                   "], but got: \"" + value + "\"");
    }
    // Unset if blank, as the toolkit documents.
    if (!value.empty()) config->headers.emplace_back(name, value);
  }
}

void DecodeUsers(Decoder& d, const YAML::Node& node, WebConfig* config) {
  if (!node || node.IsNull()) return;
  if (!node.IsMap()) return d.Fail(node, "basic_auth_users must be a mapping of user to hash");
  if (!d.Unique(node)) return;
  for (const auto& kv : node) {
    const std::string user = kv.first.as<std::string>();
    std::string hash;
    d.String(kv.second, "basic_auth_users." + user, &hash);
    if (!d.ok()) return;
    if (!IsBcryptHash(hash)) {
      // Never echo the value: it may be a plain password pasted by mistake.
      return d.Fail(kv.second, "the password hash of user \"" + user +
                                   "\" is not a bcrypt hash ($2y$, $2b$ or $2a$, cost 4-31; "
                                   "make one with htpasswd -nBC 10 \"\")");
    }
    config->basic_auth_users[user] = hash;
  }
}

void DecodeRateLimit(Decoder& d, const YAML::Node& node, WebConfig* config) {
  if (!d.Mapping(node, "rate_limit", {"interval", "burst"})) return;
  std::string interval;
  d.String(node["interval"], "interval", &interval);
  if (!interval.empty()) {
    auto ms = ParseDuration(interval);
    if (!ms) return d.Fail(node["interval"], "rate_limit.interval: invalid duration " + interval);
    config->rate_limit_interval = *ms;
  }
  const YAML::Node burst = node["burst"];
  if (burst && !burst.IsNull()) {
    int b = 0;
    if (!burst.IsScalar() || !YAML::convert<int>::decode(burst, b) || b < 0) {
      return d.Fail(burst, "rate_limit.burst must be a non-negative integer");
    }
    config->rate_limit_burst = b;
  }
}

std::string Sha256(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(md.data()), len);
}

// Reads cert_file, key_file and client_ca_file into cert, key and client_ca (a file wins over an
// inline value, as before files were read here).
// Each file's stamp goes to *stamps before it is read (a change while it is read is a change).
bool ReadTlsFiles(TlsServerConfig* tls, std::vector<FileStamp>* stamps, std::string* error) {
  const std::tuple<const std::string&, std::string*, const char*> files[] = {
      {tls->cert_file, &tls->cert, "cert_file"},
      {tls->key_file, &tls->key, "key_file"},
      {tls->client_ca_file, &tls->client_ca, "client_ca_file"},
  };
  for (const auto& [file, pem, field] : files) {
    if (file.empty()) continue;
    stamps->push_back(FileStamp::Of(file));
    Result<std::string> read = ReadWholeFile(file);
    if (!read.ok()) {
      *error = std::string("failed to read ") + field + " (" + file + "): " + read.error;
      return false;
    }
    *pem = std::move(*read);
  }
  return true;
}

}  // namespace

Result<WebConfig> ParseWebConfig(std::string_view yaml, const std::string& dir) {
  using R = Result<WebConfig>;
  WebConfig config;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return R::Fail("invalid YAML: " + std::string(e.what()));
  }
  Decoder d;
  try {
    if (root.IsNull()) return R::Ok(std::move(config));
    if (d.Mapping(root, "the web config",
                  {"tls_server_config", "http_server_config", "basic_auth_users", "rate_limit"})) {
      DecodeTls(d, root["tls_server_config"], dir, &config.tls);
      DecodeHttp(d, root["http_server_config"], &config);
      DecodeUsers(d, root["basic_auth_users"], &config);
      DecodeRateLimit(d, root["rate_limit"], &config);
    }
  } catch (const YAML::Exception& e) {
    d.Fail(root, std::string(e.what()));
  }
  if (!d.ok()) return R::Fail(d.error());
  return R::Ok(std::move(config));
}

namespace {

// LoadWebConfig, also giving the stamps of the files it read (taken before reading them): the
// config file, and the files it names when it could be parsed.
bool Load(const std::string& path, WebConfig* out, std::vector<FileStamp>* stamps,
          std::string* error) {
  stamps->assign({FileStamp::Of(path)});
  Result<std::string> read = ReadWholeFile(path);
  if (!read.ok()) {
    *error = "web config " + path + ": " + read.error;
    return false;
  }
  const std::string& text = *read;
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  Result<WebConfig> parsed = ParseWebConfig(text, dir);
  if (!parsed.ok()) {
    *error = "web config " + path + ": " + parsed.error;
    return false;
  }
  *out = std::move(*parsed);
  std::string problem;
  if (!ReadTlsFiles(&out->tls, stamps, &problem)) {
    *error = "web config " + path + ": " + problem;
    return false;
  }
  if (Result<bool> tls = CheckTlsConfig(out->tls); !tls.ok()) {
    *error = "web config " + path + ": " + tls.error;
    return false;
  }
  return true;
}

}  // namespace

Result<WebConfig> LoadWebConfig(const std::string& path) {
  WebConfig config;
  std::vector<FileStamp> stamps;
  std::string error;
  if (!Load(path, &config, &stamps, &error)) return Result<WebConfig>::Fail(std::move(error));
  return Result<WebConfig>::Ok(std::move(config));
}

bool IsBcryptHash(std::string_view h) {
  // $2y$10$ + 22 characters of salt + 31 of hash.
  if (h.size() != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$') return false;
  if (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') return false;
  if (!std::isdigit(static_cast<unsigned char>(h[4])) ||
      !std::isdigit(static_cast<unsigned char>(h[5]))) {
    return false;
  }
  const int cost = BcryptCost(h);
  if (cost < 4 || cost > 31) return false;
  return std::all_of(h.begin() + 7, h.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '/';
  });
}

int BcryptCost(std::string_view hash) { return (hash[4] - '0') * 10 + (hash[5] - '0'); }

bool VerifyBcrypt(const std::string& hash, const std::string& password) {
  if (!IsBcryptHash(hash) || password.find('\0') != std::string::npos) return false;
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* result = crypt_r(password.c_str(), hash.c_str(), data.get());
  if (result == nullptr || std::strlen(result) != hash.size()) return false;
  return CRYPTO_memcmp(result, hash.data(), hash.size()) == 0;
}

FileStamp FileStamp::Of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {path};
  return {path, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<int64_t>(st.st_size), static_cast<int64_t>(st.st_ino)};
}

Result<std::unique_ptr<WebConfigSource>> WebConfigSource::Open(const std::string& path,
                                                               const Clock& clock) {
  using R = Result<std::unique_ptr<WebConfigSource>>;
  std::unique_ptr<WebConfigSource> source(new WebConfigSource(path, clock));
  WebConfig config;
  std::string error;
  if (!Load(path, &config, &source->stamps_, &error)) return R::Fail(std::move(error));
  source->current_ = std::make_shared<const WebConfig>(std::move(config));
  source->last_success_ = clock.Now();
  return R::Ok(std::move(source));
}

bool WebConfigSource::Changed() const {
  return !std::all_of(stamps_.begin(), stamps_.end(),
                      [](const FileStamp& s) { return s.Current(); });
}

std::shared_ptr<const WebConfig> WebConfigSource::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Changed()) return current_;
  WebConfig config;
  std::string problem;
  // An error is remembered against the files that caused it: the config file, and the files it
  // names when it could be parsed; a change to any of them retries.
  const bool ok = Load(path_, &config, &stamps_, &problem);
  if (!ok) {
    if (error_ != problem) {
      LogError("cannot reload the web config; serving with the last good one", {{"err", problem}});
    }
    error_ = problem;
    return current_;
  }
  LogInfo("web config reloaded", {{"file", path_}});
  error_.clear();
  last_success_ = clock_.Now();
  current_ = std::make_shared<const WebConfig>(std::move(config));
  return current_;
}

WebConfigReloadStatus WebConfigSource::status() {
  Current();
  std::lock_guard<std::mutex> lock(mu_);
  return {error_.empty(), last_success_};
}

BasicAuthChecker::BasicAuthChecker(int slots, int queue) : slots_(slots), queue_(queue) {}

std::optional<BasicAuthChecker::Credentials> BasicAuthChecker::Parse(const char* authorization) {
  if (authorization == nullptr) return std::nullopt;
  std::string_view header(authorization);
  constexpr std::string_view kScheme = "Basic ";
  if (header.size() < kScheme.size() ||
      strncasecmp(header.data(), kScheme.data(), kScheme.size()) != 0) {
    return std::nullopt;
  }
  auto decoded = Base64Decode(header.substr(kScheme.size()));
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  // A NUL would end the password where crypt reads it: "secret\0x" must not pass as "secret".
  if (colon == std::string::npos || decoded->find('\0') != std::string::npos) return std::nullopt;
  return Credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

std::string BasicAuthChecker::CacheKey(const Credentials& c, const std::string& hash) {
  return Sha256(c.user + '\0' + hash + '\0' + c.password);
}

const std::string& BasicAuthChecker::DummyHash(int cost) {
  std::lock_guard<std::mutex> lock(dummy_mu_);
  std::string& hash = dummy_hashes_[cost];
  if (!hash.empty()) return hash;
  // A hash of a random password, checked for unknown users so that they cost as much as known
  // ones (no user enumeration by timing).
  std::array<unsigned char, 16> random{};
  RAND_bytes(random.data(), static_cast<int>(random.size()));
  const std::string password =
      Base64Encode(std::string_view(reinterpret_cast<const char*>(random.data()), random.size()));
  std::array<char, CRYPT_GENSALT_OUTPUT_SIZE> salt{};
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, salt.data(), static_cast<int>(salt.size()))) {
    auto data = std::make_unique<crypt_data>();
    std::memset(data.get(), 0, sizeof(crypt_data));
    if (const char* h = crypt_r(password.c_str(), salt.data(), data.get())) hash = h;
  }
  return hash;
}

const std::string& BasicAuthChecker::UnknownUserHash(const WebConfig& config) {
  int max_cost = 4;
  for (const auto& [user, hash] : config.basic_auth_users) {
    max_cost = std::max(max_cost, BcryptCost(hash));
  }
  return DummyHash(max_cost);
}

bool BasicAuthChecker::AcquireSlot(const std::string& client) {
  std::unique_lock<std::mutex> lock(slot_mu_);
  if (pending_.count(client) > 0) return false;
  if (running_ >= slots_) {
    if (waiting_ >= queue_) return false;
    pending_[client] = 1;
    ++waiting_;
    slot_cv_.wait(lock, [this] { return running_ < slots_; });
    --waiting_;
  }
  pending_[client] = 1;
  ++running_;
  return true;
}

void BasicAuthChecker::ReleaseSlot(const std::string& client) {
  {
    std::lock_guard<std::mutex> lock(slot_mu_);
    --running_;
    pending_.erase(client);
  }
  slot_cv_.notify_one();
}

int BasicAuthChecker::Pending(const std::string& client) {
  std::lock_guard<std::mutex> lock(slot_mu_);
  return static_cast<int>(pending_.count(client));
}

bool BasicAuthChecker::Cached(const WebConfig& config, const char* authorization) {
  if (config.basic_auth_users.empty()) return true;
  const auto credentials = Parse(authorization);
  if (!credentials) return false;
  const auto it = config.basic_auth_users.find(credentials->user);
  if (it == config.basic_auth_users.end()) return false;
  const std::string key = CacheKey(*credentials, it->second);
  std::lock_guard<std::mutex> lock(cache_mu_);
  return verified_.count(key) > 0;
}

AuthResult BasicAuthChecker::Check(const WebConfig& config, const char* authorization,
                                   const std::string& client) {
  if (Cached(config, authorization)) return AuthResult::kAllowed;
  const auto credentials = Parse(authorization);
  if (!credentials) return AuthResult::kDenied;
  const auto it = config.basic_auth_users.find(credentials->user);
  const bool known = it != config.basic_auth_users.end();
  if (!AcquireSlot(client)) return AuthResult::kBusy;
  // Inside the slot: making the unknown users' hash (once per cost) is bcrypt work too.
  const std::string& hash = known ? it->second : UnknownUserHash(config);
  const bool ok = VerifyBcrypt(hash, credentials->password) && known;
  ReleaseSlot(client);
  if (!ok) return AuthResult::kDenied;
  std::lock_guard<std::mutex> lock(cache_mu_);
  // Bounded; only credentials that verified get here, so guessing cannot grow or flush it.
  if (verified_.size() >= 1024) verified_.clear();
  verified_.insert(CacheKey(*credentials, hash));
  return AuthResult::kAllowed;
}

bool RateLimiter::Allow(Timestamp interval, int burst) {
  if (interval <= 0) return true;
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = clock_.MonotonicMs();
  if (tokens_ < 0) {
    tokens_ = burst;
  } else {
    tokens_ = std::min<double>(
        burst, tokens_ + static_cast<double>(now - last_ms_) / static_cast<double>(interval));
  }
  last_ms_ = now;
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

}  // namespace podwait
