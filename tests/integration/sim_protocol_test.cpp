// Protocol checks of podwait-sim: what a Kubernetes client (and the PD prober, and Prometheus) sees
// (Paths come from PODWAIT_SOURCE_DIR / PODWAIT_BINARY_DIR, which this target defines.)
// when it talks to the simulator. Starts the real binary on loopback.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exporter/net/http_client.h"
#include "exporter/sources/v2_objects.h"
#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;

// A running simulator on a free port.
class Sim {
 public:
  explicit Sim(std::vector<std::string> extra = {}) {
    dir_ = MakeTempDir();
    std::vector<std::string> argv = {std::string(PODWAIT_BINARY_DIR) + "/podwait-sim", "--listen",
                                     "127.0.0.1:0", "--port-file", dir_ + "/port"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<Subprocess>(argv);
    bool up = WaitFor(
        [&] {
          std::string p = ReadFile(dir_ + "/port");
          if (p.empty()) return false;
          port_ = std::atoi(p.c_str());
          return port_ > 0;
        },
        std::chrono::seconds(20));
    EXPECT_TRUE(up) << proc_->ReadLog();
  }
  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  // Waits until the simulator serves `n` open watches (a background Watch has connected).
  void WaitForOpenWatches(int n) const {
    EXPECT_TRUE(WaitFor(
        [&] {
          rapidjson::Document d;
          std::string body = HttpGet(port_, "/_sim/state?resource=pods").body;
          d.Parse(body.c_str(), body.size());
          return d.IsObject() && d.HasMember("openWatches") && d["openWatches"].IsInt() &&
                 d["openWatches"].GetInt() >= n;
        },
        std::chrono::seconds(20)))
        << "no open watch";
  }
  std::string Log() const { return proc_->ReadLog(); }

 private:
  std::string dir_;
  std::unique_ptr<Subprocess> proc_;
  int port_ = 0;
};

// A request with a body over a plain socket (the shared HTTP client only GETs).
HttpResult Send(int port, const std::string& method, const std::string& path,
                const std::string& body, const std::string& content_type = "application/json") {
  HttpResult result;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return result;
  }
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                    "Content-Type: " + content_type +
                    "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return result;
  }
  std::string raw;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) raw.append(buf, static_cast<size_t>(n));
  close(fd);
  if (raw.size() > 12) result.status = std::atoi(raw.c_str() + 9);
  size_t sep = raw.find("\r\n\r\n");
  if (sep != std::string::npos) result.body = raw.substr(sep + 4);
  return result;
}

HttpResult Post(int port, const std::string& path, const std::string& body) {
  return Send(port, "POST", path, body);
}

rapidjson::Document Json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  return d;
}

void Apply(const Sim& sim, const std::string& ops) {
  HttpResult r = Post(sim.port(), "/_sim/apply", ops);
  ASSERT_EQ(r.status, 200) << r.body;
}

std::string PodOp(const std::string& ns, const std::string& name, const std::string& extra = "") {
  return R"({"pod":{"namespace":")" + ns + R"(","name":")" + name + "\"" + extra + "}}";
}

// Watch lines collected by a background stream.
struct WatchLines {
  std::vector<std::string> lines;
  HttpResponse response;
};

// Stops after `max_lines` lines when that is not 0.
WatchLines Watch(int port, const std::string& path, std::atomic<bool>* cancel = nullptr,
                 std::vector<std::pair<std::string, std::string>> headers = {},
                 size_t max_lines = 0) {
  WatchLines out;
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + path;
  req.cancel = cancel;
  req.headers = std::move(headers);
  std::string pending;
  out.response = client->Stream(req, [&](std::string_view data) {
    pending.append(data);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      out.lines.push_back(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
    return max_lines == 0 || out.lines.size() < max_lines;
  });
  if (!pending.empty()) out.lines.push_back(pending);
  return out;
}

std::string Type(const std::string& line) {
  auto d = Json(line);
  return d.IsObject() && d.HasMember("type") ? d["type"].GetString() : "<invalid>";
}

uint64_t LineRv(const std::string& line) {
  auto d = Json(line);
  return std::stoull(d["object"]["metadata"]["resourceVersion"].GetString());
}

std::string LineName(const std::string& line) {
  auto d = Json(line);
  return d["object"]["metadata"]["name"].GetString();
}

TEST(SimProtocol, ListPaginatesWithContinueAtOneResourceVersion) {
  Sim sim({"--generate-clusters", "3", "--pods-per-cluster", "9"});
  std::set<std::string> seen;
  std::string cont;
  std::string list_rv;
  int pages = 0;
  do {
    HttpResult r =
        HttpGet(sim.port(), "/api/v1/pods?limit=7" + (cont.empty() ? "" : "&continue=" + cont));
    ASSERT_EQ(r.status, 200) << r.body;
    auto d = Json(r.body);
    ASSERT_TRUE(d.IsObject());
    EXPECT_STREQ(d["kind"].GetString(), "PodList");
    EXPECT_STREQ(d["apiVersion"].GetString(), "v1");
    if (list_rv.empty()) list_rv = d["metadata"]["resourceVersion"].GetString();
    EXPECT_EQ(list_rv, d["metadata"]["resourceVersion"].GetString());
    EXPECT_LE(d["items"].Size(), 7u);
    for (const auto& item : d["items"].GetArray()) {
      EXPECT_FALSE(item.HasMember("kind")) << "list items of core types carry no kind";
      std::string key = std::string(item["metadata"]["namespace"].GetString()) + "/" +
                        item["metadata"]["name"].GetString();
      EXPECT_TRUE(seen.insert(key).second) << "duplicate " << key;
    }
    cont = d["metadata"].HasMember("continue") ? d["metadata"]["continue"].GetString() : "";
    ++pages;
  } while (!cont.empty());
  EXPECT_EQ(seen.size(), 27u);
  EXPECT_EQ(pages, 4);
}

TEST(SimProtocol, ExpiredContinueTokenIs410Expired) {
  Sim sim({"--generate-clusters", "1", "--pods-per-cluster", "10"});
  auto first = Json(HttpGet(sim.port(), "/api/v1/pods?limit=3").body);
  std::string cont = first["metadata"]["continue"].GetString();
  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"expire_continue"})").status, 200);
  HttpResult r = HttpGet(sim.port(), "/api/v1/pods?limit=3&continue=" + cont);
  EXPECT_EQ(r.status, 410);
  auto s = Json(r.body);
  EXPECT_STREQ(s["kind"].GetString(), "Status");
  EXPECT_STREQ(s["reason"].GetString(), "Expired");
  EXPECT_EQ(s["code"].GetInt(), 410);
  // A fresh list works.
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods?limit=3").status, 200);
}

TEST(SimProtocol, WatchStreamsChangesInOrderWithIncreasingResourceVersions) {
  Sim sim;
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "]");
  std::string rv =
      Json(HttpGet(sim.port(), "/api/v1/pods").body)["metadata"]["resourceVersion"].GetString();
  WatchLines got;
  std::thread t([&] {
    got = Watch(sim.port(),
                "/api/v1/namespaces/demo/pods?watch=1&timeoutSeconds=2&resourceVersion=" + rv);
  });
  sim.WaitForOpenWatches(1);
  Apply(sim, "[" + PodOp("demo", "demo-tikv-0", R"(,"stage":"unschedulable")") + "," +
                 PodOp("other", "x-tikv-0") + "]");
  Apply(sim, "[" + PodOp("demo", "demo-tikv-0", R"(,"stage":"ready")") + "]");
  Apply(sim, R"([{"delete":{"kind":"Pod","namespace":"demo","name":"demo-pd-0"}}])");
  t.join();
  EXPECT_TRUE(got.response.ok()) << got.response.error;
  ASSERT_EQ(got.lines.size(), 3u);
  EXPECT_EQ(Type(got.lines[0]), "ADDED");
  EXPECT_EQ(LineName(got.lines[0]), "demo-tikv-0");
  EXPECT_EQ(Type(got.lines[1]), "MODIFIED");
  EXPECT_EQ(Type(got.lines[2]), "DELETED");
  EXPECT_EQ(LineName(got.lines[2]), "demo-pd-0");
  EXPECT_LT(std::stoull(rv), LineRv(got.lines[0]));
  EXPECT_LT(LineRv(got.lines[0]), LineRv(got.lines[1]));
  EXPECT_LT(LineRv(got.lines[1]), LineRv(got.lines[2]));
  // The object keeps its uid and creation time across the update.
  auto a = Json(got.lines[0]);
  auto b = Json(got.lines[1]);
  EXPECT_STREQ(a["object"]["metadata"]["uid"].GetString(),
               b["object"]["metadata"]["uid"].GetString());
  EXPECT_STREQ(a["object"]["metadata"]["creationTimestamp"].GetString(),
               b["object"]["metadata"]["creationTimestamp"].GetString());
}

TEST(SimProtocol, WatchWithoutResourceVersionStartsWithSyntheticAdds) {
  Sim sim({"--generate-clusters", "1", "--pods-per-cluster", "5"});
  WatchLines got = Watch(sim.port(), "/api/v1/pods?watch=true&timeoutSeconds=1");
  ASSERT_EQ(got.lines.size(), 5u);
  for (const auto& l : got.lines) EXPECT_EQ(Type(l), "ADDED");
}

TEST(SimProtocol, BookmarksOnlyWhenAllowedAndWatchEndsAtTimeout) {
  Sim sim({"--bookmark-interval", "200ms"});
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "]");
  std::string rv =
      Json(HttpGet(sim.port(), "/api/v1/pods").body)["metadata"]["resourceVersion"].GetString();
  auto start = std::chrono::steady_clock::now();
  WatchLines with =
      Watch(sim.port(),
            "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" + rv);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::milliseconds(3000));
  ASSERT_GE(with.lines.size(), 2u);
  for (const auto& l : with.lines) {
    EXPECT_EQ(Type(l), "BOOKMARK");
    EXPECT_EQ(LineRv(l), std::stoull(rv));
    auto d = Json(l);
    EXPECT_STREQ(d["object"]["kind"].GetString(), "Pod");
  }
  WatchLines without =
      Watch(sim.port(), "/api/v1/pods?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  EXPECT_TRUE(without.lines.empty());
}

TEST(SimProtocol, TooOldResourceVersionIsHttp410) {
  Sim sim;
  // rv 1 and 2, then a compaction at 2: a watch from 1 would miss the change at 2.
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "," + PodOp("demo", "demo-pd-2") + "]");
  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"compact"})").status, 200);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods?watch=1&resourceVersion=2&timeoutSeconds=1").status,
            200);
  Apply(sim, "[" + PodOp("demo", "demo-pd-1") + "]");
  HttpResult r = HttpGet(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=1");
  EXPECT_EQ(r.status, 410);
  auto s = Json(r.body);
  EXPECT_STREQ(s["reason"].GetString(), "Expired");
  EXPECT_EQ(s["code"].GetInt(), 410);
}

TEST(SimProtocol, TooOldResourceVersionAsErrorEvent) {
  Sim sim({"--gone-as", "event"});
  // rv 1 and 2, then a compaction at 2: a watch from 1 would miss the change at 2.
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "," + PodOp("demo", "demo-pd-2") + "]");
  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"compact"})").status, 200);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods?watch=1&resourceVersion=2&timeoutSeconds=1").status,
            200);
  WatchLines got = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=5");
  EXPECT_EQ(got.response.status, 200);
  ASSERT_EQ(got.lines.size(), 1u);
  auto d = Json(got.lines[0]);
  EXPECT_STREQ(d["type"].GetString(), "ERROR");
  EXPECT_STREQ(d["object"]["kind"].GetString(), "Status");
  EXPECT_EQ(d["object"]["code"].GetInt(), 410);
  EXPECT_STREQ(d["object"]["reason"].GetString(), "Expired");
}

TEST(SimProtocol, GoneFaultEndsOpenWatchAndAnswersNextWatch) {
  Sim sim;
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "]");
  WatchLines got;
  std::thread t(
      [&] { got = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=30"); });
  sim.WaitForOpenWatches(1);
  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"gone","as":"event"})").status, 200);
  t.join();
  ASSERT_FALSE(got.lines.empty());
  EXPECT_EQ(Type(got.lines.back()), "ERROR");
  WatchLines next = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=5");
  ASSERT_EQ(next.lines.size(), 1u);
  EXPECT_EQ(Type(next.lines[0]), "ERROR");
  // Only one request was answered with 410; the one after works normally.
  WatchLines after = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=1");
  EXPECT_TRUE(after.lines.empty());
}

TEST(SimProtocol, LabelAndFieldSelectors) {
  Sim sim;
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "," +
                 PodOp("demo", "demo-tikv-0", R"(,"stage":"unschedulable")") + "," +
                 PodOp("demo", "demo-tidb-0", R"(,"labels":{"extra":"yes"})") + "]");
  auto names = [&](const std::string& query) {
    HttpResult r = HttpGet(sim.port(), "/api/v1/pods?" + query);
    std::vector<std::string> out;
    if (r.status != 200) return std::vector<std::string>{"status " + std::to_string(r.status)};
    auto d = Json(r.body);
    for (const auto& i : d["items"].GetArray()) out.push_back(i["metadata"]["name"].GetString());
    return out;
  };
  using ::testing::ElementsAre;
  EXPECT_THAT(names("labelSelector=app.kubernetes.io%2Fcomponent%3Dtikv"),
              ElementsAre("demo-tikv-0"));
  EXPECT_THAT(names("labelSelector=app.kubernetes.io%2Fcomponent!%3Dtikv"),
              ElementsAre("demo-pd-0", "demo-tidb-0"));
  EXPECT_THAT(names("labelSelector=extra"), ElementsAre("demo-tidb-0"));
  EXPECT_THAT(names("labelSelector=!extra,app.kubernetes.io%2Fmanaged-by%3Dtidb-operator"),
              ElementsAre("demo-pd-0", "demo-tikv-0"));
  EXPECT_THAT(names("labelSelector=app.kubernetes.io%2Fcomponent%20in%20(pd,tidb)"),
              ElementsAre("demo-pd-0", "demo-tidb-0"));
  EXPECT_THAT(names("fieldSelector=status.phase%3DPending"), ElementsAre("demo-tikv-0"));
  EXPECT_THAT(names("fieldSelector=metadata.name%3Ddemo-pd-0"), ElementsAre("demo-pd-0"));
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods?fieldSelector=spec.bogus%3Dx").status, 400);

  // Events by involved object kind.
  Apply(sim, R"([{"event":{"namespace":"demo","pod":"demo-tikv-0","reason":"FailedScheduling"}}])");
  auto ev =
      Json(HttpGet(sim.port(), "/api/v1/events?fieldSelector=involvedObject.kind%3DPod").body);
  ASSERT_EQ(ev["items"].Size(), 1u);
  EXPECT_STREQ(ev["items"][0]["involvedObject"]["name"].GetString(), "demo-tikv-0");
  EXPECT_EQ(Json(HttpGet(sim.port(), "/api/v1/events?fieldSelector=involvedObject.kind%3DNode")
                     .body)["items"]
                .Size(),
            0u);
}

TEST(SimProtocol, WatchWithSelectorSeesObjectsLeaveAndEnter) {
  Sim sim;
  Apply(sim, "[" + PodOp("demo", "demo-tikv-0", R"(,"stage":"unschedulable")") + "]");
  std::string rv =
      Json(HttpGet(sim.port(), "/api/v1/pods").body)["metadata"]["resourceVersion"].GetString();
  WatchLines got;
  std::thread t([&] {
    got = Watch(
        sim.port(),
        "/api/v1/"
        "pods?watch=1&fieldSelector=status.phase%3DPending&timeoutSeconds=2&resourceVersion=" +
            rv);
  });
  sim.WaitForOpenWatches(1);
  Apply(sim, "[" + PodOp("demo", "demo-tikv-0", R"(,"stage":"ready")") + "]");
  Apply(sim, "[" + PodOp("demo", "demo-tikv-0", R"(,"stage":"init","waitForPd":true)") + "]");
  t.join();
  ASSERT_EQ(got.lines.size(), 2u);
  EXPECT_EQ(Type(got.lines[0]), "DELETED");
  EXPECT_EQ(Type(got.lines[1]), "ADDED");
}

TEST(SimProtocol, RequestFaults429And500AndMalformedLine) {
  Sim sim;
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "]");
  ASSERT_EQ(Post(sim.port(), "/_sim/fault",
                 R"({"fault":"status","code":429,"retryAfter":3,"verb":"list","resource":"pods"})")
                .status,
            200);
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(sim.port()) + "/api/v1/pods";
  HttpResponse r = client->Get(req);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.retry_after_s, 3);
  EXPECT_THAT(r.body, HasSubstr("TooManyRequests"));
  EXPECT_EQ(client->Get(req).status, 200) << "a fault answers only `count` requests";

  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"status","code":500,"count":2})").status,
            200);
  EXPECT_EQ(client->Get(req).status, 500);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/events").status, 500);
  EXPECT_EQ(client->Get(req).status, 200);

  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"malformed","resource":"pods"})").status,
            200);
  WatchLines got;
  std::thread t(
      [&] { got = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=1"); });
  t.join();
  ASSERT_GE(got.lines.size(), 1u);
  EXPECT_EQ(Type(got.lines[0]), "<invalid>");
}

TEST(SimProtocol, DropWatchesEndsStreamsAndResumeWorks) {
  Sim sim;
  Apply(sim, "[" + PodOp("demo", "demo-pd-0") + "]");
  WatchLines got;
  std::thread t(
      [&] { got = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=30"); });
  sim.WaitForOpenWatches(1);
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(Post(sim.port(), "/_sim/fault", R"({"fault":"drop_watches","mode":"reset"})").status,
            200);
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(got.response.error.empty()) << "a reset is a broken transfer";
  Apply(sim, "[" + PodOp("demo", "demo-pd-1") + "]");
  WatchLines resumed = Watch(sim.port(), "/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=1");
  ASSERT_EQ(resumed.lines.size(), 1u);
  EXPECT_EQ(LineName(resumed.lines[0]), "demo-pd-1");
}

TEST(SimProtocol, TokenFileIsCheckedAndReRead) {
  std::string dir = MakeTempDir();
  std::string token = dir + "/token";
  std::ofstream(token) << "first\n";
  Sim sim({"--token-file", token});
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods").status, 401);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods", {{"Authorization", "Bearer first"}}).status, 200);
  std::ofstream(token) << "second\n";
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods", {{"Authorization", "Bearer first"}}).status, 401);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods", {{"Authorization", "Bearer second"}}).status, 200);
}

TEST(SimProtocol, TidbClustersAndConfigMaps) {
  Sim sim;
  Apply(
      sim,
      R"([{"tidbcluster":{"namespace":"demo","name":"demo","pd":{"leader":"demo-pd-1"},"tikv":{"stores":[{"id":"1","pod":"demo-tikv-0","state":"Up"}]}}},
                 {"autoscalerStatus":{"scaleUp":"InProgress"}}])");
  auto tc =
      Json(HttpGet(sim.port(), "/apis/pingcap.com/v1alpha1/namespaces/demo/tidbclusters").body);
  ASSERT_EQ(tc["items"].Size(), 1u);
  EXPECT_STREQ(tc["items"][0]["kind"].GetString(), "TidbCluster")
      << "custom resources keep kind in lists";
  EXPECT_STREQ(tc["items"][0]["status"]["pd"]["leader"]["name"].GetString(), "demo-pd-1");
  EXPECT_STREQ(tc["items"][0]["status"]["tikv"]["stores"]["1"]["podName"].GetString(),
               "demo-tikv-0");
  HttpResult cm =
      HttpGet(sim.port(), "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status");
  ASSERT_EQ(cm.status, 200);
  EXPECT_THAT(Json(cm.body)["data"]["status"].GetString(), HasSubstr("InProgress"));
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/namespaces/kube-system/configmaps/missing").status, 404);
  auto by_name = Json(HttpGet(sim.port(),
                              "/api/v1/namespaces/kube-system/"
                              "configmaps?fieldSelector=metadata.name%3Dcluster-autoscaler-status")
                          .body);
  EXPECT_EQ(by_name["items"].Size(), 1u);
  Apply(sim, R"([{"crd":{"tidbclusters":false}}])");
  EXPECT_EQ(HttpGet(sim.port(), "/apis/pingcap.com/v1alpha1/tidbclusters").status, 404);
}

TEST(SimProtocol, PdEndpointsFollowTheClusterState) {
  Sim sim;
  auto pd = [&](const std::string& e) {
    return HttpGet(sim.port(), "/pd/demo/demo/pd/api/v1/" + e);
  };
  EXPECT_EQ(pd("health").status, 0) << "no PD configured: the connection goes nowhere";
  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","state":"no_leader"}}])");
  EXPECT_EQ(pd("leader").status, 503);
  EXPECT_THAT(pd("health").body, HasSubstr("\"health\":false"));
  EXPECT_THAT(pd("members").body, ::testing::Not(HasSubstr("\"leader\"")));

  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","state":"leader"}}])");
  HttpResult stores = pd("stores");
  EXPECT_EQ(stores.status, 500);
  EXPECT_THAT(stores.body, HasSubstr("TiKV cluster not bootstrapped, please start TiKV first"));
  EXPECT_EQ(pd("leader").status, 200);
  auto status = Json(pd("cluster/status").body);
  EXPECT_FALSE(status["is_initialized"].GetBool());

  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","state":"initialized","stores":[
      {"id":1,"state":"Up"},{"id":2,"state":"Down"},{"id":3,"state":"Tombstone"},{"id":9,"state":"Up","tiflash":true}]}}])");
  EXPECT_TRUE(Json(pd("cluster/status").body)["is_initialized"].GetBool());
  auto st = Json(pd("stores").body);
  ASSERT_EQ(st["count"].GetInt(), 4);
  EXPECT_STREQ(st["stores"][1]["store"]["state_name"].GetString(), "Down");
  EXPECT_EQ(st["stores"][2]["store"]["state"].GetInt(), 2);
  EXPECT_STREQ(st["stores"][3]["store"]["labels"][0]["value"].GetString(), "tiflash");
  // member ids are full uint64s: the third member's id is above INT64_MAX.
  auto health = Json(pd("health").body);
  ASSERT_EQ(health.Size(), 3u);
  EXPECT_TRUE(health[2]["member_id"].IsUint64());
  EXPECT_FALSE(health[2]["member_id"].IsInt64());
  EXPECT_TRUE(Json(pd("config/replicate").body).HasMember("max-replicas"));

  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","clusterStatus":"legacy"}}])");
  EXPECT_FALSE(Json(pd("cluster/status").body).HasMember("is_initialized"));
  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","fault":"garbage"}}])");
  EXPECT_TRUE(Json(pd("health").body).HasParseError());
  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","fault":"html"}}])");
  EXPECT_THAT(pd("health").content_type, HasSubstr("text/html"));
  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","fault":"503"}}])");
  EXPECT_EQ(pd("health").status, 503);
  Apply(sim, R"([{"pd":{"namespace":"demo","cluster":"demo","fault":"close"}}])");
  EXPECT_EQ(pd("health").status, 0);
}

TEST(SimProtocol, KsmMetricsPassPromtool) {
  Sim sim(
      {"--scenario", std::string(PODWAIT_SOURCE_DIR) + "/tests/scenarios/demo.json", "--manual"});
  HttpResult r = HttpGet(sim.port(), "/ksm/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr("kube_pod_status_phase{namespace=\"demo\",pod=\"demo-tikv-0\""));
  EXPECT_THAT(r.body, HasSubstr("kube_statefulset_status_replicas_ready{namespace=\"demo\","
                                "statefulset=\"demo-tidb\"} 0"));
  EXPECT_THAT(
      r.body,
      HasSubstr("kube_statefulset_replicas{namespace=\"demo\",statefulset=\"demo-tidb\"} 5"));
  EXPECT_THAT(
      r.body,
      HasSubstr(
          "owner_kind=\"StatefulSet\",owner_name=\"demo-tikv\",owner_is_controller=\"true\""));
  EXPECT_THAT(r.body, HasSubstr("kube_pod_init_container_status_waiting_reason"));
  std::string out;
  int rc = RunCommand({"promtool", "check", "metrics"}, &out, r.body);
  EXPECT_EQ(rc, 0) << out;
}

TEST(SimProtocol, DemoScenarioAdvancesByName) {
  Sim sim(
      {"--scenario", std::string(PODWAIT_SOURCE_DIR) + "/tests/scenarios/demo.json", "--manual"});
  auto pd_leader = [&] { return HttpGet(sim.port(), "/pd/demo/demo/pd/api/v1/leader").status; };
  EXPECT_EQ(pd_leader(), 503);
  auto state = Json(HttpGet(sim.port(), "/_sim/state").body);
  EXPECT_EQ(state["step"].GetInt(), 0);
  // 18 pods of the v1 clusters (demo, shop) and 8 of the v2 cluster (tidb-v2, TiProxy's too).
  EXPECT_EQ(state["resources"]["pods"].Size(), 26u);
  EXPECT_EQ(state["resources"]["tiproxies"].Size(), 1u);
  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=pd-ready", "").status, 200);
  EXPECT_EQ(pd_leader(), 200);
  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=tidb-ready", "").status, 200);
  auto tidb = Json(
      HttpGet(sim.port(),
              "/api/v1/namespaces/demo/pods?labelSelector=app.kubernetes.io%2Fcomponent%3Dtidb")
          .body);
  ASSERT_EQ(tidb["items"].Size(), 5u);
  for (const auto& p : tidb["items"].GetArray())
    EXPECT_STREQ(p["status"]["phase"].GetString(), "Running");
  EXPECT_TRUE(
      Json(HttpGet(sim.port(), "/pd/demo/demo/pd/api/v1/cluster/status").body)["is_initialized"]
          .GetBool());
  EXPECT_EQ(Post(sim.port(), "/_sim/advance", "").status, 409) << "no step left";
}

// ---------------------------------------------------------------------------------------------
// tidb-operator v2 (core.pingcap.com/v1alpha1), served by the same mechanism as every resource.

constexpr const char* kV2 = "/apis/core.pingcap.com/v1alpha1";

std::string V2Scenario() { return std::string(PODWAIT_SOURCE_DIR) + "/tests/scenarios/v2.json"; }

TEST(SimProtocol, V2DiscoveryListsTheCrdResources) {
  Sim sim;
  auto groups = Json(HttpGet(sim.port(), "/apis").body);
  ASSERT_TRUE(groups.IsObject());
  EXPECT_STREQ(groups["kind"].GetString(), "APIGroupList");
  std::set<std::string> names;
  for (const auto& g : groups["groups"].GetArray()) names.insert(g["name"].GetString());
  EXPECT_EQ(names, (std::set<std::string>{"events.k8s.io", "authorization.k8s.io", "pingcap.com",
                                          "core.pingcap.com"}));

  auto list = Json(HttpGet(sim.port(), kV2).body);
  ASSERT_TRUE(list.IsObject());
  EXPECT_STREQ(list["kind"].GetString(), "APIResourceList");
  EXPECT_STREQ(list["groupVersion"].GetString(), "core.pingcap.com/v1alpha1");
  std::set<std::string> resources;
  for (const auto& r : list["resources"].GetArray()) {
    std::string name = r["name"].GetString();
    resources.insert(name);
    EXPECT_TRUE(r["namespaced"].GetBool()) << name;
    if (name.find('/') == std::string::npos) {
      std::vector<std::string> verbs;
      for (const auto& v : r["verbs"].GetArray()) verbs.push_back(v.GetString());
      EXPECT_THAT(verbs, ::testing::ElementsAre("get", "list", "watch")) << name;
    }
  }
  // clang-format off
  const char* const plurals[] = {
      "clusters", "pdgroups", "pds", "tikvgroups", "tikvs", "tidbgroups", "tidbs", "tiflashgroups",
      "tiflashes", "ticdcgroups", "ticdcs", "tsogroups", "tsos", "schedulinggroups", "schedulings",
      "schedulergroups", "schedulers", "resourcemanagergroups", "resourcemanagers", "routergroups",
      "routers", "tikvworkergroups", "tikvworkers", "tiproxygroups", "tiproxies", "dmgroups", "dms",
      "dmworkergroups", "dmworkers"};
  // clang-format on
  for (const char* plural : plurals) {
    EXPECT_TRUE(resources.count(plural)) << plural;
    EXPECT_TRUE(resources.count(std::string(plural) + "/status")) << plural;
  }
  EXPECT_EQ(resources.size(), 2 * std::size(plurals));
  EXPECT_THAT(HttpGet(sim.port(), kV2).body,
              HasSubstr(R"("name":"tikvs","singularName":"tikv","namespaced":true,"kind":"TiKV")"));
}

TEST(SimProtocol, V2ListsPaginateAndCarryKindAndApiVersion) {
  Sim sim({"--scenario", V2Scenario(), "--manual"});
  std::set<std::string> seen;
  std::string cont, list_rv;
  do {
    HttpResult r = HttpGet(sim.port(), std::string(kV2) + "/namespaces/tidb-v2/tikvs?limit=2" +
                                           (cont.empty() ? "" : "&continue=" + cont));
    ASSERT_EQ(r.status, 200) << r.body;
    auto d = Json(r.body);
    EXPECT_STREQ(d["kind"].GetString(), "TiKVList");
    EXPECT_STREQ(d["apiVersion"].GetString(), "core.pingcap.com/v1alpha1");
    if (list_rv.empty()) list_rv = d["metadata"]["resourceVersion"].GetString();
    EXPECT_EQ(list_rv, d["metadata"]["resourceVersion"].GetString());
    for (const auto& item : d["items"].GetArray()) {
      EXPECT_STREQ(item["kind"].GetString(), "TiKV") << "custom resources keep kind in lists";
      EXPECT_STREQ(item["apiVersion"].GetString(), "core.pingcap.com/v1alpha1");
      seen.insert(item["metadata"]["name"].GetString());
    }
    cont = d["metadata"].HasMember("continue") ? d["metadata"]["continue"].GetString() : "";
  } while (!cont.empty());
  EXPECT_EQ(seen, (std::set<std::string>{"tikv-f6j2vd", "tikv-m3p8zc", "tikv-q7w4mz"}));

  // All namespaces, a label selector, one object, a missing one.
  auto pds = Json(HttpGet(sim.port(), std::string(kV2) + "/pds").body);
  EXPECT_EQ(pds["items"].Size(), 3u);
  auto groups =
      Json(HttpGet(sim.port(),
                   std::string(kV2) + "/tikvgroups?labelSelector=pingcap.com%2Fcomponent%3Dtikv")
               .body);
  ASSERT_EQ(groups["items"].Size(), 1u);
  HttpResult one = HttpGet(sim.port(), std::string(kV2) + "/namespaces/tidb-v2/clusters/basic");
  ASSERT_EQ(one.status, 200);
  EXPECT_STREQ(Json(one.body)["status"]["pd"].GetString(), "http://pd-pd.tidb-v2:2379");
  HttpResult missing = HttpGet(sim.port(), std::string(kV2) + "/namespaces/tidb-v2/tidbs/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_STREQ(Json(missing.body)["reason"].GetString(), "NotFound");
  EXPECT_EQ(HttpGet(sim.port(),
                    "/apis/core.pingcap.com/v1alpha1/namespaces/tidb-v2/tikvs?"
                    "fieldSelector=status.state%3DServing")
                .status,
            400)
      << "only metadata fields select custom resources";

  // What the simulator serves parses with the exporter's own v2 parsers, without an error.
  for (const char* plural :
       {"clusters", "pdgroups", "pds", "tikvgroups", "tikvs", "tidbgroups", "tidbs"}) {
    auto d = Json(HttpGet(sim.port(), std::string(kV2) + "/" + plural).body);
    V2Objects o = ParseV2Objects(d);
    EXPECT_THAT(o.errors, ::testing::ElementsAre()) << plural;
    EXPECT_EQ(o.other, 0u) << plural;
    EXPECT_EQ(o.clusters.size() + o.groups.size() + o.instances.size(), d["items"].Size())
        << plural;
  }
}

TEST(SimProtocol, V2CrdsAbsentAre404NotFound) {
  Sim sim({"--scenario", V2Scenario(), "--manual"});
  EXPECT_EQ(HttpGet(sim.port(), "/apis/pingcap.com/v1alpha1/tidbclusters").status, 404)
      << "the v2 scenario installs no TidbCluster CRD";
  Apply(sim, R"([{"crd":{"v2":false}}])");
  for (const std::string& path :
       {std::string(kV2), std::string(kV2) + "/tikvs", std::string(kV2) + "/namespaces/tidb-v2/pds",
        std::string(kV2) + "/namespaces/tidb-v2/clusters/basic",
        std::string(kV2) + "/tikvs?watch=1&timeoutSeconds=1"}) {
    HttpResult r = HttpGet(sim.port(), path);
    EXPECT_EQ(r.status, 404) << path;
    auto st = Json(r.body);
    ASSERT_TRUE(st.IsObject()) << path;
    EXPECT_STREQ(st["kind"].GetString(), "Status") << path;
    EXPECT_STREQ(st["reason"].GetString(), "NotFound") << path;
  }
  EXPECT_THAT(HttpGet(sim.port(), "/apis").body, ::testing::Not(HasSubstr("core.pingcap.com")));
  // One CRD back: only it is served and discovered.
  Apply(sim, R"([{"crd":{"tikvs":true}}])");
  EXPECT_EQ(HttpGet(sim.port(), std::string(kV2) + "/tikvs").status, 200);
  EXPECT_EQ(HttpGet(sim.port(), std::string(kV2) + "/pds").status, 404);
  auto list = Json(HttpGet(sim.port(), kV2).body);
  EXPECT_EQ(list["resources"].Size(), 2u);  // tikvs, tikvs/status
  EXPECT_EQ(Post(sim.port(), "/_sim/apply", R"([{"crd":{"notacrd":true}}])").status, 400);
  EXPECT_EQ(Post(sim.port(), "/_sim/apply", R"([{"crd":{"pods":false}}])").status, 400);
}

TEST(SimProtocol, V2WatchStreamsInstanceConditions) {
  Sim sim({"--scenario", V2Scenario(), "--manual"});
  std::string rv =
      Json(HttpGet(sim.port(), std::string(kV2) + "/tikvs").body)["metadata"]["resourceVersion"]
          .GetString();
  WatchLines got;
  std::thread t([&] {
    got = Watch(sim.port(), std::string(kV2) +
                                "/namespaces/tidb-v2/tikvs?watch=1&timeoutSeconds=2&"
                                "allowWatchBookmarks=true&resourceVersion=" +
                                rv);
  });
  sim.WaitForOpenWatches(1);
  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=tikv-running", "").status, 200);
  t.join();
  EXPECT_TRUE(got.response.ok()) << got.response.error;
  std::vector<std::string> modified;
  for (const auto& line : got.lines) {
    if (Type(line) == "BOOKMARK") continue;
    EXPECT_EQ(Type(line), "MODIFIED") << line;
    auto d = Json(line);
    auto parsed = ParseV2Instance(d["object"]);
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    EXPECT_FALSE(parsed.value->IsReady());
    EXPECT_EQ(parsed.value->ready->reason, "InstanceNotHealthy");
    EXPECT_EQ(parsed.value->store_state, "Preparing");
    EXPECT_LT(std::stoull(rv), LineRv(line));
    modified.push_back(parsed.value->name + "=" + parsed.value->store_id);
  }
  EXPECT_THAT(modified,
              ::testing::UnorderedElementsAre("tikv-q7w4mz=1", "tikv-m3p8zc=4", "tikv-f6j2vd=5"));
}

TEST(SimProtocol, V2ScenarioCrashLoopsUntilPdHasALeader) {
  Sim sim({"--scenario", V2Scenario(), "--manual"});
  auto pods = [&](const std::string& component) {
    return Json(HttpGet(sim.port(),
                        "/api/v1/namespaces/tidb-v2/pods?labelSelector=pingcap.com%2Fcomponent%3D" +
                            component)
                    .body);
  };
  auto ready = [](const rapidjson::Value& pod) {
    for (const auto& c : pod["status"]["conditions"].GetArray()) {
      if (std::string(c["type"].GetString()) == "Ready") {
        return std::string(c["status"].GetString()) == "True";
      }
    }
    return false;
  };
  auto pd_leader = [&] { return HttpGet(sim.port(), "/pd/tidb-v2/basic/pd/api/v1/leader").status; };
  // Every pod exists from the start; TiKV and TiDB crash-loop while PD has no leader.
  EXPECT_EQ(pd_leader(), 503);
  auto tikv = pods("tikv");
  ASSERT_EQ(tikv["items"].Size(), 3u);
  for (const auto& p : tikv["items"].GetArray()) {
    EXPECT_STREQ(p["status"]["containerStatuses"][0]["state"]["waiting"]["reason"].GetString(),
                 "CrashLoopBackOff");
    EXPECT_STREQ(p["metadata"]["ownerReferences"][0]["kind"].GetString(), "TiKV");
    // The owner reference names the TiKV CR by its uid.
    std::string owner = p["metadata"]["ownerReferences"][0]["name"].GetString();
    auto cr =
        Json(HttpGet(sim.port(), std::string(kV2) + "/namespaces/tidb-v2/tikvs/" + owner).body);
    EXPECT_STREQ(p["metadata"]["ownerReferences"][0]["uid"].GetString(),
                 cr["metadata"]["uid"].GetString());
    EXPECT_EQ(p["metadata"]["labels"]["pingcap.com/instance"].GetString(), owner);
  }
  EXPECT_STREQ(
      pods("tidb")["items"][0]["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
          .GetString(),
      "CrashLoopBackOff");

  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=pd-leader", "").status, 200);
  EXPECT_EQ(pd_leader(), 200);
  // The list is kept in a variable: a range-for over a member of a temporary outlives it.
  const rapidjson::Document pd = pods("pd");
  for (const auto& p : pd["items"].GetArray()) EXPECT_TRUE(ready(p));
  EXPECT_STREQ(Json(HttpGet(sim.port(), std::string(kV2) + "/namespaces/tidb-v2/clusters/basic")
                        .body)["status"]["id"]
                   .GetString(),
               "7481932013495838612");

  // TiKV runs: its pods are Ready (no readiness probe) while its CRs are not.
  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=tikv-running", "").status, 200);
  const rapidjson::Document running = pods("tikv");
  for (const auto& p : running["items"].GetArray()) EXPECT_TRUE(ready(p));
  V2Objects crs = ParseV2Objects(Json(HttpGet(sim.port(), std::string(kV2) + "/tikvs").body));
  ASSERT_EQ(crs.instances.size(), 3u);
  for (const auto& i : crs.instances) EXPECT_FALSE(i.IsReady()) << i.name;
  EXPECT_FALSE(ready(pods("tidb")["items"][0]));

  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=tidb-ready", "").status, 200);
  crs = ParseV2Objects(Json(HttpGet(sim.port(), std::string(kV2) + "/tikvs").body));
  for (const auto& i : crs.instances) EXPECT_TRUE(i.IsReady()) << i.name;
  EXPECT_TRUE(ready(pods("tidb")["items"][0]));
  auto cluster = ParseV2Cluster(
      Json(HttpGet(sim.port(), std::string(kV2) + "/namespaces/tidb-v2/clusters/basic").body));
  ASSERT_TRUE(cluster.ok()) << cluster.error;
  EXPECT_EQ(v2::FindCondition(cluster.value->conditions, "Available")->status,
            ConditionStatus::kTrue);
  EXPECT_TRUE(
      Json(HttpGet(sim.port(), "/pd/tidb-v2/basic/pd/api/v1/cluster/status").body)["is_initialized"]
          .GetBool());
  EXPECT_EQ(Post(sim.port(), "/_sim/advance", "").status, 409) << "no step left";
}

// ---------------------------------------------------------------------------------------------
// What kubectl needs: /version, discovery, Table responses, Event writes.

constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

std::string DemoScenario() {
  return std::string(PODWAIT_SOURCE_DIR) + "/tests/scenarios/demo.json";
}

std::vector<std::string> TableColumnNames(const rapidjson::Value& table) {
  std::vector<std::string> out;
  for (const auto& c : table["columnDefinitions"].GetArray()) out.push_back(c["name"].GetString());
  return out;
}

// The Table row of `name` as its cells (strings; other cells as "").
std::vector<std::string> RowOf(const rapidjson::Value& table, const std::string& name) {
  for (const auto& row : table["rows"].GetArray()) {
    if (row["object"]["metadata"]["name"].GetString() != name) continue;
    std::vector<std::string> cells;
    for (const auto& c : row["cells"].GetArray())
      cells.push_back(c.IsString() ? c.GetString() : "");
    return cells;
  }
  return {};
}

TEST(SimProtocol, VersionAndCoreDiscoveryForKubectl) {
  Sim sim;
  auto version = Json(HttpGet(sim.port(), "/version").body);
  ASSERT_TRUE(version.IsObject());
  EXPECT_STREQ(version["major"].GetString(), "1");
  EXPECT_THAT(version["gitVersion"].GetString(), HasSubstr("-sim"));
  EXPECT_TRUE(version.HasMember("platform"));

  auto core = Json(HttpGet(sim.port(), "/api/v1").body);
  ASSERT_TRUE(core.IsObject());
  EXPECT_STREQ(core["kind"].GetString(), "APIResourceList");
  EXPECT_STREQ(core["groupVersion"].GetString(), "v1");
  std::map<std::string, std::vector<std::string>> verbs;
  for (const auto& r : core["resources"].GetArray()) {
    for (const auto& v : r["verbs"].GetArray())
      verbs[r["name"].GetString()].push_back(v.GetString());
  }
  EXPECT_THAT(verbs["pods"], ::testing::ElementsAre("get", "list", "watch"));
  EXPECT_THAT(verbs["events"], ::testing::IsSupersetOf({"create", "patch", "list", "watch"}));
  EXPECT_TRUE(verbs.count("configmaps"));
  EXPECT_TRUE(verbs.count("pods/status"));

  auto events = Json(HttpGet(sim.port(), "/apis/events.k8s.io/v1").body);
  ASSERT_TRUE(events.IsObject());
  EXPECT_STREQ(events["resources"][0]["name"].GetString(), "events");
  // kubectl reads the OpenAPI v3 index before a write, to learn that the server validates fields.
  auto index = Json(HttpGet(sim.port(), "/openapi/v3").body);
  ASSERT_TRUE(index.IsObject());
  std::string url = index["paths"]["api/v1"]["serverRelativeURL"].GetString();
  EXPECT_THAT(HttpGet(sim.port(), url).body, HasSubstr("\"fieldValidation\""));
}

TEST(SimProtocol, TablesCarryKubectlColumnsAndPrinterColumns) {
  Sim sim({"--scenario", DemoScenario(), "--manual"});
  HttpResult r = HttpGet(sim.port(), "/api/v1/namespaces/demo/pods", {{"Accept", kTableAccept}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto pods = Json(r.body);
  EXPECT_STREQ(pods["kind"].GetString(), "Table");
  EXPECT_THAT(TableColumnNames(pods),
              ::testing::ElementsAre("Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                     "Nominated Node", "Readiness Gates"));
  EXPECT_EQ(RowOf(pods, "demo-tikv-0")[2], "Pending");
  EXPECT_EQ(RowOf(pods, "demo-tidb-0")[2], "Init:0/1");
  EXPECT_EQ(RowOf(pods, "demo-pd-0")[1], "0/1");
  EXPECT_FALSE(pods["metadata"]["resourceVersion"].GetString() == std::string());

  auto one = Json(
      HttpGet(sim.port(), "/api/v1/namespaces/demo/pods/demo-tikv-0", {{"Accept", kTableAccept}})
          .body);
  EXPECT_EQ(one["rows"].Size(), 1u);
  auto tcs = Json(
      HttpGet(sim.port(), "/apis/pingcap.com/v1alpha1/tidbclusters", {{"Accept", kTableAccept}})
          .body);
  EXPECT_THAT(TableColumnNames(tcs), ::testing::Contains("Desire"));
  auto events = Json(
      HttpGet(sim.port(), "/api/v1/events?includeObject=Object", {{"Accept", kTableAccept}}).body);
  ASSERT_GT(events["rows"].Size(), 0u);
  EXPECT_STREQ(events["rows"][0]["object"]["kind"].GetString(), "Event");
  EXPECT_EQ(
      HttpGet(sim.port(), "/api/v1/pods?includeObject=All", {{"Accept", kTableAccept}}).status,
      400);
  // Without the Accept header: the plain list, as before.
  EXPECT_STREQ(Json(HttpGet(sim.port(), "/api/v1/pods").body)["kind"].GetString(), "PodList");
}

TEST(SimProtocol, EventsAreCreatedPatchedAndListedLikeTheOthers) {
  Sim sim({"--scenario", DemoScenario(), "--manual"});
  std::string uid =
      Json(HttpGet(sim.port(), "/api/v1/namespaces/demo/pods/demo-tidb-0").body)["metadata"]["uid"]
          .GetString();
  const std::string event =
      R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"demo-tidb-0.pw1"},
          "involvedObject":{"kind":"Pod","namespace":"demo","name":"demo-tidb-0","uid":")" +
      uid + R"("},"reason":"PodwaitDependency","message":"waits for PD","type":"Normal",
          "source":{"component":"podwait"},"count":1})";
  HttpResult created = Post(sim.port(), "/api/v1/namespaces/demo/events", event);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_STREQ(Json(created.body)["metadata"]["namespace"].GetString(), "demo");
  EXPECT_EQ(Post(sim.port(), "/api/v1/namespaces/demo/events", event).status, 409);
  EXPECT_EQ(Post(sim.port(), "/api/v1/namespaces/shop/events", event).status, 201)
      << "a new name in another namespace is fine";
  EXPECT_EQ(Post(sim.port(), "/api/v1/namespaces/demo/pods", "{}").status, 405);

  // kubectl describe pod lists the pod's events with this selector.
  const std::string selector =
      "/api/v1/namespaces/demo/events?fieldSelector=involvedObject.name%3Ddemo-tidb-0,"
      "involvedObject.namespace%3Ddemo,involvedObject.uid%3D" +
      uid;
  auto listed = Json(HttpGet(sim.port(), selector).body);
  ASSERT_EQ(listed["items"].Size(), 1u);
  EXPECT_STREQ(listed["items"][0]["reason"].GetString(), "PodwaitDependency");

  HttpResult patched = Send(sim.port(), "PATCH", "/api/v1/namespaces/demo/events/demo-tidb-0.pw1",
                            R"({"count":2,"message":"still waits for PD"})",
                            "application/strategic-merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Json(patched.body)["count"].GetInt(), 2);
  EXPECT_EQ(Send(sim.port(), "PATCH", "/api/v1/namespaces/demo/events/demo-tidb-0.pw1", "[]",
                 "application/json-patch+json")
                .status,
            415);
  EXPECT_EQ(Send(sim.port(), "PATCH", "/api/v1/namespaces/demo/events/nope", "{}",
                 "application/merge-patch+json")
                .status,
            404);

  // events.k8s.io/v1: stored as the core Event it is.
  HttpResult v1 = Post(
      sim.port(), "/apis/events.k8s.io/v1/namespaces/demo/events",
      R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"generateName":"demo-tikv-0."},
          "regarding":{"kind":"Pod","namespace":"demo","name":"demo-tikv-0"},"note":"a node is coming",
          "reason":"PodwaitScaleUp","type":"Normal","reportingController":"podwait",
          "reportingInstance":"podwait-0","action":"Classified","eventTime":"2024-05-02T10:11:12.000000Z"})");
  ASSERT_EQ(v1.status, 201) << v1.body;
  auto v1_doc = Json(v1.body);
  EXPECT_STREQ(v1_doc["apiVersion"].GetString(), "events.k8s.io/v1");
  EXPECT_STREQ(v1_doc["note"].GetString(), "a node is coming");
  std::string name = v1_doc["metadata"]["name"].GetString();
  EXPECT_THAT(name, ::testing::StartsWith("demo-tikv-0."));
  auto core = Json(HttpGet(sim.port(), "/api/v1/namespaces/demo/events/" + name).body);
  EXPECT_STREQ(core["message"].GetString(), "a node is coming");
  EXPECT_STREQ(core["involvedObject"]["name"].GetString(), "demo-tikv-0");
  EXPECT_STREQ(core["reportingComponent"].GetString(), "podwait");
  EXPECT_EQ(Send(sim.port(), "DELETE", "/api/v1/namespaces/demo/events/" + name, "").status, 200);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/namespaces/demo/events/" + name).status, 404);
}

TEST(SimProtocol, WatchAsTableSendsOneRowPerChange) {
  Sim sim({"--scenario", DemoScenario(), "--manual"});
  std::string rv =
      Json(HttpGet(sim.port(), "/api/v1/namespaces/demo/pods").body)["metadata"]["resourceVersion"]
          .GetString();
  WatchLines lines;
  std::thread t([&] {
    lines = Watch(sim.port(),
                  "/api/v1/namespaces/demo/pods?watch=1&timeoutSeconds=20&resourceVersion=" + rv,
                  nullptr, {{"Accept", kTableAccept}}, 3);
  });
  sim.WaitForOpenWatches(1);
  ASSERT_EQ(Post(sim.port(), "/_sim/advance?to=pd-ready", "").status, 200);
  t.join();
  ASSERT_GE(lines.lines.size(), 3u);
  auto first = Json(lines.lines[0]);
  EXPECT_STREQ(first["type"].GetString(), "MODIFIED");
  EXPECT_STREQ(first["object"]["kind"].GetString(), "Table");
  EXPECT_TRUE(first["object"].HasMember("columnDefinitions"));
  EXPECT_EQ(first["object"]["rows"].Size(), 1u);
  EXPECT_STREQ(first["object"]["rows"][0]["cells"][1].GetString(), "1/1") << "PD turned ready";
  EXPECT_FALSE(Json(lines.lines[1])["object"].HasMember("columnDefinitions"))
      << "later events reuse the first one's columns";
}

// --loop: after the cycle the story starts again, so a waiting state comes back.
TEST(SimProtocol, LoopReplaysTheStory) {
  std::string dir = MakeTempDir();
  std::ofstream(dir + "/story.json") << R"({
    "description": "made up: one pod waits for a node, then runs",
    "cycle": "20s",
    "objects": [{"pod": {"namespace": "s", "name": "s-tikv-0", "stage": "unschedulable"}}],
    "steps": [{"name": "node", "at": "10s",
               "apply": [{"pod": {"namespace": "s", "name": "s-tikv-0", "stage": "ready"}}]}]})";
  // 20 s of story at 20x: a cycle a second.
  Sim sim({"--scenario", dir + "/story.json", "--loop", "--time-scale", "20"});
  // (the first ADDED is resourceVersion 1) ready, deleted, unschedulable again, ready again
  WatchLines lines =
      Watch(sim.port(), "/api/v1/namespaces/s/pods?watch=1&timeoutSeconds=60&resourceVersion=1",
            nullptr, {}, 4);
  std::vector<std::string> seen;  // "TYPE phase" per event
  for (const auto& line : lines.lines) {
    auto d = Json(line);
    seen.push_back(Type(line) + " " + d["object"]["status"]["phase"].GetString());
  }
  ASSERT_GE(seen.size(), 4u) << sim.Log();
  EXPECT_THAT(std::vector<std::string>(seen.begin(), seen.begin() + 4),
              ::testing::ElementsAre("MODIFIED Running", "DELETED Running", "ADDED Pending",
                                     "MODIFIED Running"));
  auto state = Json(HttpGet(sim.port(), "/_sim/state?resource=pods").body);
  EXPECT_GE(state["cycle"].GetInt(), 1);
}

// PersistentVolumes are cluster-scoped, as on a real server: /api/v1/persistentvolumes[/<name>],
// "namespaced": false in discovery, no namespaced paths, and a PV with a namespace is refused.
TEST(SimProtocol, PersistentVolumesAreClusterScoped) {
  Sim sim;
  Apply(sim,
        R"([{"kind":"PersistentVolume","apiVersion":"v1","metadata":{"name":"local-pv-1"},)"
        R"("spec":{"claimRef":{"namespace":"demo","name":"tikv-demo-tikv-0"}}},)"
        R"({"kind":"PersistentVolumeClaim","apiVersion":"v1","metadata":)"
        R"({"name":"tikv-demo-tikv-0","namespace":"demo"},"spec":{"volumeName":"local-pv-1"}}])");
  auto list = Json(HttpGet(sim.port(), "/api/v1/persistentvolumes").body);
  ASSERT_TRUE(list.IsObject());
  EXPECT_STREQ(list["kind"].GetString(), "PersistentVolumeList");
  ASSERT_EQ(list["items"].Size(), 1u);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/persistentvolumes/local-pv-1").status, 200);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/namespaces/demo/persistentvolumes").status, 404);
  EXPECT_EQ(HttpGet(sim.port(), "/api/v1/pods/demo-tikv-0").status, 404);
  EXPECT_EQ(
      HttpGet(sim.port(), "/api/v1/namespaces/demo/persistentvolumeclaims/tikv-demo-tikv-0").status,
      200);
  const std::string discovery = HttpGet(sim.port(), "/api/v1").body;
  EXPECT_THAT(discovery, ::testing::HasSubstr(
                             R"("name":"persistentvolumes","singularName":"persistentvolume",)"
                             R"("namespaced":false)"));
  EXPECT_THAT(discovery, ::testing::HasSubstr(R"("name":"persistentvolumeclaims",)"
                                              R"("singularName":"persistentvolumeclaim",)"
                                              R"("namespaced":true)"));
  HttpResult refused = Post(sim.port(), "/_sim/apply",
                            R"([{"kind":"PersistentVolume","apiVersion":"v1","metadata":)"
                            R"({"name":"x","namespace":"demo"}}])");
  EXPECT_NE(refused.status, 200);
  EXPECT_THAT(refused.body, ::testing::HasSubstr("cluster-scoped"));
}

}  // namespace
}  // namespace podwait::testing
