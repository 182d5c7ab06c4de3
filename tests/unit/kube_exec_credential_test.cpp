// Exec credential plugins: the ExecCredential a plugin prints, KUBERNETES_EXEC_INFO, running a
// plugin (small shell scripts written by the test stand in for aws, gke-gcloud-auth-plugin, ...),
// and the token source built on it: cached until the expiry, run again after Invalidate(), the last
// good token kept while the plugin fails, a hanging plugin killed at the timeout.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "exporter/kube/exec_credential.h"
#include "exporter/kube/token_source.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

constexpr const char* kV1beta1Credential = R"({
  "kind": "ExecCredential",
  "apiVersion": "client.authentication.k8s.io/v1beta1",
  "spec": {},
  "status": {"expirationTimestamp": "2024-05-06T10:15:00Z", "token": "k8s-aws-v1.made-up"}
})";

TEST(ExecCredential, ParsesTokenAndExpiry) {
  ExecCredentialParse p = ParseExecCredential(kV1beta1Credential, kExecApiV1beta1);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.value->token, "k8s-aws-v1.made-up");
  EXPECT_EQ(p.value->expires_at, *ParseRfc3339("2024-05-06T10:15:00Z"));

  p = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("status":{"token":"t"}})",
      kExecApiV1);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.value->expires_at, 0);  // none: valid until a 401
}

TEST(ExecCredential, RejectsWhatIsNotAUsableCredential) {
  EXPECT_THAT(ParseExecCredential(kV1beta1Credential, kExecApiV1).error,
              HasSubstr("the kubeconfig asks for \"client.authentication.k8s.io/v1\""));
  EXPECT_THAT(ParseExecCredential("token: x", kExecApiV1).error, HasSubstr("not a JSON object"));
  EXPECT_THAT(ParseExecCredential(R"({"kind":"Status"})", kExecApiV1).error,
              HasSubstr("not an ExecCredential"));
  EXPECT_THAT(
      ParseExecCredential(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})", kExecApiV1)
          .error,
      HasSubstr("has no status"));
  EXPECT_THAT(ParseExecCredential(
                  R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----",)"
                  R"("clientKeyData":"-----BEGIN PRIVATE KEY-----"}})",
                  kExecApiV1)
                  .error,
              AllOf(HasSubstr("client certificate"), HasSubstr("return a token")));
  EXPECT_THAT(ParseExecCredential(
                  R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{"token":"t","expirationTimestamp":"tomorrow"}})",
                  kExecApiV1)
                  .error,
              HasSubstr("\"tomorrow\" is not RFC 3339"));
}

TEST(ExecCredential, ExecInfoSaysNonInteractiveAndDescribesTheClusterWhenAsked) {
  ExecPlugin plugin;
  plugin.api_version = std::string(kExecApiV1);
  EXPECT_EQ(ExecInfoJson(plugin),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"interactive":false}})");
  plugin.provide_cluster_info = true;
  plugin.server = "https://203.0.113.10";
  plugin.certificate_authority_pem = "-----BEGIN CERTIFICATE-----\n";
  EXPECT_EQ(ExecInfoJson(plugin),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"cluster":{"server":"https://203.0.113.10",)"
            R"("certificate-authority-data":"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="},)"
            R"("interactive":false}})");
}

// A directory with an executable shell script standing in for a plugin.
class ExecPluginTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir(); }

  // Writes `body` as an executable sh script; returns a plugin that runs it.
  ExecPlugin Script(const std::string& body) {
    const std::string path = dir_ + "/plugin.sh";
    {
      std::ofstream out(path, std::ios::trunc);
      out << "#!/bin/sh\n" << body;
    }
    chmod(path.c_str(), 0755);
    ExecPlugin plugin;
    plugin.api_version = std::string(kExecApiV1beta1);
    plugin.command = path;
    return plugin;
  }
  // A script that counts its runs in <dir>/runs, fails (stderr "boom") while <dir>/fail exists,
  // and prints the token "token-<run>" expiring at $EXPIRY.
  ExecPlugin CountingScript() {
    ExecPlugin plugin = Script(
        "n=$(($(cat \"$DIR/runs\" 2>/dev/null || echo 0) + 1)); echo $n > \"$DIR/runs\"\n"
        "if [ -e \"$DIR/fail\" ]; then echo \"boom: run $n\" >&2; exit 1; fi\n"
        "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":{\"token\":"
        "\"token-%s\",\"expirationTimestamp\":\"%s\"}}' \"$API\" \"$n\" \"$EXPIRY\"\n");
    plugin.env = {{"DIR", dir_},
                  {"API", plugin.api_version},
                  {"EXPIRY", FormatRfc3339(clock_.Now() + kHour)}};
    return plugin;
  }
  int Runs() {
    int n = 0;
    std::ifstream(dir_ + "/runs") >> n;
    return n;
  }
  void SetFailing(bool fail) {
    if (fail) {
      std::ofstream(dir_ + "/fail") << "";
    } else {
      std::remove((dir_ + "/fail").c_str());
    }
  }

  static constexpr Timestamp kHour = 60 * kMinute;
  std::string dir_;
  FakeClock clock_;
};

TEST_F(ExecPluginTest, RunsWithArgsEnvAndExecInfo) {
  ExecPlugin plugin = Script(
      "printf '%s\\n' \"$@\" > \"$DIR/args\"\n"
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$DIR/info\"\n"
      "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":"
      "\"client.authentication.k8s.io/v1beta1\",\"status\":{\"token\":\"made-up\"}}'\n");
  plugin.args = {"eks", "get-token", "--cluster-name", "tidb prod"};
  plugin.env = {{"DIR", dir_}};
  ExecCredentialParse cred = RunExecPlugin(plugin, 10'000);
  ASSERT_TRUE(cred.ok()) << cred.error;
  EXPECT_EQ(cred.value->token, "made-up");
  EXPECT_EQ(testing::ReadFile(dir_ + "/args"), "eks\nget-token\n--cluster-name\ntidb prod\n");
  EXPECT_EQ(testing::ReadFile(dir_ + "/info"), ExecInfoJson(plugin));
}

TEST_F(ExecPluginTest, FailuresSayWhatHappened) {
  ExecPlugin missing;
  missing.api_version = std::string(kExecApiV1);
  missing.command = "podwait-no-such-plugin";
  missing.install_hint = "install it with: made-up-installer";
  EXPECT_THAT(RunExecPlugin(missing, 10'000).error,
              AllOf(HasSubstr("\"podwait-no-such-plugin\" cannot be started"),
                    HasSubstr("made-up-installer")));

  EXPECT_THAT(
      RunExecPlugin(Script("echo 'token expired; run aws sso login' >&2; exit 255\n"), 10'000)
          .error,
      AllOf(HasSubstr("exited with status 255"),
            HasSubstr("stderr: token expired; run aws sso login")));
  EXPECT_THAT(RunExecPlugin(Script("echo not json\n"), 10'000).error,
              AllOf(HasSubstr("plugin.sh"), HasSubstr("not a JSON object")));
  // Long stderr is cut.
  const std::string long_err =
      RunExecPlugin(Script("head -c 5000 /dev/zero | tr '\\0' x >&2; exit 1\n"), 10'000).error;
  EXPECT_LT(long_err.size(), 1000u);
  EXPECT_THAT(long_err, HasSubstr("xxx ..."));
}

TEST_F(ExecPluginTest, AHangingPluginIsKilledAtTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  ExecCredentialParse cred =
      RunExecPlugin(Script("echo waiting for a browser >&2\nsleep 30\n"), 300);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_THAT(cred.error, AllOf(HasSubstr("did not finish within 300ms and was killed"),
                                HasSubstr("waiting for a browser")));

  ExecTokenOptions options;
  options.timeout_ms = 300;
  auto tokens = MakeExecTokenSource(Script("sleep 30\n"), Environment{&clock_}, options);
  EXPECT_EQ(tokens->Token(), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST_F(ExecPluginTest, CancelStopsAHangingPluginForEveryWaitingCaller) {
  // Shutdown while a plugin hangs (an SSO prompt nobody answers): the caller running it and the
  // callers waiting for the lock all return within a second, not at the 30 s timeout.
  ExecPlugin plugin = Script("touch \"$DIR/started\"\nsleep 30\n");
  plugin.env = {{"DIR", dir_}};
  auto tokens = MakeExecTokenSource(plugin, Environment{&clock_});
  std::vector<std::thread> callers;
  std::atomic<int> returned{0};
  for (int i = 0; i < 3; ++i) {
    callers.emplace_back([&] {
      EXPECT_EQ(tokens->Token(), "");
      ++returned;
    });
  }
  ASSERT_TRUE(testing::WaitFor([&] { return std::ifstream(dir_ + "/started").good(); }, 10s));
  const auto start = std::chrono::steady_clock::now();
  tokens->Cancel();
  for (auto& t : callers) t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_EQ(returned.load(), 3);
  EXPECT_EQ(tokens->Token(), "") << "still no token after Cancel()";
}

TEST_F(ExecPluginTest, TokenIsCachedUntilShortlyBeforeItExpires) {
  auto tokens = MakeExecTokenSource(CountingScript(), Environment{&clock_});  // margin 30 s
  EXPECT_EQ(tokens->Token(), "token-1");
  EXPECT_EQ(tokens->Token(), "token-1");
  clock_.Advance(kHour - 31 * kSecond);
  EXPECT_EQ(tokens->Token(), "token-1");
  EXPECT_EQ(Runs(), 1);
  clock_.Advance(2 * kSecond);
  EXPECT_EQ(tokens->Token(), "token-2");
  EXPECT_EQ(tokens->reads(), 2);
}

TEST_F(ExecPluginTest, InvalidateRunsThePluginAgain) {
  auto tokens = MakeExecTokenSource(CountingScript(), Environment{&clock_});
  EXPECT_EQ(tokens->Token(), "token-1");
  tokens->Invalidate();  // a 401
  EXPECT_EQ(tokens->Token(), "token-2");
  EXPECT_EQ(tokens->Token(), "token-2");
  EXPECT_EQ(Runs(), 2);
}

TEST_F(ExecPluginTest, AFailingPluginKeepsTheLastTokenAndWarnsOncePerStreak) {
  std::FILE* log = std::tmpfile();
  ConfigureLogging(LogLevel::kInfo, LogFormat::kLogfmt, log);
  auto tokens = MakeExecTokenSource(CountingScript(), Environment{&clock_});  // retry after 5 s
  EXPECT_EQ(tokens->Token(), "token-1");
  SetFailing(true);
  tokens->Invalidate();
  EXPECT_EQ(tokens->Token(), "token-1");  // run 2 failed
  EXPECT_EQ(tokens->Token(), "token-1");  // not run again at once
  EXPECT_EQ(Runs(), 2);
  clock_.Advance(kHour);                  // expired, and past the retry wait
  EXPECT_EQ(tokens->Token(), "token-1");  // run 3 failed
  EXPECT_EQ(tokens->Token(), "token-1");  // expired, but the plugin waits 5 s after a failure
  EXPECT_EQ(Runs(), 3);
  SetFailing(false);
  clock_.Advance(5 * kSecond);
  EXPECT_EQ(tokens->Token(), "token-4");
  EXPECT_EQ(tokens->reads(), 2);

  ConfigureLogging(LogLevel::kInfo, LogFormat::kLogfmt, stderr);
  std::fflush(log);
  std::rewind(log);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), log)) > 0;) text.append(buf, n);
  std::fclose(log);
  size_t warnings = 0;
  for (size_t at = text.find("cannot get the Kubernetes token"); at != std::string::npos;
       at = text.find("cannot get the Kubernetes token", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1u) << text;
  EXPECT_THAT(text, HasSubstr("boom: run 2"));  // the plugin's stderr, in the warning
  EXPECT_THAT(text, Not(HasSubstr("boom: run 3")));
  EXPECT_THAT(text, HasSubstr("got a Kubernetes token again"));
  EXPECT_THAT(text, Not(HasSubstr("token-1")));  // never a token
}

TEST_F(ExecPluginTest, SeveralThreadsShareOneToken) {
  // Reflectors call Token() from their own threads, and Invalidate() after a 401.
  auto tokens = MakeExecTokenSource(CountingScript(), Environment{&clock_});
  std::vector<std::thread> threads;
  std::atomic<int> empty{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        if (tokens->Token().rfind("token-", 0) != 0) ++empty;
        if ((i + t) % 3 == 0) tokens->Invalidate();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(empty.load(), 0);
  EXPECT_EQ(tokens->reads(), Runs());
  EXPECT_LE(Runs(), 20);
}

}  // namespace
}  // namespace podwait
