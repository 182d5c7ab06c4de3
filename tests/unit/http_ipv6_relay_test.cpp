// IPv6 listeners: ":port" is dual stack and IPv6 literals are served. With Debian's civetweb
// (built without USE_IPV6) this goes through Ipv6Relay; with a civetweb that has IPv6 the same
// tests pass through civetweb itself. The relay's own tests (bound, backpressure) use it directly.
// The certificates are made up: a throwaway CA and a server certificate for ::1 and 127.0.0.1.

#include <arpa/inet.h>
#include <crypt.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
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

// A TCP connection to [::1]:port whose receive buffer is small, so that answers it never reads
// stay with the server instead of in the kernel; -1 on failure.
int ConnectNeverReading(int port) {
  const int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  const int small = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_port = htons(static_cast<uint16_t>(port));
  addr.sin6_addr = in6addr_loopback;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

HttpServerReply Ok(const HttpServerRequest&) {
  HttpServerReply reply;
  reply.body = "ok\n";
  return reply;
}

HttpResponse Healthz(const std::string& host, int port) {
  HttpRequest request;
  request.url = "http://" + host + ":" + std::to_string(port) + "/healthz";
  request.timeout_ms = 2000;  // the kubelet's probe: timeoutSeconds 1-2
  return MakeCurlHttpClient()->Get(request);
}

// More IPv6 clients than the server has workers, that connect and never send, then as many that
// send requests and never read the answers: /healthz over IPv6 still answers (with the server's
// own limits, at once: the newest connection takes the place of the stalest), and IPv4 too.
TEST(HttpServerIPv6, IdleAndNeverReadingClientsDoNotTakeHealthzDown) {
  HttpServer server;
  server.Handle("/healthz", &Ok, true);
  ASSERT_TRUE(testing::IsOk(server.Start({":0"})));
  std::vector<int> held;
  for (int i = 0; i < 130; ++i) held.push_back(ConnectLoopback6(server.port()));
  std::this_thread::sleep_for(200ms);  // every one accepted and relayed
  HttpResponse r = Healthz("[::1]", server.port());
  EXPECT_EQ(r.status, 200) << "with 130 idle clients: " << r.error;
  EXPECT_EQ(Healthz("127.0.0.1", server.port()).status, 200);
  std::string pipelined;
  for (int i = 0; i < 400; ++i) pipelined += "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 130; ++i) {
    const int fd = ConnectNeverReading(server.port());
    ASSERT_GE(fd, 0);
    ::send(fd, pipelined.data(), pipelined.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    held.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);
  r = Healthz("[::1]", server.port());
  EXPECT_EQ(r.status, 200) << "with 130 clients that never read: " << r.error;
  EXPECT_EQ(Healthz("127.0.0.1", server.port()).status, 200);
  for (int fd : held) ::close(fd);
}

// The relay on its own, in front of an IPv4 server that waits a minute for anything.
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
  // Starts `relay` on [::1] in front of `target` (the fixture's server by default); its port.
  static int StartRelay(Ipv6Relay& relay, int target) {
    Result<int> port = relay.Listen("::1", 0, target);
    EXPECT_TRUE(testing::IsOk(port));
    relay.Start();
    return port.ok() ? *port : 0;
  }
  HttpServer server_{Limits()};
};

// The relay holds no more than max_connections; one beyond takes the place of the stalest (the
// one on which nothing moved for longest), which is closed; the newest is served.
TEST_F(Ipv6RelayTest, AFullRelayMakesRoomForTheNewest) {
  Ipv6RelayLimits limits;
  limits.max_connections = 2;
  Ipv6Relay relay(limits);
  const int port = StartRelay(relay, server_.port());
  const int a = ConnectLoopback6(port);
  ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == 1; }, 10s));
  const int b = ConnectLoopback6(port);
  ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == 2; }, 10s));
  const HttpResponse r = Get("[::1]", port, "/hello");
  EXPECT_EQ(r.status, 200) << r.error;
  bool ended = false;
  EXPECT_EQ(ReadToEnd(a, &ended), "");
  EXPECT_TRUE(ended) << "the stalest connection is closed";
  EXPECT_EQ(relay.evicted(), 1);
  // b is still relayed.
  const std::string request = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ::send(b, request.data(), request.size(), MSG_NOSIGNAL);
  EXPECT_THAT(ReadToEnd(b, &ended), HasSubstr("200 OK"));
  ::close(a);
  ::close(b);
  relay.Stop();
  EXPECT_EQ(relay.open(), 0);
}

// One address holds at most max_per_peer: one more from it takes the place of its own stalest.
TEST_F(Ipv6RelayTest, OneAddressHoldsAtMostItsShare) {
  Ipv6RelayLimits limits;
  limits.max_per_peer = 3;
  Ipv6Relay relay(limits);
  const int port = StartRelay(relay, server_.port());
  std::vector<int> idle;
  for (int i = 0; i < 10; ++i) {
    idle.push_back(ConnectLoopback6(port));
    ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == std::min(i + 1, 3); }, 10s));
  }
  EXPECT_TRUE(testing::WaitFor([&] { return relay.evicted() == 7; }, 10s)) << relay.evicted();
  for (size_t i = 0; i < idle.size(); ++i) {
    bool ended = false;
    if (i < 7) {
      ReadToEnd(idle[i], &ended);
      EXPECT_TRUE(ended) << i;
    }
    ::close(idle[i]);
  }
}

TEST(Ipv6RelayEviction, ThePeersStalestOverItsCapElseTheStalestOfAll) {
  auto peer = [](const char* text) {
    Ipv6Peer p{};
    EXPECT_EQ(::inet_pton(AF_INET6, text, p.data()), 1);
    return p;
  };
  const Ipv6Peer a = peer("2001:db8::a"), b = peer("2001:db8::b"), c = peer("2001:db8::c");
  Ipv6RelayLimits limits;
  limits.max_connections = 4;
  limits.max_per_peer = 2;
  // Room left: nothing is closed.
  EXPECT_EQ(EvictionFor(std::vector<RelaySlot>{{a, 100}, {b, 50}}, c, limits), -1);
  // a is at its cap: a's stalest goes, though b's is staler.
  const std::vector<RelaySlot> capped = {{b, 10}, {a, 300}, {a, 200}};
  EXPECT_EQ(EvictionFor(capped, a, limits), 2);
  EXPECT_EQ(EvictionFor(capped, c, limits), -1);
  // Full: the stalest of all, a lingering one (done, awaiting its client's end) before any.
  const std::vector<RelaySlot> full = {{a, 300}, {b, 40}, {c, 200}, {b, 90}};
  EXPECT_EQ(EvictionFor(full, peer("2001:db8::d"), limits), 1);
  const std::vector<RelaySlot> lingering = {{a, 300}, {b, 40}, {c, 250, true}, {b, 90}};
  EXPECT_EQ(EvictionFor(lingering, peer("2001:db8::d"), limits), 2);
}

// civetweb ends a connection that sent nothing within its request timeout: the relay closes it
// too (the slot is free) even though the client keeps its socket open.
TEST_F(Ipv6RelayTest, TheServersEndClosesTheConnection) {
  HttpServerLimits quick;
  quick.request_timeout_ms = 300;
  quick.keep_alive_timeout_ms = 300;
  HttpServer server(quick);
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  Ipv6Relay relay;
  const int port = StartRelay(relay, server.port());
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(ConnectLoopback6(port));
  ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == 4; }, 10s));
  EXPECT_TRUE(testing::WaitFor([&] { return relay.open() == 0; }, 20s))
      << relay.open() << " connections still relayed";
  for (int fd : idle) {
    bool ended = false;
    ReadToEnd(fd, &ended);
    EXPECT_TRUE(ended);
    ::close(fd);
  }
}

// Against a server that would wait a minute: the relay's own idle deadline closes a connection on
// which nothing moves, and not one that keeps talking.
TEST_F(Ipv6RelayTest, IdleDeadlineClosesOnlyWhatIsIdle) {
  Ipv6RelayLimits limits;
  limits.idle_timeout_ms = 300;
  Ipv6Relay relay(limits);
  const int port = StartRelay(relay, server_.port());
  const int idle = ConnectLoopback6(port);
  const int busy = ConnectLoopback6(port);
  ASSERT_GE(busy, 0);
  // 12 requests 100 ms apart on one kept-alive connection: four idle deadlines long.
  const std::string request = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 12; ++i) {
    ASSERT_EQ(::send(busy, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    std::string reply;
    while (reply.find("hello \n") == std::string::npos) {
      char buf[4096];
      const ssize_t n = ::recv(busy, buf, sizeof(buf), 0);
      ASSERT_GT(n, 0) << "request " << i << ", after: " << reply;
      reply.append(buf, static_cast<size_t>(n));
    }
    std::this_thread::sleep_for(100ms);
  }
  bool ended = false;
  ReadToEnd(idle, &ended);
  EXPECT_TRUE(ended) << "the idle connection is closed";
  EXPECT_GE(relay.timed_out(), 1);
  ::close(idle);
  ::close(busy);
}

// A client that asks and never reads: once nothing it is owed moves for the progress deadline,
// the relay closes the connection (the server alone would wait a minute on its write).
TEST_F(Ipv6RelayTest, ProgressDeadlineClosesAClientThatNeverReads) {
  // More than the kernel's buffers on the way take (the relay's send buffer grows to 4 MiB).
  const std::string big = Pattern(8 * 1024 * 1024);
  HttpServer server(Limits());
  server.Handle("/big", [&big](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.body = big;
    return reply;
  });
  ASSERT_TRUE(testing::IsOk(server.Start({"127.0.0.1:0"})));
  Ipv6RelayLimits limits;
  limits.progress_timeout_ms = 300;
  Ipv6Relay relay(limits);
  const int port = StartRelay(relay, server.port());
  const int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  const int small = 4096;  // so that the kernel's buffers do not take the whole answer
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_port = htons(static_cast<uint16_t>(port));
  addr.sin6_addr = in6addr_loopback;
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string request = "GET /big HTTP/1.1\r\nHost: x\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  ASSERT_TRUE(testing::WaitFor([&] { return relay.open() == 1; }, 10s));
  EXPECT_TRUE(testing::WaitFor([&] { return relay.open() == 0; }, 20s));
  EXPECT_EQ(relay.timed_out(), 1);
  EXPECT_EQ(relay.evicted(), 0);
  ::close(fd);
}

// The relay names the IPv6 client of each connection it makes, by the source port the server
// sees, from before the first byte until the connection is closed.
TEST(Ipv6Relay, TellsTheClientOfEachRelayedConnection) {
  const int target = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(target, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(target, 8), 0);
  ::getsockname(target, reinterpret_cast<sockaddr*>(&addr), &len);
  const int target_port = ntohs(addr.sin_port);
  Ipv6Relay relay;
  Result<int> port = relay.Listen("::1", 0, target_port);
  ASSERT_TRUE(testing::IsOk(port));
  relay.Start();
  const int client = ConnectLoopback6(*port);
  sockaddr_in from{};
  socklen_t from_len = sizeof(from);
  const int accepted = ::accept(target, reinterpret_cast<sockaddr*>(&from), &from_len);
  ASSERT_GE(accepted, 0);
  const int source_port = ntohs(from.sin_port);
  // Once a byte arrives (a request), its client is known.
  ASSERT_EQ(::send(client, "x", 1, MSG_NOSIGNAL), 1);
  char byte = 0;
  ASSERT_EQ(::recv(accepted, &byte, 1, 0), 1);
  EXPECT_EQ(relay.PeerOf(target_port, source_port), "::1");
  EXPECT_EQ(relay.PeerOf(target_port, source_port + 1), "");
  EXPECT_EQ(relay.PeerOf(target_port + 1, source_port), "");
  ::close(client);
  ::close(accepted);
  EXPECT_TRUE(
      testing::WaitFor([&] { return relay.PeerOf(target_port, source_port).empty(); }, 10s));
  relay.Stop();
  ::close(target);
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
  Ipv6Relay relay;
  const int port = StartRelay(relay, server.port());
  const int fd = ConnectLoopback6(port);
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
  Ipv6Relay relay;
  EXPECT_THAT(relay.Listen("127.0.0.1", 0, 1).error, HasSubstr("not an IPv6 address"));
  Result<int> port = relay.Listen("::1", 0, 1);
  ASSERT_TRUE(testing::IsOk(port));
  Ipv6Relay other;
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

// --- Clients at addresses of their own ---------------------------------------------------------
// Loopback has one IPv6 address. A test that needs clients at several runs again, alone, in a
// user and network namespace of its own (unshare(1), as an unprivileged user may), where it
// brings up lo with more addresses.

constexpr const char* kOwnNetworkEnv = "PODWAIT_TEST_OWN_NETWORK";

// Inside the namespace: lo up, with `addresses` (/128) on it.
void SetUpLoopback(const std::vector<std::string>& addresses) {
  const int fd = ::socket(AF_INET6, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  ASSERT_EQ(::ioctl(fd, SIOCGIFFLAGS, &ifr), 0) << std::strerror(errno);
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  ASSERT_EQ(::ioctl(fd, SIOCSIFFLAGS, &ifr), 0) << std::strerror(errno);
  ASSERT_EQ(::ioctl(fd, SIOCGIFINDEX, &ifr), 0) << std::strerror(errno);
  for (const std::string& address : addresses) {
    struct {  // linux/ipv6.h's in6_ifreq
      in6_addr addr;
      uint32_t prefixlen;
      int ifindex;
    } req{};
    ASSERT_EQ(::inet_pton(AF_INET6, address.c_str(), &req.addr), 1);
    req.prefixlen = 128;
    req.ifindex = ifr.ifr_ifindex;
    ASSERT_EQ(::ioctl(fd, SIOCSIFADDR, &req), 0) << address << ": " << std::strerror(errno);
  }
  ::close(fd);
}

// True inside the namespace (set up with `addresses`): the caller runs the test. Outside, runs
// this test alone in one and reports its outcome; false.
bool InOwnNetwork(const std::vector<std::string>& addresses) {
  if (std::getenv(kOwnNetworkEnv) != nullptr) {
    SetUpLoopback(addresses);
    return !::testing::Test::HasFatalFailure();
  }
  char self[PATH_MAX] = {};
  EXPECT_GT(::readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  testing::Subprocess child(
      {"unshare", "--user", "--map-root-user", "--net", "--", self,
       std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name()},
      {{kOwnNetworkEnv, "1"}});
  const int status = child.Wait(120s);
  const std::string log = child.ReadLog();
  EXPECT_EQ(status, 0) << log;
  EXPECT_THAT(log, HasSubstr("[  PASSED  ] 1 test")) << log;
  return false;
}

// GET `path` over HTTP/1.1 from [source] to [::1]:port with `authorization`; the status, 0 when
// no answer came.
int GetFrom(const std::string& source, int port, const std::string& path,
            const std::string& authorization = "") {
  const int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 from{};
  from.sin6_family = AF_INET6;
  ::inet_pton(AF_INET6, source.c_str(), &from.sin6_addr);
  sockaddr_in6 to{};
  to.sin6_family = AF_INET6;
  to.sin6_port = htons(static_cast<uint16_t>(port));
  to.sin6_addr = in6addr_loopback;
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    ::close(fd);
    return 0;
  }
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  if (!authorization.empty()) request += "Authorization: " + authorization + "\r\n";
  request += "\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  bool ended = false;
  const std::string reply = ReadToEnd(fd, &ended);
  ::close(fd);
  if (reply.rfind("HTTP/1.1 ", 0) != 0 || reply.size() < 12) return 0;
  return std::atoi(reply.c_str() + 9);
}

std::string BcryptHash(const std::string& password, int cost) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(
      ::crypt_gensalt_rn("$2b$", static_cast<unsigned long>(cost), nullptr, 0, salt, sizeof(salt)),
      nullptr);
  crypt_data data{};
  const char* hash = ::crypt_r(password.c_str(), salt, &data);
  return hash != nullptr ? hash : "";
}

// Password guessers at one IPv6 address keep bcrypt busy: good clients at another, whose
// credentials are not verified yet, are still answered. civetweb sees both as 127.0.0.1 (the
// relay's connections); the one-check-per-client rule holds per IPv6 client.
TEST(HttpServerIPv6OwnNetwork, GuessersOverIPv6DoNotStarveAGoodClient) {
  const std::string guesser = "fd00:77::1", good = "fd00:77::2";
  if (!InOwnNetwork({guesser, good})) return;
  const std::string dir = testing::MakeTempDir();
  {
    std::ofstream web(dir + "/web.yml");
    web << "basic_auth_users:\n";
    for (int i = 0; i < 12; ++i) {
      web << "  user" << i << ": " << BcryptHash("pass" + std::to_string(i), 7) << "\n";
    }
  }
  HttpServer server;
  server.Handle("/hello", &Hello);
  ASSERT_TRUE(testing::IsOk(server.UseWebConfig(dir + "/web.yml")));
  ASSERT_TRUE(testing::IsOk(server.Start({":0"})));
  std::atomic<bool> stop{false};
  std::atomic<int> guesses{0};
  std::vector<std::thread> guessers;
  for (int g = 0; g < 4; ++g) {
    guessers.emplace_back([&] {
      while (!stop) {
        GetFrom(guesser, server.port(), "/hello", "Basic " + Base64Encode("user0:guess"));
        ++guesses;
      }
    });
  }
  ASSERT_TRUE(testing::WaitFor([&] { return guesses >= 8; }, 30s));
  int answered = 0;
  for (int i = 0; i < 12; ++i) {
    const std::string credentials = "user" + std::to_string(i) + ":pass" + std::to_string(i);
    const int status = GetFrom(good, server.port(), "/hello", "Basic " + Base64Encode(credentials));
    answered += status == 200 ? 1 : 0;
    EXPECT_EQ(status, 200) << "fresh user " << i;
  }
  stop = true;
  for (auto& t : guessers) t.join();
  std::cout << answered << " of 12 fresh users answered 200 during " << guesses << " guesses\n";
}

}  // namespace
}  // namespace podwait
