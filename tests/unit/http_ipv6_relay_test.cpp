// IPv6 listeners: ":port" is dual stack and IPv6 literals are served. With Debian's civetweb
// (built without USE_IPV6) this goes through Ipv6Relay; with a civetweb that has IPv6 the same
// tests pass through civetweb itself. The relay's own tests (bound, backpressure) use it directly.
// The certificates are made up: a throwaway CA and a server certificate for ::1 and 127.0.0.1.

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "exporter/common/base64.h"
#include "exporter/http/ipv6_relay.h"
#include "exporter/http/server.h"
#include "exporter/net/http_client.h"
#include "tests/support/process.h"
#include "tests/support/result_assert.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A TCP connection to [::1]:port with a receive timeout (a socket the caller closes), or -1.
int ConnectLoopback6(int port) {
  const int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_port = htons(static_cast<uint16_t>(port));
  addr.sin6_addr = in6addr_loopback;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// Reads until the peer ends the stream. *ended: false when the read timed out or failed instead.
std::string ReadToEnd(int fd, bool* ended) {
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      *ended = n == 0 || errno == ECONNRESET;
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

HttpResponse Get(const std::string& host, int port, const std::string& path,
                 const TlsOptions* tls = nullptr) {
  HttpRequest request;
  request.url =
      std::string(tls ? "https" : "http") + "://" + host + ":" + std::to_string(port) + path;
  request.timeout_ms = 30000;
  if (tls) request.tls = *tls;
  return MakeCurlHttpClient()->Get(request);
}

HttpServerReply Hello(const HttpServerRequest& r) {
  HttpServerReply reply;
  reply.body = "hello " + (r.query.count("name") ? r.query.at("name") : "") + "\n";
  return reply;
}

// Bytes no two offsets of which repeat in a short cycle, so a lost or repeated chunk shows.
std::string Pattern(size_t size) {
  std::string out(size, '\0');
  uint32_t x = 2463534242u;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return out;
}

TEST(ListenPlan, CivetwebWithIPv6ServesEverything) {
  EXPECT_EQ(PlanListen(":9877", true)->civetweb, "+9877");
  EXPECT_EQ(PlanListen(":9877", true)->relay_address, "");
  EXPECT_EQ(PlanListen("[::1]:80", true)->civetweb, "[::1]:80");
  EXPECT_EQ(PlanListen("[::]:80", true)->relay_address, "");
  EXPECT_EQ(PlanListen("127.0.0.1:80", true)->civetweb, "127.0.0.1:80");
}

TEST(ListenPlan, WithoutIPv6TheRelayTakesTheIPv6Side) {
  Result<ListenPlan> any = PlanListen(":9877", false);
  ASSERT_TRUE(testing::IsOk(any));
  EXPECT_EQ(any->civetweb, "9877");
  EXPECT_EQ(any->relay_address, "::");
  EXPECT_TRUE(any->relay_same_port);
  Result<ListenPlan> literal = PlanListen("[::1]:9878", false);
  ASSERT_TRUE(testing::IsOk(literal));
  EXPECT_EQ(literal->civetweb, "127.0.0.1:0");
  EXPECT_EQ(literal->relay_address, "::1");
  EXPECT_FALSE(literal->relay_same_port);
  EXPECT_EQ(literal->relay_port, 9878);
  EXPECT_EQ(PlanListen("127.0.0.1:80", false)->relay_address, "");
}

TEST(ListenPlan, InvalidAddresses) {
  EXPECT_THAT(PlanListen("::1:80", false).error, HasSubstr("in brackets"));
  EXPECT_THAT(PlanListen("[nope]:80", false).error, HasSubstr("in brackets"));
  EXPECT_THAT(PlanListen("9877", true).error, HasSubstr("invalid listen address \"9877\""));
  EXPECT_FALSE(PlanListen(":99999", false).ok());
}

TEST(HttpServerIPv6, ColonPortServesIPv4AndIPv6Alike) {
  HttpServer server;
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({":0"})));
  ASSERT_GT(server.port(), 0);
  const HttpResponse v4 = Get("127.0.0.1", server.port(), "/hello?name=x");
  const HttpResponse v6 = Get("[::1]", server.port(), "/hello?name=x");
  EXPECT_EQ(v4.status, 200) << v4.error;
  EXPECT_EQ(v6.status, 200) << v6.error;
  EXPECT_EQ(v6.body, "hello x\n");
  EXPECT_EQ(v6.body, v4.body);
}

TEST(HttpServerIPv6, LiteralAddressIsServed) {
  HttpServer server;
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"[::1]:0", "127.0.0.1:0"})));
  ASSERT_EQ(server.ports().size(), 2u);  // the relay's target is not a user's address
  const HttpResponse v6 = Get("[::1]", server.ports()[0], "/hello");
  EXPECT_EQ(v6.status, 200) << v6.error;
  EXPECT_EQ(v6.body, "hello \n");
  EXPECT_EQ(Get("127.0.0.1", server.ports()[1], "/hello").status, 200);
  // "[::]" is every IPv6 address, ::1 among them.
  HttpServer any;
  any.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(any.Start({"[::]:0"})));
  EXPECT_EQ(Get("[::1]", any.port(), "/hello").status, 200);
}

// A fixed IPv6 port that is taken is a start-up error that names the address.
TEST(HttpServerIPv6, TakenIPv6PortIsAnError) {
  const int taken = ::socket(AF_INET6, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(taken, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_any;
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(taken, 1), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(taken, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string port = std::to_string(ntohs(addr.sin6_port));
  HttpServer server;
  const Result<bool> started = server.Start({":" + port});
  EXPECT_FALSE(started.ok());
  EXPECT_THAT(started.error, HasSubstr("\":" + port + "\""));
  ::close(taken);
}

// Several MiB: more than the relay's buffers hold, so it waits for the client many times.
TEST(HttpServerIPv6, LargeResponseArrivesIntact) {
  const std::string big = Pattern(6 * 1024 * 1024 + 123);
  HttpServer server;
  server.Handle("/big", [&big](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.body = big;
    return reply;
  });
  ASSERT_TRUE(testing::IsOk(server.Start({":0"})));
  const HttpResponse r = Get("[::1]", server.port(), "/big");
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.body.size(), big.size());
  EXPECT_TRUE(r.body == big);
}

// A client that sends its request and shuts down its side gets the whole answer and the end of
// the stream. The server would keep the connection open for a minute if the end did not reach it.
TEST(HttpServerIPv6, HalfClosedClientGetsItsAnswer) {
  HttpServerLimits limits;
  limits.request_timeout_ms = 60000;
  limits.keep_alive_timeout_ms = 60000;
  HttpServer server(limits);
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"[::1]:0"})));
  const int fd = ConnectLoopback6(server.port());
  ASSERT_GE(fd, 0);
  const std::string request = "GET /hello?name=half HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  ::shutdown(fd, SHUT_WR);
  bool ended = false;
  const std::string reply = ReadToEnd(fd, &ended);
  ::close(fd);
  EXPECT_TRUE(ended) << "no end of stream; got: " << reply;
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_THAT(reply, HasSubstr("\r\n\r\nhello half\n"));
}

// Stop() ends idle IPv6 connections at once (the server itself would wait a minute for their
// requests) and returns.
TEST(HttpServerIPv6, StopClosesIdleConnections) {
  HttpServerLimits limits;
  limits.request_timeout_ms = 60000;
  limits.keep_alive_timeout_ms = 60000;
  auto server = std::make_unique<HttpServer>(limits);
  server->Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server->Start({":0"})));
  std::vector<int> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(ConnectLoopback6(server->port()));
  // One that has been answered and is kept alive, one with half a request line.
  const int kept = ConnectLoopback6(server->port());
  const std::string request = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
  ::send(kept, request.data(), request.size(), MSG_NOSIGNAL);
  char buf[4096];
  ASSERT_GT(::recv(kept, buf, sizeof(buf), 0), 0);
  idle.push_back(kept);
  const int partial = ConnectLoopback6(server->port());
  ::send(partial, "GET /hel", 8, MSG_NOSIGNAL);
  idle.push_back(partial);
  // A hang guard, not a timing: Stop() must return at all while these are open.
  std::future<void> stopped = std::async(std::launch::async, [&server] { server->Stop(); });
  ASSERT_EQ(stopped.wait_for(30s), std::future_status::ready);
  for (int fd : idle) {
    ASSERT_GE(fd, 0);
    bool ended = false;
    ReadToEnd(fd, &ended);
    EXPECT_TRUE(ended) << "connection left open after Stop()";
    ::close(fd);
  }
}

// The relay on its own, in front of an IPv4 server.
class Ipv6RelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Handle("/hello", &Hello);
    ASSERT_TRUE(testing::IsOk(server_.Start({"127.0.0.1:0"})));
  }
  static HttpServerLimits Limits() {
    HttpServerLimits limits;
    limits.request_timeout_ms = 60000;
    limits.keep_alive_timeout_ms = 60000;
    return limits;
  }
  HttpServer server_{Limits()};
};

// At most max_connections are relayed; one beyond is closed at accept and counted; a slot that
// frees is used again.
TEST_F(Ipv6RelayTest, ConnectionBoundHolds) {
  Ipv6Relay relay(2);
  Result<int> port = relay.Listen("::1", 0, server_.port());
  ASSERT_TRUE(testing::IsOk(port));
  relay.Start();
  const int a = ConnectLoopback6(*port);
  const int b = ConnectLoopback6(*port);
  ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == 2; }, 10s));
  const int c = ConnectLoopback6(*port);
  ASSERT_GE(c, 0);  // the kernel accepts; the relay closes it
  bool ended = false;
  EXPECT_EQ(ReadToEnd(c, &ended), "");
  EXPECT_TRUE(ended);
  EXPECT_EQ(relay.refused(), 1);
  EXPECT_EQ(relay.open(), 2);
  ::close(c);
  ::close(a);
  ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == 1; }, 10s));
  const HttpResponse r = Get("[::1]", *port, "/hello");
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(relay.refused(), 1);
  ::close(b);
  relay.Stop();
  EXPECT_EQ(relay.open(), 0);
}

// A client that does not read: the relay stops reading the server once the client's buffer is
// full (the rest waits in the kernel's socket buffers), and everything arrives once it reads.
TEST_F(Ipv6RelayTest, SlowReaderGetsEverything) {
  const std::string big = Pattern(4 * 1024 * 1024);
  HttpServer server(Limits());
  server.Handle("/big", [&big](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.body = big;
    return reply;
  });
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  Ipv6Relay relay(4);
  Result<int> port = relay.Listen("::1", 0, server.port());
  ASSERT_TRUE(testing::IsOk(port));
  relay.Start();
  const int fd = ConnectLoopback6(*port);
  ASSERT_GE(fd, 0);
  const std::string request = "GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::this_thread::sleep_for(300ms);  // let every buffer on the way fill up
  bool ended = false;
  const std::string reply = ReadToEnd(fd, &ended);
  ::close(fd);
  EXPECT_TRUE(ended);
  const auto body = reply.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(reply.size() - body - 4, big.size());
  EXPECT_TRUE(reply.compare(body + 4, std::string::npos, big) == 0);
}

TEST(Ipv6Relay, ListenErrorsNameTheAddress) {
  Ipv6Relay relay(1);
  EXPECT_THAT(relay.Listen("127.0.0.1", 0, 1).error, HasSubstr("not an IPv6 address"));
  Result<int> port = relay.Listen("::1", 0, 1);
  ASSERT_TRUE(testing::IsOk(port));
  Ipv6Relay other(1);
  EXPECT_THAT(other.Listen("::1", *port, 1).error,
              HasSubstr("[::1]:" + std::to_string(*port) + ": Address already in use"));
}

// TLS passes through the relay untouched: the handshake, the certificate for ::1 and basic auth
// are civetweb's.
TEST(HttpServerIPv6, TlsAndBasicAuthOverIPv6) {
  const std::string dir = testing::MakeTempDir();
  std::vector<std::vector<std::string>> commands = testing::TestCaCommands(dir);
  commands.push_back(
      testing::OpensslReq({"-CA", dir + "/ca.crt", "-CAkey", dir + "/ca.key", "-keyout",
                           dir + "/server.key", "-out", dir + "/server.crt", "-subj",
                           "/CN=localhost", "-addext", "subjectAltName=IP:::1,IP:127.0.0.1"}));
  for (const auto& argv : commands) {
    std::string output;
    ASSERT_EQ(testing::RunCommand(argv, &output), 0) << output;
  }
  // A cost-4 bcrypt hash of "s3cret" (Python's crypt.crypt with METHOD_BLOWFISH, rounds=1 << 4).
  std::ofstream(dir + "/web.yml")
      << "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
         "basic_auth_users:\n  prometheus: "
         "$2b$04$PhOrYZZfxLvKPRsb/cq.ouei2qTkZSGBXg8cYezXz00o92hjNI/pq\n";
  HttpServer server;
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.UseWebConfig(dir + "/web.yml")));
  ASSERT_TRUE(testing::IsOk(server.Start({":0"})));
  TlsOptions tls;
  tls.ca_pem = testing::ReadFile(dir + "/ca.crt");
  HttpRequest request;
  request.url = "https://[::1]:" + std::to_string(server.port()) + "/hello";
  request.timeout_ms = 30000;
  request.tls = tls;
  const HttpResponse anonymous = MakeCurlHttpClient()->Get(request);
  EXPECT_EQ(anonymous.status, 401) << anonymous.error;
  request.headers = {{"Authorization", "Basic " + Base64Encode("prometheus:s3cret")}};
  const HttpResponse ok = MakeCurlHttpClient()->Get(request);
  EXPECT_EQ(ok.status, 200) << ok.error;
  EXPECT_EQ(ok.body, "hello \n");
  // Plain HTTP to the TLS port is not served over IPv6 either.
  EXPECT_NE(Get("[::1]", server.port(), "/hello").status, 200);
}

}  // namespace
}  // namespace podwait
