#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "exporter/http/server.h"
#include "tests/support/process.h"

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

TEST(ListenAddress, PrometheusStyle) {
  std::string out;
  ASSERT_TRUE(ToCivetwebPorts(":9877", &out));
  EXPECT_EQ(out, "9877");
  ASSERT_TRUE(ToCivetwebPorts("127.0.0.1:80", &out));
  EXPECT_EQ(out, "127.0.0.1:80");
  ASSERT_TRUE(ToCivetwebPorts("[::1]:80", &out));
  EXPECT_EQ(out, "[::1]:80");
  EXPECT_FALSE(ToCivetwebPorts("9877", &out));
  EXPECT_FALSE(ToCivetwebPorts("host:port", &out));
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
  std::string error;
  ASSERT_TRUE(server.Start("127.0.0.1:0", &error)) << error;
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
  std::string error;
  ASSERT_TRUE(a.Start("127.0.0.1:0", &error));
  HttpServer b;
  EXPECT_FALSE(b.Start("127.0.0.1:" + std::to_string(a.port()), &error));
  EXPECT_THAT(error, HasSubstr("cannot listen"));
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
  std::string error;
  ASSERT_TRUE(server.Start("127.0.0.1:0", &error)) << error;
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

}  // namespace
}  // namespace podwait
