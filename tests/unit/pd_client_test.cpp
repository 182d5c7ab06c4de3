// PdClient (error kinds, PD's own answers vs proxies, TLS selection, URL template) and ProbePd
// (what one probe learns) against a scripted in-memory HttpClient.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "exporter/pd/client.h"
#include "exporter/pd/prober.h"
#include "tests/support/blocking_async_http.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

std::string Fixture(const std::string& name) {
  return testing::ReadFile(testing::SourcePath("tests/fixtures/real/pd/" + name));
}

// Answers by URL path; unknown paths are "connection refused".
class ScriptedHttp final : public HttpClient {
 public:
  std::map<std::string, HttpResponse> by_path;
  std::vector<std::string> requested;
  HttpRequest last;

  static HttpResponse Body(int status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.duration_ms = 2;
    return r;
  }
  static HttpResponse Error(std::string error, bool timed_out = false) {
    HttpResponse r;
    r.error = std::move(error);
    r.timed_out = timed_out;
    return r;
  }
  HttpResponse Get(const HttpRequest& request, size_t) override {
    last = request;
    const std::string path = request.url.substr(request.url.find("/pd/"));
    requested.push_back(path);
    auto it = by_path.find(path);
    if (it == by_path.end()) return Error("Couldn't connect to server");
    return it->second;
  }
  HttpResponse Stream(const HttpRequest& request,
                      const std::function<bool(std::string_view)>&) override {
    return Get(request, 0);
  }
};

struct RecordingObserver final : PdProbeObserver {
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> calls;  // endpoint, kind
  void OnRequest(PdEndpoint e, double, PdErrorKind k) override {
    std::lock_guard<std::mutex> lock(mu);
    calls.emplace_back(std::string(PdEndpointName(e)), std::string(PdErrorKindName(k)));
  }
};

void ServeHealthyCluster(ScriptedHttp* http) {
  http->by_path["/pd/api/v1/health"] = ScriptedHttp::Body(200, Fixture("health.json"));
  http->by_path["/pd/api/v1/leader"] = ScriptedHttp::Body(200, Fixture("leader.json"));
  http->by_path["/pd/api/v1/members"] =
      ScriptedHttp::Body(200, Fixture("members_3pd_operator_test.json"));
  http->by_path["/pd/api/v1/cluster/status"] =
      ScriptedHttp::Body(200, Fixture("cluster_status.json"));
  http->by_path["/pd/api/v1/stores"] = ScriptedHttp::Body(200, Fixture("stores.json"));
  http->by_path["/pd/api/v1/config/replicate"] =
      ScriptedHttp::Body(200, Fixture("config_replicate.json"));
}

PdClientOptions Options() {
  PdClientOptions o;
  o.base_url = "http://basic-pd.default:2379";
  o.timeout_ms = 1234;
  return o;
}

TEST(PdClientTest, BaseUrlTemplate) {
  EXPECT_EQ(PdBaseUrl("http://{cluster}-pd.{namespace}:2379", ClusterKey{"ns1", "basic"}),
            "http://basic-pd.ns1:2379");
  EXPECT_EQ(PdBaseUrl("http://127.0.0.1:9/pd/{namespace}/{cluster}/", ClusterKey{"a", "b"}),
            "http://127.0.0.1:9/pd/a/b");
  EXPECT_EQ(PdBaseUrl("https://pd.example:2379", ClusterKey{"a", "b"}), "https://pd.example:2379");
}

TEST(PdClientTest, RequestCarriesTimeoutTlsAndPath) {
  ScriptedHttp http;
  ServeHealthyCluster(&http);
  PdClientOptions o = Options();
  o.tls.ca_file = "ca.pem";
  PdClient client(http, o);
  auto r = client.Health();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(http.last.url, "http://basic-pd.default:2379/pd/api/v1/health");
  EXPECT_EQ(http.last.timeout_ms, 1234);
  EXPECT_EQ(http.last.tls.ca_file, "ca.pem");
}

TEST(PdClientTest, ErrorKinds) {
  ScriptedHttp http;
  RecordingObserver obs;
  http.by_path["/pd/api/v1/health"] = ScriptedHttp::Error("timeout", true);
  http.by_path["/pd/api/v1/leader"] =
      ScriptedHttp::Error("SSL peer certificate or SSH remote key was not OK");
  http.by_path["/pd/api/v1/cluster/status"] = ScriptedHttp::Body(200, "<html>oops</html>");
  http.by_path["/pd/api/v1/config/replicate"] = ScriptedHttp::Body(404, "404 page not found");
  PdClient client(http, Options(), &obs);
  auto health = client.Health();
  EXPECT_EQ(health.error_kind, PdErrorKind::kTimeout);
  EXPECT_TRUE(health.transport_failed());
  EXPECT_EQ(client.Leader().error_kind, PdErrorKind::kTls);
  EXPECT_EQ(client.Members().error_kind, PdErrorKind::kConnect);
  auto status = client.ClusterStatus();
  EXPECT_EQ(status.error_kind, PdErrorKind::kParse);
  EXPECT_FALSE(status.pd_answered);
  EXPECT_THAT(status.error, HasSubstr("HTML"));
  auto rep = client.ReplicateConfig();
  EXPECT_EQ(rep.error_kind, PdErrorKind::kHttpStatus);
  EXPECT_EQ(rep.http_status, 404);
  EXPECT_TRUE(rep.pd_answered);
  EXPECT_THAT(obs.calls, ElementsAre(Pair("health", "timeout"), Pair("leader", "tls"),
                                     Pair("members", "connect"), Pair("cluster_status", "parse"),
                                     Pair("config_replicate", "http_status")));
}

// Defect 5: a body over the size limit was counted as kind="connect".
TEST(PdClientTest, BodyOverTheLimitIsTooLarge) {
  ScriptedHttp http;
  RecordingObserver obs;
  HttpResponse big = ScriptedHttp::Error("response body too large");
  big.too_large = true;
  http.by_path["/pd/api/v1/stores"] = big;
  PdClient client(http, Options(), &obs);
  auto stores = client.Stores();
  EXPECT_EQ(stores.error_kind, PdErrorKind::kTooLarge);
  EXPECT_THAT(stores.error, HasSubstr("too large"));
  EXPECT_THAT(obs.calls, ElementsAre(Pair("stores", "too_large")));
}

TEST(PdClientTest, StoresNotBootstrappedIsAnAnswerNotAnError) {
  ScriptedHttp http;
  RecordingObserver obs;
  http.by_path["/pd/api/v1/stores"] =
      ScriptedHttp::Body(500, "\"TiKV cluster not bootstrapped, please start TiKV first\"\n");
  PdClient client(http, Options(), &obs);
  auto r = client.Stores();
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.not_bootstrapped);
  EXPECT_TRUE(r.pd_answered);
  EXPECT_EQ(r.error_kind, PdErrorKind::kNone);
  EXPECT_THAT(obs.calls, ElementsAre(Pair("stores", "")));
}

TEST(PdClientTest, Health503WithBodyIsUsedButCounted) {
  ScriptedHttp http;
  http.by_path["/pd/api/v1/health"] = ScriptedHttp::Body(
      503,
      R"([{"name":"a","member_id":1,"health":true},{"name":"b","member_id":2,"health":false}])");
  PdClient client(http, Options());
  auto r = client.Health();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value->size(), 2u);
  EXPECT_EQ(r.error_kind, PdErrorKind::kHttpStatus);
}

TEST(PdClientTest, ProxyAnswersAreNotPd) {
  ScriptedHttp http;
  http.by_path["/pd/api/v1/health"] = ScriptedHttp::Body(502, "<html>Bad Gateway</html>");
  http.by_path["/pd/api/v1/leader"] = ScriptedHttp::Body(503, "no healthy upstream");
  http.by_path["/pd/api/v1/members"] = ScriptedHttp::Body(200, "");
  http.by_path["/pd/api/v1/cluster/status"] =
      ScriptedHttp::Body(500, "[PD:apiutil:ErrRedirectNoLeader]redirect finds no leader");
  PdClient client(http, Options());
  EXPECT_FALSE(client.Health().pd_answered);
  EXPECT_FALSE(client.Leader().pd_answered);
  EXPECT_FALSE(client.Members().pd_answered);
  EXPECT_TRUE(client.ClusterStatus().pd_answered);  // PD's own plain-text error
}

TEST(PdClientTest, TlsPerClusterDirectoryWinsOverGlobal) {
  const std::string dir = testing::MakeTempDir();
  std::filesystem::create_directories(dir + "/ns1/basic");
  for (const char* f : {"ca.crt", "tls.crt", "tls.key"}) {
    std::ofstream(dir + "/ns1/basic/" + f) << "x";
  }
  PdTlsFlags c;
  c.dir = dir;
  c.ca_file = "/global/ca.crt";
  c.cert_file = "/global/tls.crt";
  c.key_file = "/global/tls.key";
  TlsOptions own = PdTlsFor(c, ClusterKey{"ns1", "basic"});
  EXPECT_EQ(own.ca_file, dir + "/ns1/basic/ca.crt");
  EXPECT_EQ(own.cert_file, dir + "/ns1/basic/tls.crt");
  EXPECT_EQ(own.key_file, dir + "/ns1/basic/tls.key");
  TlsOptions other = PdTlsFor(c, ClusterKey{"ns1", "other"});
  EXPECT_EQ(other.ca_file, "/global/ca.crt");
  EXPECT_EQ(other.cert_file, "/global/tls.crt");
}

TEST(ProbePdTest, HealthyClusterWithTiFlash) {
  ScriptedHttp http;
  ServeHealthyCluster(&http);
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 42);
  EXPECT_EQ(f.probed_at, 42);
  EXPECT_TRUE(f.reachable);
  EXPECT_TRUE(f.success) << f.error;
  EXPECT_EQ(f.members_healthy, 3);
  EXPECT_EQ(f.members_unhealthy, 0);
  EXPECT_TRUE(f.has_leader);
  EXPECT_EQ(f.leader_name, "basic-53pe89");
  EXPECT_EQ(f.is_initialized, std::optional<bool>(true));
  EXPECT_THAT(f.tikv_stores, ElementsAre(Pair("Up", 3)));
  EXPECT_EQ(f.tiflash_stores, 1);
  EXPECT_EQ(f.max_replicas, std::optional<int64_t>(3));
  // /members is only the fallback.
  EXPECT_THAT(http.requested,
              ElementsAre("/pd/api/v1/health", "/pd/api/v1/leader", "/pd/api/v1/cluster/status",
                          "/pd/api/v1/stores", "/pd/api/v1/config/replicate"));
}

// podwait_tikv_stores{state} takes its value from PD: states PD never names are one "other"
// series, however many a PD makes up. The stores answer is made up in the shape of PD's
// server/api/store.go StoresInfo (count, stores[].store.{id,address,state_name}).
TEST(ProbePdTest, MadeUpStoreStatesAreCountedAsOther) {
  ScriptedHttp http;
  ServeHealthyCluster(&http);
  std::string stores = R"({"count":1003,"stores":[)";
  stores += R"({"store":{"id":1,"address":"basic-tikv-0:20160","state_name":"Up"}},)";
  stores += R"({"store":{"id":2,"address":"basic-tikv-1:20160","state_name":"Tombstone"}},)";
  for (int i = 0; i < 1000; ++i) {
    stores += R"({"store":{"id":)" + std::to_string(10 + i) +
              R"(,"address":"x:1","state_name":"made-up-)" + std::to_string(i) + R"("}},)";
  }
  stores += R"({"store":{"id":3,"address":"basic-tikv-2:20160","state_name":"Up"}}]})";
  http.by_path["/pd/api/v1/stores"] = ScriptedHttp::Body(200, stores);
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 42);
  EXPECT_THAT(f.tikv_stores, ElementsAre(Pair("Tombstone", 1), Pair("Up", 2), Pair("other", 1000)));
}

TEST(ProbePdTest, WithoutConfigTheReplicateConfigIsNotAsked) {
  ScriptedHttp http;
  ServeHealthyCluster(&http);
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 42, /*with_config=*/false);
  EXPECT_TRUE(f.success) << f.error;
  EXPECT_FALSE(f.max_replicas);
  EXPECT_THAT(http.requested, ElementsAre("/pd/api/v1/health", "/pd/api/v1/leader",
                                          "/pd/api/v1/cluster/status", "/pd/api/v1/stores"));
}

// The prober asks /config/replicate on a cluster's first probe and then once every
// kConfigEveryRounds probes; in between its facts keep the last answer.
TEST(PdProberTest, AsksTheReplicateConfigOnceEveryFewRounds) {
  std::mutex mu;
  std::vector<std::string> requested;
  int results = 0, with_max_replicas = 0;
  Environment env;
  env.http = [&]() -> std::unique_ptr<HttpClient> {
    struct Recording final : HttpClient {
      ScriptedHttp inner;
      std::mutex* mu;
      std::vector<std::string>* requested;
      HttpResponse Get(const HttpRequest& r, size_t max) override {
        HttpResponse out = inner.Get(r, max);
        std::lock_guard<std::mutex> lock(*mu);
        requested->push_back(inner.requested.back());
        return out;
      }
      HttpResponse Stream(const HttpRequest& r,
                          const std::function<bool(std::string_view)>& f) override {
        return inner.Stream(r, f);
      }
    };
    auto c = std::make_unique<Recording>();
    ServeHealthyCluster(&c->inner);
    c->mu = &mu;
    c->requested = &requested;
    return c;
  };
  testing::UseBlockingAsyncHttp(&env);
  PdProberOptions options;
  options.interval_ms = 10;
  options.concurrency = 1;
  const int rounds = kConfigEveryRounds + 2;
  PdProber prober(
      options, env, nullptr,
      [] {
        return std::vector<PdTarget>{
            PdTarget{ClusterKey{"ns1", "basic"}, "http://basic-pd.ns1:2379", {}}};
      },
      [&](const ClusterKey&, PdFacts f) {
        std::lock_guard<std::mutex> lock(mu);
        ++results;
        if (f.max_replicas == std::optional<int64_t>(3)) ++with_max_replicas;
      });
  prober.Start();
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        std::lock_guard<std::mutex> lock(mu);
        return results >= rounds;
      },
      std::chrono::seconds(20)));
  prober.Stop();
  std::lock_guard<std::mutex> lock(mu);
  const auto asked = std::count(requested.begin(), requested.end(), "/pd/api/v1/config/replicate");
  const auto probes = std::count(requested.begin(), requested.end(), "/pd/api/v1/health");
  // One ask per kConfigEveryRounds probes begun (the last may have been cut short by Stop).
  const auto due = (probes + kConfigEveryRounds - 1) / kConfigEveryRounds;
  EXPECT_LE(asked, due);
  EXPECT_GE(asked, due - 1);
  EXPECT_GE(asked, 2);  // the first probe and the 21st
  EXPECT_EQ(with_max_replicas, results);
}

TEST(ProbePdTest, UnreachableStopsAtFirstTransportFailure) {
  ScriptedHttp http;  // nothing served: connection refused
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 1);
  EXPECT_FALSE(f.reachable);
  EXPECT_FALSE(f.success);
  EXPECT_THAT(f.error, HasSubstr("health"));
  EXPECT_THAT(http.requested, ElementsAre("/pd/api/v1/health"));
}

TEST(ProbePdTest, NotBootstrapped) {
  ScriptedHttp http;
  ServeHealthyCluster(&http);
  http.by_path["/pd/api/v1/cluster/status"] =
      ScriptedHttp::Body(200, Fixture("cluster_status_not_bootstrapped.json"));
  http.by_path["/pd/api/v1/stores"] =
      ScriptedHttp::Body(500, "\"TiKV cluster not bootstrapped, please start TiKV first\"");
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 1);
  EXPECT_TRUE(f.success) << f.error;
  EXPECT_TRUE(f.not_bootstrapped);
  EXPECT_EQ(f.is_initialized, std::optional<bool>(false));
  EXPECT_TRUE(f.tikv_stores.empty());
}

TEST(ProbePdTest, LeaderFallsBackToMembers) {
  ScriptedHttp http;
  ServeHealthyCluster(&http);
  http.by_path["/pd/api/v1/leader"] = ScriptedHttp::Body(404, "404 page not found");
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 1);
  EXPECT_TRUE(f.leader_known);
  EXPECT_TRUE(f.has_leader);
  EXPECT_EQ(f.leader_name, "basic-53pe89");
}

TEST(ProbePdTest, NoQuorumIsReachableWithoutLeader) {
  ScriptedHttp http;
  const std::string err = "[PD:apiutil:ErrRedirectNoLeader]redirect finds no leader";
  for (const char* p :
       {"/pd/api/v1/health", "/pd/api/v1/leader", "/pd/api/v1/members", "/pd/api/v1/cluster/status",
        "/pd/api/v1/stores", "/pd/api/v1/config/replicate"}) {
    http.by_path[p] = ScriptedHttp::Body(500, err);
  }
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 1);
  EXPECT_TRUE(f.reachable);
  EXPECT_FALSE(f.has_leader);
  EXPECT_FALSE(f.success);
}

TEST(ProbePdTest, GarbageEverywhereIsNotReachable) {
  ScriptedHttp http;
  for (const char* p :
       {"/pd/api/v1/health", "/pd/api/v1/leader", "/pd/api/v1/members", "/pd/api/v1/cluster/status",
        "/pd/api/v1/stores", "/pd/api/v1/config/replicate"}) {
    http.by_path[p] = ScriptedHttp::Body(200, "\x01\x02garbage{");
  }
  PdClient client(http, Options());
  PdFacts f = ProbePd(client, 1);
  EXPECT_FALSE(f.reachable);
  EXPECT_FALSE(f.success);
}

}  // namespace
}  // namespace podwait
