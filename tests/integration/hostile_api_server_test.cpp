// Hostile API servers on loopback against the real reflector and libcurl: a watch that answers
// 200 and closes after an HTML page, one bad line or a lone BOOKMARK; an ERROR 410 after every
// list; a continue token that repeats or never ends; a watch that brings one event and closes.
// Each scenario runs for a few seconds with the production backoff and request budget and
// reports the request rate it now causes; the assertions are bounds far from both the old rates
// (thousands a second) and the new ones (a few a second). Then the exporter against a closed
// port: its log says what is wrong, once per backoff step rather than once per resource.
// The answers are made up in the shape of kube-apiserver's (staging/src/k8s.io/apiserver/pkg/
// endpoints/handlers/watch.go writes one JSON event per line; a PodList carries metadata.continue).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exporter/app/observers.h"
#include "exporter/kube/reflector.h"
#include "exporter/net/http_client.h"
#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A loopback HTTP/1.1 server answering every request with the raw bytes `answer(request_line)`
// returns, then closing the connection. One thread; requests are counted.
class HostileServer {
 public:
  using Answer = std::function<std::string(const std::string& request_line)>;
  explicit HostileServer(Answer answer) : answer_(std::move(answer)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd_, 64) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~HostileServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  size_t Count(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& line : lines_) n += line.find(needle) != std::string::npos;
    return n;
  }

 private:
  void Loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int conn = accept(fd_, nullptr, nullptr);
      if (conn < 0) continue;
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
        pollfd c{conn, POLLIN, 0};
        if (poll(&c, 1, 1000) <= 0) break;
        const ssize_t n = read(conn, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
      }
      const std::string line = request.substr(0, request.find("\r\n"));
      {
        std::lock_guard<std::mutex> lock(mu_);
        lines_.push_back(line);
      }
      const std::string reply = answer_(line);
      for (size_t off = 0; off < reply.size();) {
        const ssize_t n = send(conn, reply.data() + off, reply.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
      shutdown(conn, SHUT_RDWR);
      close(conn);
    }
  }

  Answer answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::string> lines_;
  std::thread thread_;
};

std::string Http200(const std::string& content_type, const std::string& body,
                    bool content_length = true) {
  std::string r = "HTTP/1.1 200 OK\r\nContent-Type: " + content_type + "\r\nConnection: close\r\n";
  if (content_length) r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return r + "\r\n" + body;
}

std::string PodList(const std::string& rv, const std::string& cont) {
  std::string meta = R"({"resourceVersion":")" + rv + "\"";
  if (!cont.empty()) meta += R"(,"continue":")" + cont + "\"";
  return Http200(
      "application/json",
      R"({"kind":"PodList","apiVersion":"v1","metadata":)" + meta +
          R"(},"items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"tidb","uid":"u1","resourceVersion":"5"}}]})");
}

std::string WatchBody(const std::string& lines) {
  return Http200("application/json", lines, /*content_length=*/false);
}

bool IsWatch(const std::string& line) { return line.find("watch=true") != std::string::npos; }

class CountingHandler final : public ReflectorHandler {
 public:
  void OnListBegin() override {}
  bool OnListItem(const rapidjson::Value&) override { return true; }
  void OnListEnd(const std::string&) override {}
  void OnListAbort() override {}
  bool OnEvent(WatchEventType, const rapidjson::Value&) override { return true; }
};

// Runs one reflector with the production options against `server` for `seconds`; returns the
// requests per second it made and prints them.
double MeasureRate(HostileServer& server, const std::string& scenario, double seconds,
                   const std::string& needle = "/api/v1/") {
  SelfMetrics metrics;
  SyncStatus sync;
  KubeContext ctx;
  ctx.endpoint.api_url = server.url();
  ctx.observers = MakeSelfMetricsReflectorObservers(metrics);
  ctx.sync = &sync;
  ReflectorOptions opts;
  opts.resource = "pods";
  opts.path = "/api/v1/pods";
  CountingHandler handler;
  Reflector reflector(ctx, opts, handler);
  reflector.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
  reflector.Stop();
  const double rate = static_cast<double>(server.Count(needle)) / seconds;
  std::cout << "hostile API server: " << scenario << ": " << rate << " requests/s ("
            << server.Count(needle) << " in " << seconds << " s)\n";
  ::testing::Test::RecordProperty(scenario, std::to_string(rate));
  return rate;
}

constexpr double kSeconds = 5;

TEST(HostileApiServer, AWatchAnsweredWithAnHtmlPageBacksOff) {
  HostileServer server([](const std::string& line) {
    return IsWatch(line)
               ? Http200("text/html", "<!DOCTYPE html><html><body>Sign in</body></html>\n", false)
               : PodList("10", "");
  });
  // Before: ~3,500 watches/s. Now: 0.8-1.6 s, 1.6-3.2 s, ... between them.
  EXPECT_LT(MeasureRate(server, "watch closed after an HTML page", kSeconds, "watch=true"), 5);
}

TEST(HostileApiServer, AWatchOfOneBadLineOrALoneBookmarkBacksOff) {
  std::atomic<int> n{0};
  HostileServer server([&](const std::string& line) {
    if (!IsWatch(line)) return PodList("10", "");
    return WatchBody(
        n++ % 2 == 0
            ? std::string("{\"type\":\"ADDED\",\"object\":\n")
            : std::string(
                  R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"10"}}})") +
                  "\n");
  });
  EXPECT_LT(MeasureRate(server, "watch closed after one bad line or a lone BOOKMARK", kSeconds,
                        "watch=true"),
            5);
}

TEST(HostileApiServer, Expired410AfterEveryListRelistsWithBackoff) {
  HostileServer server([](const std::string& line) {
    if (!IsWatch(line)) return PodList("10", "");
    return WatchBody(
        R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (99)","reason":"Expired","code":410}})j"
        "\n");
  });
  // Before: ~1,700 full lists/s.
  EXPECT_LT(MeasureRate(server, "ERROR 410 after every list (lists)", kSeconds, "limit="), 5);
}

TEST(HostileApiServer, ARepeatedContinueTokenIsAnError) {
  HostileServer server([](const std::string&) { return PodList("10", "same-token"); });
  // Before: ~2,000 pages/s forever, memory growing.
  EXPECT_LT(MeasureRate(server, "repeated continue token (pages)", kSeconds, "limit="), 10);
}

TEST(HostileApiServer, AnEndlessListIsHeldToTheRequestBudget) {
  std::atomic<int> n{0};
  HostileServer server(
      [&](const std::string&) { return PodList("10", "token-" + std::to_string(n++)); });
  // Distinct tokens forever: the request budget (burst 100, then 20/s) paces the pages until
  // max_list_pages. Before: ~2,000 pages/s.
  EXPECT_LT(MeasureRate(server, "endless continue tokens (pages)", kSeconds, "limit="), 60);
}

TEST(HostileApiServer, WatchesThatEachBringOneEventAreHeldToTheBudget) {
  std::atomic<int> n{0};
  HostileServer server([&](const std::string& line) {
    if (!IsWatch(line)) return PodList("10", "");
    const std::string rv = std::to_string(11 + n++);
    return WatchBody(
        R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"tidb","uid":"u1","resourceVersion":")" +
        rv + "\"}}}\n");
  });
  // Real progress, so no backoff: the budget is what bounds it.
  EXPECT_LT(MeasureRate(server, "one real event per watch (watches)", kSeconds, "watch=true"), 60);
}

// The exporter against an API server address where nothing listens, for 10 s: a few lines that
// name the address and the cause, not one line per resource and attempt (before: ~5 lines a
// second naming neither).
TEST(HostileApiServer, AnUnreachableApiServerIsLoggedOncePerBackoffStep) {
  const RefusingPort refusing;
  const int closed = refusing.port();
  const int port = FreePort();
  Subprocess exporter({BinaryPath("podwait-exporter"),
                       "--web.listen-address=127.0.0.1:" + std::to_string(port),
                       "--kube.api-url=http://127.0.0.1:" + std::to_string(closed),
                       "--namespaces=a,b,c,d,e,f", "--log.level=info"});
  std::this_thread::sleep_for(10s);
  const std::string log = exporter.ReadLog();
  size_t lines = 0;
  size_t unreachable = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    ++lines;
    if (line.find("cannot reach the API server") != std::string::npos) {
      ++unreachable;
      EXPECT_THAT(line, HasSubstr("127.0.0.1:" + std::to_string(closed))) << line;
      EXPECT_THAT(line, HasSubstr("Connection refused")) << line;
    }
    EXPECT_THAT(line, ::testing::Not(HasSubstr("list failed"))) << line;
  }
  std::cout << "unreachable API server: " << lines << " log lines in 10 s, " << unreachable
            << " of them about the server\n";
  EXPECT_GE(unreachable, 1u) << log;
  EXPECT_LE(unreachable, 10u) << log;
  EXPECT_LE(lines, 30u) << log;
}

// A URL whose scheme is not http or https never reaches a socket.
TEST(HostileApiServer, OnlyHttpAndHttpsReachLibcurl) {
  auto client = MakeCurlHttpClient();
  for (const std::string url : {"gopher://127.0.0.1:1/_raw", "file:///etc/passwd",
                                "dict://127.0.0.1:1/", "ftp://127.0.0.1:1/"}) {
    HttpRequest req;
    req.url = url;
    const HttpResponse r = client->Get(req);
    EXPECT_FALSE(r.ok()) << url;
    EXPECT_THAT(r.error, HasSubstr("only http and https")) << url;
    EXPECT_THAT(r.error, HasSubstr(url.substr(0, url.find(':')))) << url;
  }
}

// A redirect to another scheme is not followed either.
TEST(HostileApiServer, ARedirectToAnotherSchemeIsNotFollowed) {
  HostileServer server([](const std::string&) {
    return std::string(
        "HTTP/1.1 302 Found\r\nLocation: gopher://127.0.0.1:1/_x\r\nContent-Length: 0\r\n"
        "Connection: close\r\n\r\n");
  });
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = server.url() + "/pd/api/v1/health";
  const HttpResponse r = client->Get(req);
  EXPECT_EQ(r.status, 302);
  EXPECT_FALSE(r.ok());
}

TEST(HostileApiServer, AHugeRetryAfterDoesNotOverflow) {
  EXPECT_EQ(ParseRetryAfter("99999999999999999999999999"), 86400);
  EXPECT_EQ(ParseRetryAfter("120"), 120);
  EXPECT_EQ(ParseRetryAfter("-1"), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
  HostileServer server([](const std::string&) {
    return std::string(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 184467440737095516160000\r\n"
        "Content-Length: 0\r\nConnection: close\r\n\r\n");
  });
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = server.url() + "/api/v1/pods";
  const HttpResponse r = client->Get(req);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.retry_after_s, 86400);
}

}  // namespace
}  // namespace podwait::testing
