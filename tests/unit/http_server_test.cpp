#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#include "exporter/common/base64.h"
#include "exporter/http/server.h"
#include "exporter/net/http_client.h"
#include "tests/support/process.h"
#include "tests/support/result_assert.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

std::string Gunzip(const std::string& in) {
  z_stream zs{};
  inflateInit2(&zs, 15 + 16);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  inflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

// The listen-address plans (":port", IPv6 literals) are tested in http_ipv6_relay_test.cpp.
TEST(ListenAddress, PrometheusStyle) {
  EXPECT_EQ(PlanListen("127.0.0.1:80", false)->civetweb, "127.0.0.1:80");
  EXPECT_THAT(PlanListen("9877", false).error, HasSubstr("invalid listen address \"9877\""));
  EXPECT_FALSE(PlanListen("host:port", false).ok());
  EXPECT_FALSE(PlanListen(":99999", false).ok());
}

TEST(RequestPath, DecodedButNotNormalized) {
  EXPECT_EQ(RequestPath("/metrics"), "/metrics");
  EXPECT_EQ(RequestPath("/api/v1/pods?class=x"), "/api/v1/pods");
  EXPECT_EQ(RequestPath("/%6detrics"), "/metrics");
  EXPECT_EQ(RequestPath("//metrics"), "//metrics");
  EXPECT_EQ(RequestPath("/x/../metrics"), "/x/../metrics");
  EXPECT_EQ(RequestPath("/metrics%00"), std::nullopt);
  EXPECT_EQ(RequestPath("/metrics%0"), std::nullopt);
  EXPECT_EQ(RequestPath("/metrics%zz"), std::nullopt);
}

TEST(FramingError, ContentLengthPerRfc9112) {
  using H = std::vector<std::pair<std::string_view, std::string_view>>;
  EXPECT_EQ(FramingError(H{{"Host", "x"}}), "");
  EXPECT_EQ(FramingError(H{{"Content-Length", "5"}}), "");
  EXPECT_EQ(FramingError(H{{"Content-Length", "5"}, {"content-length", "5"}}), "");
  EXPECT_EQ(FramingError(H{{"Content-Length", "5, 5"}}), "");
  EXPECT_EQ(FramingError(H{{"Content-Length", "0"}, {"Content-Length", "40"}}),
            "two different Content-Length values");
  EXPECT_EQ(FramingError(H{{"Content-Length", "0, 40"}}), "two different Content-Length values");
  EXPECT_EQ(FramingError(H{{"Content-Length", "+5"}}), "invalid Content-Length");
  EXPECT_EQ(FramingError(H{{"Content-Length", "5x"}}), "invalid Content-Length");
  EXPECT_EQ(FramingError(H{{"Transfer-Encoding", "chunked"}, {"Content-Length", "5"}}),
            "Content-Length with Transfer-Encoding");
}

TEST(HostError, OneHostPerRfc9112) {
  using H = std::vector<std::pair<std::string_view, std::string_view>>;
  EXPECT_EQ(HostError("1.1", H{{"Host", "x"}}), "");
  EXPECT_EQ(HostError("1.1", H{}), "no Host header");
  EXPECT_EQ(HostError("1.0", H{}), "");
  EXPECT_EQ(HostError("1.1", H{{"Host", "a"}, {"host", "b"}}), "more than one Host header");
  EXPECT_EQ(HostError("1.0", H{{"Host", "a"}, {"Host", "a"}}), "more than one Host header");
}

TEST(Gzip, RoundTrips) {
  std::string text(10000, 'x');
  text += "tail";
  std::string z = GzipCompress(text);
  EXPECT_LT(z.size(), text.size() / 10);
  EXPECT_TRUE(Gunzip(z) == text);
}

TEST(UrlDecode, DecodesPercentAndPlus) {
  EXPECT_EQ(UrlDecode("a%2Fb+c"), "a/b c");
  EXPECT_EQ(UrlDecode("bad%zz"), "bad%zz");
}

TEST(HttpServer, RoutesExactPathsAndQuery) {
  HttpServer server;
  server.Handle("/hello", [](const HttpServerRequest& r) {
    HttpServerReply reply;
    reply.body = "name=" + (r.query.count("name") ? r.query.at("name") : "");
    return reply;
  });
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  ASSERT_GT(server.port(), 0);
  auto ok = testing::HttpGet(server.port(), "/hello?name=a%20b");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "name=a b");
  EXPECT_EQ(testing::HttpGet(server.port(), "/hello/more").status, 404);
  EXPECT_EQ(testing::HttpGet(server.port(), "/").status, 404);
  server.Stop();
}

TEST(HttpServer, BindFailureIsAnError) {
  HttpServer a;
  ASSERT_TRUE(testing::IsOk(a.Start({"127.0.0.1:0"})));
  HttpServer b;
  EXPECT_THAT(b.Start({"127.0.0.1:" + std::to_string(a.port())}).error, HasSubstr("cannot listen"));
}

}  // namespace
}  // namespace podwait

namespace podwait {
namespace {

// Sends raw bytes to 127.0.0.1:port and returns everything the server answers until it closes.
std::string RawExchange(int port, const std::string& request) {
  const int fd = testing::ConnectLoopback(port);
  if (fd < 0) return "";
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

// civetweb 1.15's own error page put the rest of a four-token request line, header lines
// included, into its status line ("HTTP/HTTP/1.1 x\r\nHost: ...\r\n\r 400 Bad Request").
TEST(HttpServer, MalformedRequestLineGetsAPlainStatusLine) {
  HttpServer server;
  server.Handle("/healthz", [](const HttpServerRequest&) { return HttpServerReply{}; });
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  const std::string reply =
      RawExchange(server.port(), "GET /healthz HTTP/1.1 extra\r\nHost: x\r\nX-Secret: abc\r\n\r\n");
  EXPECT_EQ(reply.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << reply;
  EXPECT_THAT(reply, ::testing::Not(::testing::HasSubstr("X-Secret")));
  EXPECT_THAT(reply, ::testing::HasSubstr("Connection: close\r\n"));
  // An ordinary request still works.
  EXPECT_EQ(
      RawExchange(server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .rfind("HTTP/1.1 200 OK\r\n", 0),
      0u);
}

HttpServerReply Hello(const HttpServerRequest&) {
  HttpServerReply reply;
  reply.body = "hello\n";
  return reply;
}

int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// RFC 9112 §6.3: two different Content-Length values are a 400 and the end of the connection;
// civetweb took the first and read the body as a second request.
TEST(HttpServer, ConflictingContentLengthIs400AndClosesTheConnection) {
  HttpServer server;
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  const std::string smuggled = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string reply =
      RawExchange(server.port(),
                  "GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                  "Content-Length: " +
                      std::to_string(smuggled.size()) + "\r\n\r\n" + smuggled);
  EXPECT_EQ(reply.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << reply;
  EXPECT_THAT(reply, HasSubstr("Connection: close\r\n"));
  EXPECT_EQ(CountOf(reply, "HTTP/1.1 "), 1) << reply;
  EXPECT_THAT(reply, ::testing::Not(HasSubstr("hello")));
}

// The status of GET `target`, sent byte for byte (an HTTP client library may normalize it).
int RawStatus(int port, const std::string& target) {
  const std::string reply =
      RawExchange(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  int status = 0;
  std::sscanf(reply.c_str(), "HTTP/1.1 %d", &status);
  return status;
}

// "/metrics%00" and "//metrics" are not "/metrics".
TEST(HttpServer, NulAndDoubleSlashPathsAreNotTheRoute) {
  HttpServer server;
  server.Handle("/metrics", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  EXPECT_EQ(RawStatus(server.port(), "/metrics"), 200);
  EXPECT_EQ(RawStatus(server.port(), "/metrics%00"), 400);
  EXPECT_EQ(RawStatus(server.port(), "/metrics%00.txt"), 400);
  EXPECT_EQ(RawStatus(server.port(), "//metrics"), 404);
  EXPECT_EQ(RawStatus(server.port(), "/x/../metrics"), 404);
  EXPECT_EQ(RawStatus(server.port(), "/%6detrics"), 200);
  EXPECT_EQ(RawStatus(server.port(), "/metrics?a=%00"), 200);  // the query is the handler's
}

// RFC 9112 §3.2: an HTTP/1.1 request without Host, or one with two, is 400 (civetweb served it).
TEST(HttpServer, MissingOrRepeatedHostIs400) {
  HttpServer server;
  server.Handle("/metrics", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  EXPECT_EQ(RawExchange(server.port(), "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")
                .rfind("HTTP/1.1 400 ", 0),
            0u);
  EXPECT_EQ(RawExchange(server.port(),
                        "GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n"
                        "Connection: close\r\n\r\n")
                .rfind("HTTP/1.1 400 ", 0),
            0u);
  EXPECT_EQ(RawExchange(server.port(), "GET /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.1 200 ", 0),
            0u);
}

// Every --web.listen-address is served, not only the last.
TEST(HttpServer, EveryListenAddressIsServed) {
  HttpServer server;
  server.Handle("/hello", &Hello);
  const int fixed = testing::FreePort();
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0", "127.0.0.1:" + std::to_string(fixed)})));
  ASSERT_EQ(server.ports().size(), 2u);
  EXPECT_EQ(server.ports()[1], fixed);
  for (int port : server.ports()) {
    SCOPED_TRACE(port);
    EXPECT_EQ(testing::HttpGet(port, "/hello").status, 200);
  }
  HttpServer bad;
  EXPECT_THAT(bad.Start({"127.0.0.1:0", "nonsense"}).error, HasSubstr("\"nonsense\""));
}

// --web.max-requests: beyond the limit a request gets 503 at once; probes are still answered.
TEST(HttpServer, MaxRequestsInFlight) {
  HttpServerLimits limits;
  limits.max_requests = 1;
  HttpServer server(limits);
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, release = false;
  server.Handle("/slow", [&](const HttpServerRequest&) {
    std::unique_lock<std::mutex> lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    return HttpServerReply{};
  });
  server.Handle("/fast", &Hello);
  server.Handle("/healthz", &Hello, /*probe=*/true);
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  std::thread slow([&] { EXPECT_EQ(testing::HttpGet(server.port(), "/slow").status, 200); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  EXPECT_EQ(testing::HttpGet(server.port(), "/fast").status, 503);
  EXPECT_EQ(testing::HttpGet(server.port(), "/healthz").status, 200);
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  slow.join();
  EXPECT_EQ(testing::HttpGet(server.port(), "/fast").status, 200);
}

// rate_limit: clients without verified credentials take a bucket of their own, so they cannot use
// up the requests of a client whose credentials verified (one global bucket in front of auth let
// anonymous clients turn every scrape into a 429). Refusals end their connection.
TEST(HttpServer, GuessersCannotDrainTheRateLimitOfVerifiedClients) {
  const std::string dir = testing::MakeTempDir();
  // A cost-4 bcrypt hash of "s3cret" (Python's crypt.crypt with METHOD_BLOWFISH, rounds=1 << 4).
  std::ofstream(dir + "/web.yml")
      << "basic_auth_users:\n  prometheus: "
         "$2b$04$PhOrYZZfxLvKPRsb/cq.ouei2qTkZSGBXg8cYezXz00o92hjNI/pq\n"
         "rate_limit:\n  interval: 1h\n  burst: 2\n";
  HttpServer server;
  server.Handle("/metrics", &Hello);
  ASSERT_TRUE(testing::IsOk(server.UseWebConfig(dir + "/web.yml")));
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  const auto get = [&](const std::string& credentials) {
    return testing::HttpGet(server.port(), "/metrics",
                            {{"Authorization", "Basic " + Base64Encode(credentials)}})
        .status;
  };
  EXPECT_EQ(get("prometheus:s3cret"), 200);  // verified now; took the unverified bucket's token
  const std::string refused =
      RawExchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " +
                                     Base64Encode("prometheus:guess") + "\r\n\r\n");
  EXPECT_EQ(refused.rfind("HTTP/1.1 401 ", 0), 0u) << refused;
  EXPECT_THAT(refused, HasSubstr("Connection: close\r\n"));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get("prometheus:guess" + std::to_string(i)), 429);
  EXPECT_EQ(get("prometheus:s3cret"), 200);
  EXPECT_EQ(get("prometheus:s3cret"), 200);
  EXPECT_EQ(get("prometheus:s3cret"), 429);  // its own bucket has a limit too
}

// "[::1]:port" is served over IPv6: by civetweb when it has IPv6, else through the relay
// (Debian's libcivetweb1 1.15 is built without USE_IPV6; the start used to fail there).
TEST(HttpServer, IPv6LiteralIsServed) {
  HttpServer server;
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"[::1]:0"})));
  HttpRequest request;
  request.url = "http://[::1]:" + std::to_string(server.port()) + "/hello";
  request.timeout_ms = 10000;
  const HttpResponse response = MakeCurlHttpClient()->Get(request);
  EXPECT_EQ(response.status, 200) << response.error;
  EXPECT_EQ(response.body, "hello\n");
}

}  // namespace
}  // namespace podwait
