// Starts the real podwait-exporter binary on loopback and checks its HTTP surface and lifecycle.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

std::string Exporter() { return BinaryPath("podwait-exporter"); }

TEST(ExporterBinary, BadFlagsExitTwoWithAClearMessage) {
  std::string out;
  EXPECT_EQ(RunCommand({Exporter(), "--no-such-flag"}, &out), 2);
  EXPECT_THAT(out, HasSubstr("unknown flag --no-such-flag"));
  EXPECT_EQ(RunCommand({Exporter(), "--pd.interval=soon"}, &out), 2);
  EXPECT_THAT(out, HasSubstr("--pd.interval"));
}

TEST(ExporterBinary, HelpAndVersion) {
  std::string out;
  EXPECT_EQ(RunCommand({Exporter(), "--help"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("--web.listen-address"));
  EXPECT_EQ(RunCommand({Exporter(), "--version"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("podwait-exporter, version"));
  // Built from a git checkout (as in CI): the revision is the checkout's HEAD, even when commits
  // came after the first configure.
  std::string head;
  if (RunCommand({"git", "-C", SourcePath("."), "rev-parse", "--short=12", "HEAD"}, &head) == 0) {
    while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
    EXPECT_THAT(out, HasSubstr("(revision: " + head + ")"));
  }
}

TEST(ExporterBinary, PortInUseIsAnError) {
  int port = FreePort();
  Subprocess first({Exporter(), "--web.listen-address=127.0.0.1:" + std::to_string(port),
                    "--kube.api-url=http://127.0.0.1:1"});
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/healthz").status == 200; }, 10s));
  std::string out;
  EXPECT_EQ(RunCommand({Exporter(), "--web.listen-address=127.0.0.1:" + std::to_string(port),
                        "--kube.api-url=http://127.0.0.1:1"},
                       &out),
            1);
  EXPECT_THAT(out, HasSubstr("cannot listen"));
}

class ServingExporter : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = FreePort();
    // An API server that refuses connections: the exporter serves anyway, not ready.
    exporter_ = std::make_unique<Subprocess>(std::vector<std::string>{
        Exporter(), "--web.listen-address=127.0.0.1:" + std::to_string(port_),
        "--kube.api-url=http://127.0.0.1:1", "--log.format=json"});
    ASSERT_TRUE(WaitFor([&] { return HttpGet(port_, "/healthz").status == 200; }, 10s))
        << exporter_->ReadLog();
  }
  int port_ = 0;
  std::unique_ptr<Subprocess> exporter_;
};

TEST_F(ServingExporter, ServesMetricsThatPassPromtool) {
  HttpResult r = HttpGet(port_, "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(r.body, HasSubstr("podwait_build_info{"));
  EXPECT_THAT(r.body, HasSubstr("process_resident_memory_bytes"));
  std::string out;
  EXPECT_EQ(RunCommand({"promtool", "check", "metrics"}, &out, r.body), 0) << out;
  EXPECT_EQ(out, "") << "promtool reported problems";
}

TEST_F(ServingExporter, GzipWhenAccepted) {
  // libcurl decodes gzip transparently (the body must still be the text); the curl command below
  // shows the response really was compressed.
  HttpResult gz = HttpGet(port_, "/metrics", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(gz.status, 200);
  EXPECT_THAT(gz.body, HasSubstr("podwait_build_info"));
  std::string out;
  ASSERT_EQ(RunCommand({"curl", "-s", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip",
                        "http://127.0.0.1:" + std::to_string(port_) + "/metrics"},
                       &out),
            0);
  EXPECT_THAT(out, HasSubstr("Content-Encoding: gzip"));
}

TEST_F(ServingExporter, HealthReadyAndUnknownPaths) {
  EXPECT_EQ(HttpGet(port_, "/healthz").body, "ok\n");
  EXPECT_EQ(HttpGet(port_, "/livez").body, "ok\n");
  HttpResult ready = HttpGet(port_, "/readyz");
  EXPECT_EQ(ready.status, 503) << "no source can have synced against a refusing API server";
  EXPECT_THAT(ready.body, HasSubstr("not ready"));
  EXPECT_EQ(HttpGet(port_, "/nope").status, 404);
  EXPECT_EQ(HttpGet(port_, "/metrics/extra").status, 404);
}

// A filter value that is not in the vocabulary is a 400 naming it, not an empty list.
TEST_F(ServingExporter, UnknownPodFiltersAre400) {
  EXPECT_EQ(HttpGet(port_, "/api/v1/pods").status, 200);
  EXPECT_EQ(HttpGet(port_, "/api/v1/pods?class=capacity").status, 200);
  HttpResult bogus = HttpGet(port_, "/api/v1/pods?class=bogus");
  EXPECT_EQ(bogus.status, 400);
  EXPECT_THAT(bogus.body, HasSubstr("unknown class \"bogus\""));
  EXPECT_EQ(HttpGet(port_, "/api/v1/pods?clas=capacity").status, 400);
}

// Every --web.listen-address is served (exporter-toolkit's flag repeats); with
// --web.disable-exporter-metrics /metrics has no process_* and none of podwait's own health.
TEST(ExporterBinary, EveryListenAddressAndNoExporterMetrics) {
  const int a = FreePort(), b = FreePort();
  Subprocess exporter({Exporter(), "--web.listen-address=127.0.0.1:" + std::to_string(a),
                       "--web.listen-address", "127.0.0.1:" + std::to_string(b),
                       "--web.disable-exporter-metrics", "--kube.api-url=http://127.0.0.1:1"});
  for (int port : {a, b}) {
    SCOPED_TRACE(port);
    ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/livez").status == 200; }, 10s))
        << exporter.ReadLog();
    const HttpResult metrics = HttpGet(port, "/metrics");
    EXPECT_EQ(metrics.status, 200);
    EXPECT_THAT(metrics.body, HasSubstr("podwait_build_info{"));
    EXPECT_THAT(metrics.body, ::testing::Not(HasSubstr("process_")));
    EXPECT_THAT(metrics.body, ::testing::Not(HasSubstr("podwait_watch_")));
    EXPECT_THAT(metrics.body, ::testing::Not(HasSubstr("podwait_scrape_duration")));
    EXPECT_THAT(metrics.body, ::testing::Not(HasSubstr("podwait_web_config_")));
  }
}

// The probes and /api/v1/pods live under --web.route-prefix like every other endpoint; the 400
// for an unknown filter holds there too, while the status page shows its empty state.
TEST(ExporterBinary, ProbesAndPodsApiUnderTheRoutePrefix) {
  const int port = FreePort();
  Subprocess exporter({Exporter(), "--web.listen-address=127.0.0.1:" + std::to_string(port),
                       "--web.route-prefix=/ops/podwait", "--kube.api-url=http://127.0.0.1:1"});
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/ops/podwait/livez").status == 200; }, 10s))
      << exporter.ReadLog();
  EXPECT_EQ(HttpGet(port, "/ops/podwait/healthz").body, "ok\n");
  EXPECT_EQ(HttpGet(port, "/ops/podwait/readyz").status, 503);
  for (const char* path : {"/livez", "/healthz", "/readyz", "/api/v1/pods"}) {
    EXPECT_EQ(HttpGet(port, path).status, 404) << path;
  }
  EXPECT_EQ(HttpGet(port, "/ops/podwait/api/v1/pods?class=capacity").status, 200);
  HttpResult bogus = HttpGet(port, "/ops/podwait/api/v1/pods?class=bogus");
  EXPECT_EQ(bogus.status, 400);
  EXPECT_THAT(bogus.body, HasSubstr("unknown class \"bogus\""));
  EXPECT_EQ(HttpGet(port, "/ops/podwait/?class=bogus").status, 200);
}

TEST_F(ServingExporter, StopsCleanlyOnSigterm) {
  auto start = std::chrono::steady_clock::now();
  exporter_->Signal(SIGTERM);
  int code = exporter_->Wait(5s);
  EXPECT_EQ(code, 0) << exporter_->ReadLog();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_THAT(exporter_->ReadLog(), HasSubstr("\"msg\":\"stopped\""));
}

}  // namespace
}  // namespace podwait::testing
