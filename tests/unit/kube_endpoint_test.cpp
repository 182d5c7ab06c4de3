// Endpoint resolution (explicit URL, --kubeconfig, in-cluster, $KUBECONFIG, ~/.kube/config, in
// that order; the kubeconfigs written here are made up), the rotating token file and the token
// source an endpoint asks for.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <map>

#include "exporter/kube/endpoint.h"
#include "exporter/kube/kubeconfig.h"
#include "exporter/kube/token_source.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::trunc);
  out << content;
}

TEST(ResolveKubeEndpoint, InClusterFromEnvironment) {
  KubeEndpointFlags config;
  auto ep = ResolveKubeEndpoint(config, FakeEnv({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                                 {"KUBERNETES_SERVICE_PORT", "443"}}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "https://10.96.0.1:443");
  EXPECT_EQ(ep->token_file, kServiceAccountTokenFile);
  EXPECT_EQ(ep->tls.ca_file, kServiceAccountCaFile);
  EXPECT_FALSE(ep->tls.insecure_skip_verify);
  EXPECT_TRUE(ep->in_cluster());
}

TEST(ResolveKubeEndpoint, InClusterIpv6HostIsBracketed) {
  KubeEndpointFlags config;
  config.token_file = "/custom/token";
  auto ep = ResolveKubeEndpoint(config, FakeEnv({{"KUBERNETES_SERVICE_HOST", "fd00::1"},
                                                 {"KUBERNETES_SERVICE_PORT", "6443"}}));
  ASSERT_TRUE(ep.ok());
  EXPECT_EQ(ep->api_url, "https://[fd00::1]:6443");
  EXPECT_EQ(ep->token_file, "/custom/token");
}

TEST(ResolveKubeEndpoint, ExplicitUrlWinsAndKeepsFlags) {
  KubeEndpointFlags config;
  config.api_url = "http://127.0.0.1:8001/";
  config.insecure_skip_tls_verify = true;
  auto ep = ResolveKubeEndpoint(config, FakeEnv({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                                 {"KUBERNETES_SERVICE_PORT", "443"}}));
  ASSERT_TRUE(ep.ok());
  EXPECT_EQ(ep->api_url, "http://127.0.0.1:8001");
  EXPECT_TRUE(ep->token_file.empty());
  EXPECT_TRUE(ep->tls.insecure_skip_verify);
  EXPECT_FALSE(ep->in_cluster());
}

TEST(ResolveKubeEndpoint, NeitherIsAnError) {
  KubeEndpointFlags config;
  Result<KubeEndpoint> ep;
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  EXPECT_FALSE(ep.ok());
  EXPECT_NE(ep.error.find("KUBERNETES_SERVICE_HOST"), std::string::npos);
  config.api_url = "ftp://x";
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  EXPECT_FALSE(ep.ok());
}

const std::map<std::string, std::string> kInCluster = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                                       {"KUBERNETES_SERVICE_PORT", "443"}};

// A kubeconfig in a fresh directory whose only context points at `server`.
std::string WriteKubeconfig(const std::string& server, const std::string& user = "token: made-up",
                            const std::string& dir = testing::MakeTempDir()) {
  const std::string path = dir + "/config";
  WriteFile(path,
            "current-context: here\n"
            "contexts: [{name: here, context: {cluster: k, user: u}},\n"
            "           {name: there, context: {cluster: k2, user: u}}]\n"
            "clusters: [{name: k, cluster: {server: \"" +
                server +
                "\"}},\n"
                "           {name: k2, cluster: {server: \"https://there.example\"}}]\n"
                "users: [{name: u, user: {" +
                user + "}}]\n");
  return path;
}

std::map<std::string, std::string> With(std::map<std::string, std::string> env,
                                        const std::map<std::string, std::string>& more) {
  env.insert(more.begin(), more.end());
  return env;
}

TEST(ResolveKubeEndpoint, KubeconfigFlagWinsOverInCluster) {
  KubeEndpointFlags config;
  config.kubeconfig = WriteKubeconfig("https://flag.example:6443");
  auto ep = ResolveKubeEndpoint(config, FakeEnv(kInCluster));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "https://flag.example:6443");
  EXPECT_EQ(ep->source, "--kubeconfig");
  EXPECT_EQ(ep->kubeconfig, config.kubeconfig);
  EXPECT_EQ(ep->context, "here");
  EXPECT_EQ(ep->token, "made-up");
  EXPECT_FALSE(ep->in_cluster());
}

TEST(ResolveKubeEndpoint, ApiUrlWinsOverKubeconfigWithAWarning) {
  KubeEndpointFlags config;
  config.api_url = "http://127.0.0.1:8001";
  config.kubeconfig = WriteKubeconfig("https://flag.example:6443");
  auto ep = ResolveKubeEndpoint(config, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "http://127.0.0.1:8001");
  EXPECT_EQ(ep->source, "--kube.api-url");
  EXPECT_THAT(ep->warnings, ::testing::ElementsAre(::testing::HasSubstr("ignored")));
}

TEST(ResolveKubeEndpoint, InClusterWinsOverKubeconfigVariableAndHome) {
  const std::string home = testing::MakeTempDir();
  mkdir((home + "/.kube").c_str(), 0700);
  WriteKubeconfig("https://home.example", "token: t", home + "/.kube");
  const std::string env_file = WriteKubeconfig("https://env.example");
  KubeEndpointFlags config;
  auto ep = ResolveKubeEndpoint(
      config, FakeEnv(With(kInCluster, {{"KUBECONFIG", env_file}, {"HOME", home}})));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->source, "in-cluster");
  EXPECT_EQ(ep->api_url, "https://10.96.0.1:443");

  // Without the in-cluster variables: $KUBECONFIG, then ~/.kube/config.
  ep = ResolveKubeEndpoint(config, FakeEnv({{"KUBECONFIG", env_file}, {"HOME", home}}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->source, "KUBECONFIG");
  EXPECT_EQ(ep->api_url, "https://env.example");
  ep = ResolveKubeEndpoint(config, FakeEnv({{"HOME", home}}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->source, "~/.kube/config");
  EXPECT_EQ(ep->kubeconfig, home + "/.kube/config");
  EXPECT_EQ(ep->api_url, "https://home.example");
}

TEST(ResolveKubeEndpoint, KubeconfigVariableTakesTheFirstFileThatExists) {
  const std::string second = WriteKubeconfig("https://second.example");
  const std::string third = WriteKubeconfig("https://third.example");
  KubeEndpointFlags config;
  auto ep = ResolveKubeEndpoint(
      config, FakeEnv({{"KUBECONFIG", "/nonexistent/config::" + second + ":" + third}}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->kubeconfig, second);
  EXPECT_EQ(ep->api_url, "https://second.example");
}

TEST(ResolveKubeEndpoint, KubeconfigVariableWithNoFileIsAnErrorNotAFallbackToHome) {
  const std::string home = testing::MakeTempDir();
  mkdir((home + "/.kube").c_str(), 0700);
  WriteKubeconfig("https://home.example", "token: t", home + "/.kube");
  KubeEndpointFlags config;
  Result<KubeEndpoint> ep;
  ep = ResolveKubeEndpoint(
      config, FakeEnv({{"KUBECONFIG", "/nonexistent/a:/nonexistent/b"}, {"HOME", home}}));
  EXPECT_FALSE(ep.ok());
  EXPECT_THAT(ep.error, ::testing::HasSubstr("/nonexistent/a:/nonexistent/b"));
}

TEST(ResolveKubeEndpoint, ContextFlagAsksForAKubeconfigEvenInACluster) {
  const std::string path = WriteKubeconfig("https://here.example");
  KubeEndpointFlags config;
  config.context = "there";
  auto ep = ResolveKubeEndpoint(config, FakeEnv(With(kInCluster, {{"KUBECONFIG", path}})));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "https://there.example");
  EXPECT_EQ(ep->context, "there");

  ep = ResolveKubeEndpoint(config, FakeEnv(kInCluster));
  EXPECT_FALSE(ep.ok());
  EXPECT_THAT(ep.error, ::testing::HasSubstr("--kube.context=there needs a kubeconfig"));
}

TEST(ResolveKubeEndpoint, KubeconfigErrorsNameTheFile) {
  KubeEndpointFlags config;
  config.kubeconfig = "/nonexistent/podwait/config";
  Result<KubeEndpoint> ep;
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  EXPECT_FALSE(ep.ok());
  EXPECT_THAT(ep.error,
              ::testing::HasSubstr("cannot read the kubeconfig /nonexistent/podwait/config "
                                   "(--kubeconfig): No such file"));

  config.kubeconfig = WriteKubeconfig("https://k.example", "token: t");
  config.context = "nowhere";
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  EXPECT_FALSE(ep.ok());
  EXPECT_EQ(ep.error,
            config.kubeconfig + ": context \"nowhere\" not found (contexts: here, there)");

  // A file the kubeconfig names must be readable (relative paths: next to the kubeconfig).
  config.context.clear();
  config.kubeconfig =
      WriteKubeconfig("https://k.example", "client-certificate: u.crt, client-key: u.key");
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  EXPECT_FALSE(ep.ok());
  EXPECT_THAT(ep.error,
              ::testing::HasSubstr(": client-certificate of user \"u\" " +
                                   DirectoryOf(config.kubeconfig) + "/u.crt cannot be read"));
  WriteFile(DirectoryOf(config.kubeconfig) + "/u.crt", "made-up");
  WriteFile(DirectoryOf(config.kubeconfig) + "/u.key", "made-up");
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  EXPECT_TRUE(ep.ok()) << ep.error;
}

TEST(ResolveKubeEndpoint, FlagsOverrideTheKubeconfig) {
  KubeEndpointFlags config;
  config.kubeconfig = WriteKubeconfig(
      "https://k.example",
      "exec: {apiVersion: client.authentication.k8s.io/v1, command: made-up-plugin}");
  auto ep = ResolveKubeEndpoint(config, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  ASSERT_TRUE(ep->exec);
  EXPECT_EQ(DescribeAuth(*ep), "exec plugin made-up-plugin");

  config.token_file = "/var/run/made-up/token";
  config.ca_file = "/etc/made-up/ca.crt";
  config.insecure_skip_tls_verify = true;
  ep = ResolveKubeEndpoint(config, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_FALSE(ep->exec);
  EXPECT_EQ(ep->token_file, "/var/run/made-up/token");
  EXPECT_EQ(ep->tls.ca_file, "/etc/made-up/ca.crt");
  EXPECT_EQ(ep->tls.ca_pem, "");
  EXPECT_TRUE(ep->tls.insecure_skip_verify);
  EXPECT_EQ(DescribeAuth(*ep), "token file /var/run/made-up/token");
}

// kubectl's global options over a kubeconfig, with client-go's precedence: --server replaces the
// cluster's server and keeps the user's credentials; --token replaces the user's exec plugin;
// --certificate-authority turns verification back on; --insecure-skip-tls-verify drops the CA.
TEST(ResolveKubeEndpoint, KubectlOptionsOverTheKubeconfig) {
  const std::string dir = testing::MakeTempDir();
  WriteFile(dir + "/u.crt", "made-up");
  WriteFile(dir + "/u.key", "made-up");
  KubeEndpointFlags flags;
  flags.kubeconfig = WriteKubeconfig(
      "https://k.example", "exec: {apiVersion: client.authentication.k8s.io/v1, command: p}");
  flags.server = "https://other.example:6443/";
  auto ep = ResolveKubeEndpoint(flags, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "https://other.example:6443");
  ASSERT_TRUE(ep->exec) << "the user's credentials stay";
  EXPECT_EQ(ep->context, "here");

  flags.token = "made-up-flag-token";
  flags.ca_file = dir + "/u.crt";
  ep = ResolveKubeEndpoint(flags, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_FALSE(ep->exec);
  EXPECT_EQ(ep->token, "made-up-flag-token");
  EXPECT_EQ(DescribeAuth(*ep), "token");
  EXPECT_EQ(ep->tls.ca_file, dir + "/u.crt");

  // --context picks the other context, --cluster another cluster than the context's.
  flags = {};
  flags.kubeconfig = WriteKubeconfig("https://k.example");
  flags.context = "there";
  EXPECT_EQ(ResolveKubeEndpoint(flags, FakeEnv({}))->api_url, "https://there.example");
  flags.cluster = "k";
  EXPECT_EQ(ResolveKubeEndpoint(flags, FakeEnv({}))->api_url, "https://k.example");

  // The client certificate goes as a pair, and its files must be readable.
  flags = {};
  flags.kubeconfig = WriteKubeconfig("https://k.example");
  flags.client_certificate = dir + "/u.crt";
  EXPECT_THAT(ResolveKubeEndpoint(flags, FakeEnv({})).error, HasSubstr("pass --client-key too"));
  flags.client_key = dir + "/gone.key";
  EXPECT_THAT(ResolveKubeEndpoint(flags, FakeEnv({})).error,
              HasSubstr("--client-key " + dir + "/gone.key cannot be read"));
  flags.client_key = dir + "/u.key";
  ep = ResolveKubeEndpoint(flags, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->tls.cert_file, dir + "/u.crt");
  EXPECT_EQ(DescribeAuth(*ep), "token and client certificate");
}

TEST(ResolveKubeEndpoint, CaAndInsecureOverridesAsClientGo) {
  const std::string dir = testing::MakeTempDir();
  WriteFile(dir + "/ca.crt", "-----BEGIN CERTIFICATE-----\nmade-up\n");
  KubeEndpointFlags flags;
  flags.kubeconfig = dir + "/config";
  WriteFile(
      flags.kubeconfig,
      "current-context: c\n"
      "contexts: [{name: c, context: {cluster: k}}, {name: i, context: {cluster: insecure}}]\n"
      "clusters: [{name: k, cluster: {server: https://k.example, "
      "certificate-authority: ca.crt}},\n"
      "           {name: insecure, cluster: {server: https://i.example, "
      "insecure-skip-tls-verify: true}}]\n");
  flags.insecure_skip_tls_verify = true;
  auto ep = ResolveKubeEndpoint(flags, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_TRUE(ep->tls.insecure_skip_verify);
  EXPECT_EQ(ep->tls.ca_file, "") << "no verification, no CA";

  flags.insecure_skip_tls_verify = false;
  flags.context = "i";
  flags.ca_file = dir + "/ca.crt";
  ep = ResolveKubeEndpoint(flags, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_FALSE(ep->tls.insecure_skip_verify) << "a CA given means: verify with it";
  EXPECT_EQ(ep->tls.ca_file, dir + "/ca.crt");
}

// kubectl --server with no kubeconfig at all, or with a KUBECONFIG whose files are missing (which
// client-go skips); a bare host:port is http unless TLS is configured.
TEST(ResolveKubeEndpoint, ServerAloneIsEnough) {
  KubeEndpointFlags flags;
  flags.server = "127.0.0.1:8080";
  auto ep = ResolveKubeEndpoint(flags, FakeEnv({{"HOME", "/nonexistent/podwait"}}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "http://127.0.0.1:8080");
  EXPECT_EQ(ep->source, "--server");
  flags.token = "made-up";
  flags.insecure_skip_tls_verify = true;
  ep = ResolveKubeEndpoint(flags, FakeEnv({{"KUBECONFIG", "/nonexistent/podwait/config"}}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_EQ(ep->api_url, "https://127.0.0.1:8080");
  EXPECT_EQ(ep->token, "made-up");
  flags.server = "ftp://x";
  EXPECT_THAT(ResolveKubeEndpoint(flags, FakeEnv({})).error, HasSubstr("not an http(s) URL"));
  flags.server = "https://a";
  flags.api_url = "https://b";
  EXPECT_THAT(ResolveKubeEndpoint(flags, FakeEnv({})).error, HasSubstr("pass one"));
  // In a cluster, --server replaces the service's address and keeps its token file.
  flags.api_url.clear();
  flags.token.clear();
  flags.insecure_skip_tls_verify = false;
  ep = ResolveKubeEndpoint(flags, FakeEnv(kInCluster));
  ASSERT_TRUE(ep.ok()) << ep.error;
  EXPECT_TRUE(ep->in_cluster());
  EXPECT_EQ(ep->api_url, "https://a");
  EXPECT_EQ(ep->token_file, kServiceAccountTokenFile);
}

TEST(ResolveKubeEndpoint, ClusterInfoForAnExecPluginReadsTheCaFile) {
  const std::string dir = testing::MakeTempDir();
  WriteFile(dir + "/ca.crt", "-----BEGIN CERTIFICATE-----\nmade-up\n");
  KubeEndpointFlags config;
  config.kubeconfig = dir + "/config";
  WriteFile(config.kubeconfig,
            "current-context: c\n"
            "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
            "clusters: [{name: k, cluster: {server: https://k.example, "
            "certificate-authority: ca.crt}}]\n"
            "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
            "command: p, provideClusterInfo: true}}}]\n");
  auto ep = ResolveKubeEndpoint(config, FakeEnv({}));
  ASSERT_TRUE(ep.ok()) << ep.error;
  ASSERT_TRUE(ep->exec);
  EXPECT_EQ(ep->tls.ca_file, dir + "/ca.crt");
  EXPECT_EQ(ep->exec->certificate_authority_pem, "-----BEGIN CERTIFICATE-----\nmade-up\n");
}

TEST(MakeTokenSource, FromWhatTheEndpointSays) {
  FakeClock clock;
  KubeEndpoint ep;
  EXPECT_EQ(MakeTokenSource(ep, Environment{&clock}), nullptr);
  EXPECT_EQ(DescribeAuth(ep), "none");
  ep.token = "made-up-secret";
  auto fixed = MakeTokenSource(ep, Environment{&clock});
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(fixed->Token(), "made-up-secret");
  fixed->Invalidate();
  EXPECT_EQ(fixed->Token(), "made-up-secret");
  EXPECT_EQ(DescribeAuth(ep), "token");  // never the token itself
  ep.tls.cert_pem = "-----BEGIN CERTIFICATE-----";
  EXPECT_EQ(DescribeAuth(ep), "token and client certificate");
  ep.token.clear();
  EXPECT_EQ(DescribeAuth(ep), "client certificate");
}

TEST(TokenSource, RereadsAfterMaxAge) {
  const std::string path = testing::MakeTempDir() + "/token";
  WriteFile(path, "first-token\n");
  FakeClock clock;
  TokenSource tokens(path, clock, kMinute);
  EXPECT_EQ(tokens.Token(), "first-token");
  WriteFile(path, "second-token");
  clock.Advance(30 * kSecond);
  EXPECT_EQ(tokens.Token(), "first-token");  // cached
  clock.Advance(31 * kSecond);
  EXPECT_EQ(tokens.Token(), "second-token");
  EXPECT_EQ(tokens.reads(), 2);
}

TEST(TokenSource, InvalidateForcesARereadAfterA401) {
  const std::string path = testing::MakeTempDir() + "/token";
  WriteFile(path, "old");
  FakeClock clock;
  TokenSource tokens(path, clock);
  EXPECT_EQ(tokens.Token(), "old");
  WriteFile(path, "rotated");
  tokens.Invalidate();
  EXPECT_EQ(tokens.Token(), "rotated");
  EXPECT_EQ(tokens.Token(), "rotated");
  EXPECT_EQ(tokens.reads(), 2);
}

TEST(TokenSource, KeepsTheLastGoodTokenWhenTheFileVanishesOrIsEmpty) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/token";
  WriteFile(path, "good");
  FakeClock clock;
  TokenSource tokens(path, clock);
  EXPECT_EQ(tokens.Token(), "good");
  WriteFile(path, "");
  tokens.Invalidate();
  EXPECT_EQ(tokens.Token(), "good");
  std::remove(path.c_str());
  clock.Advance(2 * kMinute);
  EXPECT_EQ(tokens.Token(), "good");
}

TEST(TokenSource, CancelStopsFetchingAndKeepsTheLastToken) {
  FakeClock clock;
  int fetches = 0;
  TokenSource tokens(
      "counting",
      [&](const std::atomic<bool>& cancel) {
        ++fetches;
        EXPECT_FALSE(cancel.load()) << "no fetch starts after Cancel()";
        return TokenSource::Fetched{"t" + std::to_string(fetches), 0, ""};
      },
      clock, TokenSource::Policy{});
  EXPECT_EQ(tokens.Token(), "t1");
  tokens.Invalidate();
  tokens.Cancel();
  EXPECT_EQ(tokens.Token(), "t1");  // due again after the 401, but shutting down
  EXPECT_EQ(fetches, 1);
}

// TokenOrError says why there is no token (and logs nothing for it); a caller that queued behind
// a slow fetch that failed does not run it again at once: the retry pause counts from its end.
TEST(TokenSource, TokenOrErrorAndTheRetryPauseAfterASlowFailure) {
  FakeClock clock(0);
  int runs = 0;
  TokenSource tokens(
      "made-up plugin",
      [&](const std::atomic<bool>&) {
        ++runs;
        clock.Advance(30 * kSecond);  // the plugin hangs until its timeout
        return TokenSource::Fetched{std::nullopt, 0, "made-up plugin did not finish"};
      },
      clock, TokenSource::Policy{0, 0, 5 * kSecond});
  Result<std::string> got = tokens.TokenOrError();
  EXPECT_FALSE(got.ok());
  EXPECT_EQ(got.error, "made-up plugin did not finish");
  EXPECT_EQ(tokens.Token(), "");
  EXPECT_EQ(runs, 1) << "the next caller within the pause does not run it again";
  clock.Advance(5 * kSecond);
  tokens.Token();
  EXPECT_EQ(runs, 2);
}

TEST(TokenSource, NoPathNoToken) {
  FakeClock clock;
  TokenSource none("", clock);
  EXPECT_EQ(none.Token(), "");
  TokenSource missing(testing::MakeTempDir() + "/absent", clock);
  EXPECT_EQ(missing.Token(), "");
}

}  // namespace
}  // namespace podwait
