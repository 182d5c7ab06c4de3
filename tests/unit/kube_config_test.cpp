// In-cluster / explicit API endpoint resolution and the rotating token file.

#include "exporter/kube/kube_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "tests/support/process.h"

namespace podwait {
namespace {

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
  Config config;
  std::string error;
  auto ep = ResolveKubeEndpoint(
      config,
      FakeEnv({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      &error);
  ASSERT_TRUE(ep) << error;
  EXPECT_EQ(ep->api_url, "https://10.96.0.1:443");
  EXPECT_EQ(ep->token_file, kServiceAccountTokenFile);
  EXPECT_EQ(ep->tls.ca_file, kServiceAccountCaFile);
  EXPECT_FALSE(ep->tls.insecure_skip_verify);
  EXPECT_TRUE(ep->in_cluster);
}

TEST(ResolveKubeEndpoint, InClusterIpv6HostIsBracketed) {
  Config config;
  config.kube_token_file = "/custom/token";
  std::string error;
  auto ep = ResolveKubeEndpoint(
      config,
      FakeEnv({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}),
      &error);
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->api_url, "https://[fd00::1]:6443");
  EXPECT_EQ(ep->token_file, "/custom/token");
}

TEST(ResolveKubeEndpoint, ExplicitUrlWinsAndKeepsFlags) {
  Config config;
  config.kube_api_url = "http://127.0.0.1:8001/";
  config.kube_insecure_skip_tls_verify = true;
  std::string error;
  auto ep = ResolveKubeEndpoint(
      config,
      FakeEnv({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      &error);
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->api_url, "http://127.0.0.1:8001");
  EXPECT_TRUE(ep->token_file.empty());
  EXPECT_TRUE(ep->tls.insecure_skip_verify);
  EXPECT_FALSE(ep->in_cluster);
}

TEST(ResolveKubeEndpoint, NeitherIsAnError) {
  Config config;
  std::string error;
  EXPECT_FALSE(ResolveKubeEndpoint(config, FakeEnv({}), &error));
  EXPECT_NE(error.find("KUBERNETES_SERVICE_HOST"), std::string::npos);
  config.kube_api_url = "ftp://x";
  EXPECT_FALSE(ResolveKubeEndpoint(config, FakeEnv({}), &error));
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

TEST(TokenSource, NoPathNoToken) {
  FakeClock clock;
  TokenSource none("", clock);
  EXPECT_EQ(none.Token(), "");
  TokenSource missing(testing::MakeTempDir() + "/absent", clock);
  EXPECT_EQ(missing.Token(), "");
}

}  // namespace
}  // namespace podwait
