// The libcurl multi client (exporter/net/async_http.h) against a loopback HTTP/1.1 server that
// counts the connections it accepts: connections to many hosts stay open between rounds when the
// cache holds them all, and reopen when it does not; the body limit and the scheme check hold.
// Every host is a name under .localhost (libcurl resolves those to loopback itself), so each is a
// different host to the connection cache, as the PDs of different clusters are.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "exporter/net/async_http.h"
#include "tests/sim/http_server.h"

namespace podwait {
namespace {

class CountingServer {
 public:
  CountingServer() {
    std::string error;
    listening_ = server_.Listen("127.0.0.1", 0, &error);
    server_.Start([this](const sim::Request& request, sim::Responder& responder) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ports_.insert(request.remote_port);
      }
      responder.Send(200, "application/json", std::string(100, 'x'));
    });
  }
  ~CountingServer() { server_.Stop(); }
  bool listening() const { return listening_; }
  std::string Url(const std::string& host) const {
    return "http://" + host + ".localhost:" + std::to_string(server_.port()) + "/";
  }
  // Connections accepted so far (each has its own client port).
  size_t connections() {
    std::lock_guard<std::mutex> lock(mu_);
    return ports_.size();
  }

 private:
  sim::HttpServer server_;
  bool listening_ = false;
  std::mutex mu_;
  std::set<int> ports_;
};

// `rounds` rounds of one GET to each of `hosts` hosts, all of a round in flight at once.
std::vector<HttpResponse> Rounds(AsyncHttp& http, const CountingServer& server, int hosts,
                                 int rounds, size_t max_body = 1 << 20) {
  std::vector<HttpResponse> out;
  for (int round = 0; round < rounds; ++round) {
    for (int h = 0; h < hosts; ++h) {
      HttpRequest request;
      request.url = server.Url("pd-" + std::to_string(h));
      request.timeout_ms = 10'000;
      http.Get(request, max_body, [&out](HttpResponse r) { out.push_back(std::move(r)); });
    }
    const size_t want = static_cast<size_t>((round + 1) * hosts);
    for (int i = 0; i < 10'000 && out.size() < want; ++i) http.Run(100);
  }
  return out;
}

TEST(CurlMultiHttp, KeepsAConnectionPerHostBetweenRounds) {
  CountingServer server;
  ASSERT_TRUE(server.listening());
  auto http = MakeCurlMultiHttp();
  http->SetMaxConnections(24);
  std::vector<HttpResponse> responses = Rounds(*http, server, 20, 3);
  ASSERT_EQ(responses.size(), 60u);
  for (const HttpResponse& r : responses) {
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body.size(), 100u);
  }
  EXPECT_EQ(server.connections(), 20u);
  EXPECT_EQ(http->in_flight(), 0u);
}

// The cache is what keeps them: sized below the number of hosts, the oldest idle connection (the
// next host's) closes, and the next round opens its connections again.
TEST(CurlMultiHttp, ACacheSmallerThanTheHostsReopensConnections) {
  CountingServer server;
  ASSERT_TRUE(server.listening());
  auto http = MakeCurlMultiHttp();
  http->SetMaxConnections(4);
  std::vector<HttpResponse> responses = Rounds(*http, server, 20, 3);
  ASSERT_EQ(responses.size(), 60u);
  EXPECT_GE(server.connections(), 50u);
}

TEST(CurlMultiHttp, ABodyOverTheLimitIsTooLarge) {
  CountingServer server;
  ASSERT_TRUE(server.listening());
  auto http = MakeCurlMultiHttp();
  std::vector<HttpResponse> responses = Rounds(*http, server, 2, 1, /*max_body=*/10);
  ASSERT_EQ(responses.size(), 2u);
  for (const HttpResponse& r : responses) {
    EXPECT_TRUE(r.too_large);
    EXPECT_EQ(r.error, "response body too large");
  }
}

TEST(CurlMultiHttp, ARefusedSchemeCompletesWithAnError) {
  auto http = MakeCurlMultiHttp();
  std::vector<HttpResponse> out;
  HttpRequest request;
  request.url = "file:///etc/hostname";
  http->Get(request, 1024, [&out](HttpResponse r) { out.push_back(std::move(r)); });
  EXPECT_TRUE(out.empty()) << "completions run from Run(), not from Get()";
  http->Run(0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].error, ::testing::HasSubstr("file"));
  EXPECT_EQ(out[0].status, 0);
}

}  // namespace
}  // namespace podwait
