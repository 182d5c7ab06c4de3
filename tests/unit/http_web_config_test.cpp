// ParseWebConfig, bcrypt checks, basic auth, the rate limiter and the status page's headers.
// The configs follow exporter-toolkit's docs/web-configuration.md and docs/web-config.yml. The
// bcrypt hashes are of "s3cret", made with Python's crypt.crypt("s3cret",
// crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)); the $2y$ one is the same hash with the
// prefix htpasswd -B writes ($2y$ and $2b$ are the same algorithm).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "exporter/common/base64.h"
#include "exporter/common/clock.h"
#include "exporter/http/server.h"
#include "exporter/http/views.h"
#include "exporter/http/web_config.h"
#include "tests/support/process.h"
#include "tests/support/result_assert.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr const char* kHash2b = "$2b$10$WhVwvwWDUxVzLt4w8b4OjeoxicxrqWTL59ByMMZV8LDKm5uOjFER6";
constexpr const char* kHash2y = "$2y$10$WhVwvwWDUxVzLt4w8b4OjeoxicxrqWTL59ByMMZV8LDKm5uOjFER6";

WebConfig Parse(const std::string& yaml, const std::string& dir = "/etc/podwait") {
  Result<WebConfig> c = ParseWebConfig(yaml, dir);
  EXPECT_TRUE(c.ok()) << c.error;
  return c.value.value_or(WebConfig{});
}

std::string ParseError(const std::string& yaml) {
  Result<WebConfig> c = ParseWebConfig(yaml, "/etc/podwait");
  EXPECT_FALSE(c.ok()) << yaml;
  return c.error;
}

TEST(ParseWebConfig, EmptyFileMeansPlainHttpWithoutAuth) {
  WebConfig c = Parse("");
  EXPECT_FALSE(c.tls.enabled());
  EXPECT_TRUE(c.basic_auth_users.empty());
  EXPECT_EQ(c.tls.min_version, 0x0303);
  EXPECT_EQ(c.tls.max_version, 0x0304);
}

TEST(ParseWebConfig, TheToolkitsSampleFile) {
  WebConfig c =
      Parse(std::string("tls_server_config:\n  cert_file: server.crt\n"
                        "  key_file: /abs/server.key\n"
                        "basic_auth_users:\n  alice: ") +
            kHash2y + "\n  bob: " + kHash2b + "\nrate_limit:\n  interval: \"1s\"\n  burst: 20\n");
  EXPECT_TRUE(c.tls.enabled());
  EXPECT_EQ(c.tls.cert_file, "/etc/podwait/server.crt");  // relative to the config's folder
  EXPECT_EQ(c.tls.key_file, "/abs/server.key");
  EXPECT_THAT(c.basic_auth_users, ElementsAre(Pair("alice", kHash2y), Pair("bob", kHash2b)));
  EXPECT_EQ(c.rate_limit_interval, 1000);
  EXPECT_EQ(c.rate_limit_burst, 20);
}

TEST(ParseWebConfig, ClientAuthVersionsCiphersCurves) {
  WebConfig c = Parse(
      "tls_server_config:\n  cert_file: a\n  key_file: b\n"
      "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n"
      "  client_allowed_sans: [prometheus.monitoring.svc]\n"
      "  min_version: TLS13\n  max_version: TLS13\n"
      "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]\n"
      "  prefer_server_cipher_suites: false\n  curve_preferences: [X25519, CurveP256]\n");
  EXPECT_EQ(c.tls.client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(c.tls.client_ca_file, "/etc/podwait/ca.crt");
  EXPECT_THAT(c.tls.client_allowed_sans, ElementsAre("prometheus.monitoring.svc"));
  EXPECT_EQ(c.tls.min_version, 0x0304);
  // TLS 1.3 suites are not configurable (as in Go); only the TLS 1.2 one is kept.
  EXPECT_THAT(c.tls.cipher_suites, ElementsAre("ECDHE-RSA-AES128-GCM-SHA256"));
  EXPECT_FALSE(c.tls.prefer_server_cipher_suites);
  EXPECT_THAT(c.tls.curve_preferences, ElementsAre("X25519", "P-256"));
  EXPECT_EQ(Parse("tls_server_config:\n  client_auth_type: RequireClientCert\n").tls.client_auth,
            ClientAuth::kRequireAnyClientCert);
}

TEST(ParseWebConfig, HeadersTheToolkitAllows) {
  WebConfig c = Parse(
      "http_server_config:\n  http2: false\n  headers:\n"
      "    X-Frame-Options: deny\n    Strict-Transport-Security: max-age=31536000\n"
      "    X-XSS-Protection: \"\"\n");
  EXPECT_FALSE(c.http2);
  // Blank means unset.
  EXPECT_THAT(c.headers, ElementsAre(Pair("X-Frame-Options", "deny"),
                                     Pair("Strict-Transport-Security", "max-age=31536000")));
}

TEST(ParseWebConfig, StrictErrors) {
  EXPECT_THAT(ParseError("tls_server_config: [\n"), HasSubstr("invalid YAML"));
  EXPECT_THAT(ParseError("tls_config:\n  cert_file: a\n"),
              HasSubstr("field tls_config not found in the web config"));
  EXPECT_THAT(ParseError("tls_server_config:\n  certfile: a\n"),
              HasSubstr("line 2: field certfile not found in tls_server_config"));
  EXPECT_THAT(ParseError("tls_server_config:\n  client_auth_type: Maybe\n"),
              HasSubstr("invalid ClientAuth: Maybe"));
  EXPECT_THAT(ParseError("tls_server_config:\n  min_version: TLS14\n"),
              HasSubstr("unknown TLS version: TLS14"));
  EXPECT_THAT(ParseError("tls_server_config:\n  cipher_suites: [RC4]\n"),
              HasSubstr("unknown cipher: RC4"));
  EXPECT_THAT(ParseError("tls_server_config:\n  curve_preferences: [P-256]\n"),
              HasSubstr("unknown curve: P-256"));
  EXPECT_THAT(ParseError("http_server_config:\n  headers:\n    Server: x\n"),
              HasSubstr("HTTP header \"Server\" can not be configured"));
  EXPECT_THAT(ParseError("http_server_config:\n  headers:\n    X-Frame-Options: DENY\n"),
              HasSubstr("invalid value for X-Frame-Options. Expected one of: [\"deny\" "
                        "\"sameorigin\"], but got: \"DENY\""));
  EXPECT_THAT(ParseError("http_server_config:\n  http2: maybe\n"),
              HasSubstr("http2 must be true or false"));
  EXPECT_THAT(ParseError("rate_limit:\n  interval: soon\n"), HasSubstr("invalid duration"));
  EXPECT_THAT(
      ParseError(std::string("basic_auth_users:\n  a: ") + kHash2b + "\n  a: " + kHash2y + "\n"),
      HasSubstr("line 3: key \"a\" already set in map"));
  EXPECT_THAT(ParseError("tls_server_config:\n  cert_file: a\n  cert_file: b\n"),
              HasSubstr("key \"cert_file\" already set in map"));
}

TEST(ParseWebConfig, PasswordsMustBeBcryptAndAreNotEchoed) {
  const std::string error = ParseError("basic_auth_users:\n  alice: hunter2\n");
  EXPECT_THAT(error, HasSubstr("user \"alice\" is not a bcrypt hash"));
  EXPECT_THAT(error, ::testing::Not(HasSubstr("hunter2")));
  // An MD5-crypt hash (htpasswd without -B) is refused too.
  EXPECT_THAT(ParseError("basic_auth_users:\n  alice: $apr1$x$y\n"), HasSubstr("bcrypt"));
}

TEST(Bcrypt, Verifies2b2y2aHashes) {
  EXPECT_TRUE(IsBcryptHash(kHash2b));
  EXPECT_TRUE(VerifyBcrypt(kHash2b, "s3cret"));
  EXPECT_TRUE(VerifyBcrypt(kHash2y, "s3cret"));
  EXPECT_FALSE(VerifyBcrypt(kHash2b, "s3cret "));
  EXPECT_FALSE(VerifyBcrypt(kHash2b, ""));
  EXPECT_FALSE(IsBcryptHash("$2b$03$WhVwvwWDUxVzLt4w8b4OjeoxicxrqWTL59ByMMZV8LDKm5uOjFER6"));
  EXPECT_FALSE(IsBcryptHash("$2x$10$WhVwvwWDUxVzLt4w8b4OjeoxicxrqWTL59ByMMZV8LDKm5uOjFER6"));
  EXPECT_FALSE(IsBcryptHash(std::string(kHash2b).substr(0, 59)));
}

std::string BasicHeader(const std::string& user_password) {
  return "Basic " + Base64Encode(user_password);
}

TEST(BasicAuthChecker, OnlyTheRightUserAndPassword) {
  WebConfig c;
  BasicAuthChecker auth;
  auto check = [&](const char* header) { return auth.Check(c, header); };
  EXPECT_EQ(check(nullptr), AuthResult::kAllowed);  // no users: no auth
  c.basic_auth_users["prometheus"] = kHash2y;
  EXPECT_EQ(check(nullptr), AuthResult::kDenied);
  EXPECT_FALSE(auth.Cached(c, BasicHeader("prometheus:s3cret").c_str()));
  EXPECT_EQ(check(BasicHeader("prometheus:s3cret").c_str()), AuthResult::kAllowed);
  EXPECT_TRUE(auth.Cached(c, BasicHeader("prometheus:s3cret").c_str()));
  EXPECT_EQ(check(("basic " + Base64Encode("prometheus:s3cret")).c_str()), AuthResult::kAllowed);
  EXPECT_EQ(check(BasicHeader("prometheus:wrong").c_str()), AuthResult::kDenied);
  EXPECT_EQ(check(BasicHeader("other:s3cret").c_str()), AuthResult::kDenied);
  EXPECT_EQ(check(BasicHeader("prometheus").c_str()), AuthResult::kDenied);
  EXPECT_EQ(check("Bearer abc"), AuthResult::kDenied);
  EXPECT_EQ(check("Basic !!!"), AuthResult::kDenied);
  // A changed hash (a reloaded config) is not answered from the cache of the old one.
  c.basic_auth_users["prometheus"] = "$2b$04$" + std::string(53, 'a');
  EXPECT_FALSE(auth.Cached(c, BasicHeader("prometheus:s3cret").c_str()));
  EXPECT_EQ(check(BasicHeader("prometheus:s3cret").c_str()), AuthResult::kDenied);
}

// crypt() reads a password up to its first NUL: "s3cret\0x" must not pass as "s3cret".
TEST(BasicAuthChecker, NulByteInCredentialsIsRefused) {
  WebConfig c;
  c.basic_auth_users["prometheus"] = kHash2b;
  BasicAuthChecker auth;
  EXPECT_EQ(auth.Check(c, BasicHeader(std::string("prometheus:s3cret\0x", 19)).c_str()),
            AuthResult::kDenied);
  EXPECT_EQ(auth.Check(c, BasicHeader(std::string("prometheus\0y:s3cret", 19)).c_str()),
            AuthResult::kDenied);
  EXPECT_FALSE(VerifyBcrypt(kHash2b, std::string("s3cret\0x", 8)));
  EXPECT_EQ(auth.Check(c, BasicHeader("prometheus:s3cret").c_str()), AuthResult::kAllowed);
}

// Wrong passwords are not cached, so a guesser cannot flush the good credentials out of the
// cache (it held 1,024 results of either kind and was emptied when full).
TEST(BasicAuthChecker, GuessesNeverEvictVerifiedCredentials) {
  WebConfig c;
  // A cost-4 hash of "s3cret" (crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)), so the
  // guesses below are quick.
  c.basic_auth_users["prometheus"] = "$2b$04$PhOrYZZfxLvKPRsb/cq.ouei2qTkZSGBXg8cYezXz00o92hjNI/pq";
  BasicAuthChecker auth;
  ASSERT_EQ(auth.Check(c, BasicHeader("prometheus:s3cret").c_str()), AuthResult::kAllowed);
  for (int i = 0; i < 1100; ++i) {
    ASSERT_EQ(auth.Check(c, BasicHeader("prometheus:guess" + std::to_string(i)).c_str()),
              AuthResult::kDenied);
  }
  EXPECT_TRUE(auth.Cached(c, BasicHeader("prometheus:s3cret").c_str()));
}

// Without a free bcrypt slot (and no room to wait) an unverified request is answered at once,
// never queued on a worker thread; verified credentials need no slot.
TEST(BasicAuthChecker, BusyWhenEveryBcryptSlotIsTaken) {
  WebConfig c;
  c.basic_auth_users["prometheus"] = kHash2b;
  BasicAuthChecker no_slots(/*slots=*/0, /*queue=*/0);
  EXPECT_EQ(no_slots.Check(c, BasicHeader("prometheus:s3cret").c_str()), AuthResult::kBusy);
  EXPECT_EQ(no_slots.Check(c, BasicHeader("nobody:s3cret").c_str()), AuthResult::kBusy);
  // Malformed credentials need no bcrypt at all.
  EXPECT_EQ(no_slots.Check(c, "Bearer abc"), AuthResult::kDenied);
}

// One bcrypt check at a time per client address: a guesser's connections cannot take every
// slot from a client whose credentials are not verified yet (after a restart or a reload).
TEST(BasicAuthChecker, OneCheckAtATimePerClient) {
  WebConfig c;
  // Cost 13 (Python's crypt, rounds=1 << 13): the first check below is still running while the
  // others are made.
  c.basic_auth_users["slow"] = "$2b$13$6KG38ElcthAy3.GDnqFnk.mz6RrgUwpdB5AWZOh9GOkOJ3w52IMYq";
  c.basic_auth_users["prometheus"] = "$2b$04$PhOrYZZfxLvKPRsb/cq.ouei2qTkZSGBXg8cYezXz00o92hjNI/pq";
  BasicAuthChecker auth(/*slots=*/2, /*queue=*/8);
  std::thread guesser([&] {
    EXPECT_EQ(auth.Check(c, BasicHeader("slow:guess").c_str(), "10.0.0.66"), AuthResult::kDenied);
  });
  ASSERT_TRUE(
      testing::WaitFor([&] { return auth.Pending("10.0.0.66") == 1; }, std::chrono::seconds(10)));
  EXPECT_EQ(auth.Check(c, BasicHeader("slow:guess2").c_str(), "10.0.0.66"), AuthResult::kBusy);
  EXPECT_EQ(auth.Check(c, BasicHeader("prometheus:s3cret").c_str(), "10.0.0.5"),
            AuthResult::kAllowed);
  guesser.join();
  EXPECT_EQ(auth.Pending("10.0.0.66"), 0);
}

// An unknown user is checked against a hash of the highest cost among the configured users, so
// it costs what guessing the slowest known user costs.
TEST(BasicAuthChecker, UnknownUsersCostTheHighestConfiguredCost) {
  WebConfig c;
  c.basic_auth_users["prometheus"] = kHash2b;                        // cost 10
  c.basic_auth_users["grafana"] = "$2b$05$" + std::string(53, 'a');  // cost 5
  BasicAuthChecker auth;
  const std::string hash = auth.UnknownUserHash(c);
  ASSERT_TRUE(IsBcryptHash(hash)) << hash;
  EXPECT_EQ(BcryptCost(hash), 10);
  c.basic_auth_users["admin"] = "$2b$06$" + std::string(53, 'a');
  EXPECT_EQ(BcryptCost(auth.UnknownUserHash(c)), 10);
}

// A web config whose files change under a running server: a reload that fails keeps the last
// good config (and says so), is retried when any file it read changes, and recovers by itself.
class WebConfigReload : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    std::string output;
    for (const auto& argv : testing::TestCaCommands(dir_)) {
      ASSERT_EQ(testing::RunCommand(argv, &output), 0) << output;
    }
    for (const char* name : {"one", "two"}) {
      ASSERT_EQ(
          testing::RunCommand(
              testing::OpensslReq({"-CA", dir_ + "/ca.crt", "-CAkey", dir_ + "/ca.key", "-keyout",
                                   dir_ + "/" + name + ".key", "-out", dir_ + "/" + name + ".crt",
                                   "-subj", std::string("/CN=") + name}),
              &output),
          0)
          << output;
    }
    Copy("one.crt", "tls.crt");
    Copy("one.key", "tls.key");
    Replace("web.yml", "tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n");
  }
  // As the kubelet updates a Secret's files: a new file renamed over the old one.
  void Replace(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name + ".new", std::ios::trunc) << text;
    ASSERT_EQ(std::rename((dir_ + "/" + name + ".new").c_str(), (dir_ + "/" + name).c_str()), 0);
  }
  void Copy(const std::string& from, const std::string& to) {
    Replace(to, testing::ReadFile(dir_ + "/" + from));
  }
  std::string dir_;
};

TEST_F(WebConfigReload, BadCertificateKeepsTheLastGoodOneUntilItIsFixed) {
  FakeClock clock;
  auto opened = WebConfigSource::Open(dir_ + "/web.yml", clock);
  ASSERT_TRUE(testing::IsOk(opened));
  std::unique_ptr<WebConfigSource>& source = *opened;
  const std::string first_cert = source->Current()->tls.cert;
  EXPECT_THAT(first_cert, HasSubstr("BEGIN CERTIFICATE"));
  const Timestamp loaded = clock.Now();
  clock.Advance(60 * kSecond);

  // A half-written renewal while the web config itself changes too (the outage: the
  // error was cached against the web config's stamp only).
  Replace("tls.crt", "-----BEGIN CERTIFICATE-----\nMIIB");
  Replace("web.yml", "tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n# v2\n");
  EXPECT_EQ(source->Current()->tls.cert, first_cert);  // still served
  WebConfigReloadStatus status = source->status();
  EXPECT_FALSE(status.successful);
  EXPECT_EQ(status.last_success, loaded);

  // The renewal completes; the web config file is not touched again.
  clock.Advance(60 * kSecond);
  Copy("two.crt", "tls.crt");
  Copy("two.key", "tls.key");
  status = source->status();
  EXPECT_TRUE(status.successful);
  EXPECT_EQ(status.last_success, clock.Now());
  EXPECT_EQ(source->Current()->tls.cert, testing::ReadFile(dir_ + "/two.crt"));
}

TEST_F(WebConfigReload, GarbageOrDeletedConfigKeepsTheLastGoodOne) {
  FakeClock clock;
  auto opened = WebConfigSource::Open(dir_ + "/web.yml", clock);
  ASSERT_TRUE(testing::IsOk(opened));
  std::unique_ptr<WebConfigSource>& source = *opened;
  Replace("web.yml", "basic_auth_users: [unclosed\n");
  EXPECT_TRUE(source->Current()->tls.enabled());
  EXPECT_FALSE(source->status().successful);
  ASSERT_EQ(::unlink((dir_ + "/web.yml").c_str()), 0);
  EXPECT_TRUE(source->Current()->tls.enabled());
  EXPECT_FALSE(source->status().successful);
  Replace("web.yml", std::string("basic_auth_users:\n  prometheus: ") + kHash2b + "\n");
  EXPECT_TRUE(source->status().successful);
  EXPECT_FALSE(source->Current()->tls.enabled());
  EXPECT_EQ(source->Current()->basic_auth_users.count("prometheus"), 1u);
}

TEST(RateLimiter, TokenBucket) {
  FakeClock clock;
  RateLimiter limiter(clock);
  EXPECT_TRUE(limiter.Allow(0, 0));  // interval 0: off
  EXPECT_TRUE(limiter.Allow(1000, 2));
  EXPECT_TRUE(limiter.Allow(1000, 2));
  EXPECT_FALSE(limiter.Allow(1000, 2));
  clock.Advance(1000);
  EXPECT_TRUE(limiter.Allow(1000, 2));
  EXPECT_FALSE(limiter.Allow(1000, 2));
}

TEST(MergeHeaders, OwnValuesWinCaseInsensitively) {
  HttpHeaders merged =
      MergeHeaders({{"X-Frame-Options", "DENY"}},
                   {{"x-frame-options", "sameorigin"}, {"Strict-Transport-Security", "max-age=1"}});
  EXPECT_THAT(merged, ElementsAre(Pair("X-Frame-Options", "DENY"),
                                  Pair("Strict-Transport-Security", "max-age=1")));
}

TEST(StatusPageHeaders, PolicyAllowsExactlyThePagesOwnStyleAndScript) {
  const std::string page = RenderStatusPage(ViewModel{}, {}, {});
  auto hash_of = [&page](const std::string& open_tag, const std::string& close_tag) {
    const auto open = page.find(open_tag) + open_tag.size();
    const std::string text = page.substr(open, page.find(close_tag, open) - open);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr);
    return Base64Encode(std::string_view(reinterpret_cast<char*>(md), len));
  };

  auto headers = StatusPageHeaders();
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0].first, "Content-Security-Policy");
  EXPECT_EQ(headers[0].second, "default-src 'none'; style-src 'sha256-" +
                                   hash_of("<style>", "</style>") + "'; script-src 'sha256-" +
                                   hash_of("</script><script>", "</script>") +
                                   "'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                                   "frame-ancestors 'none'");
  EXPECT_THAT(headers[1], Pair("X-Frame-Options", "DENY"));
  // Nothing else on the page would need the policy to allow it: one script, and one inert data
  // block (not run, so not subject to script-src).
  size_t scripts = 0;
  for (size_t at = page.find("<script"); at != std::string::npos;
       at = page.find("<script", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 2u);
  EXPECT_NE(page.find("<script type=\"application/json\" id=\"podwait-classes\">"),
            std::string::npos);
  EXPECT_EQ(page.find(" style="), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
}

}  // namespace
}  // namespace podwait
