#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/http/ipv6_relay.h"
#include "exporter/http/web_config.h"

struct mg_context;
struct mg_connection;

namespace podwait {

class TlsContext;

struct HttpServerRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;  // decoded ?a=b&c=d
  bool accepts_gzip = false;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpServerReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  bool compressible = false;  // gzip the body when the client accepts it
  HttpHeaders headers;        // more response headers (e.g. the status page's CSP)
};

using HttpHandler = std::function<HttpServerReply(const HttpServerRequest&)>;

// Limits that keep /metrics and /healthz answering while idle or slow clients hold connections
// (measured in BENCHMARKS.md, "HTTP server under idle and slow clients"). civetweb gives each
// open connection a worker thread while it reads the request, so the threads bound how many such
// clients are harmless, and the request timeout how long each one holds its thread.
struct HttpServerLimits {
  int worker_threads = 128;
  // A request's line and headers must arrive within this time (a byte-a-second client is cut
  // off after it); it also bounds each write of a response.
  int request_timeout_ms = 5000;
  // How long a kept-alive connection may sit between requests.
  int keep_alive_timeout_ms = 2000;
  // Requests answered at once (--web.max-requests, as node_exporter's); beyond, 503 at once.
  // Health probes are not counted. 0: no limit.
  int max_requests = 40;
};

// The IPv6 relay's limits for a server with `limits` (http/ipv6_relay.h).
Ipv6RelayLimits RelayLimits(const HttpServerLimits& limits);

// How one --web.listen-address is served.
struct ListenPlan {
  // civetweb's listening_ports entry ("9877", "127.0.0.1:9877", "+9877", "[::1]:9877"); for an
  // IPv6 literal served by the relay, "127.0.0.1:0", the relay's target, not a user's address.
  std::string civetweb;
  // When civetweb has no IPv6: the IPv6 address the relay listens on ("::" for ":port", the
  // literal without brackets), else empty.
  std::string relay_address;
  // The relay's port: civetweb's own (":port", dual stack on one port number) when
  // relay_same_port, else this one.
  bool relay_same_port = false;
  int relay_port = 0;
};
// Plans ":9877" / "host:port" / "[v6]:port". With `civetweb_ipv6` civetweb serves everything
// (":port" is "+port", IPv4 and IPv6); without, IPv6 goes through the relay (http/ipv6_relay.h).
// An error for an address that is not one of these.
Result<ListenPlan> PlanListen(const std::string& listen_address, bool civetweb_ipv6);

// One civetweb server for all of podwait's endpoints. Handlers run on civetweb's worker threads
// and must be thread-safe. Paths are matched exactly; anything else is 404.
class HttpServer {
 public:
  explicit HttpServer(HttpServerLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Routes `path` to `handler`. A probe (/healthz, /livez, /readyz) is answered even when
  // max_requests are in flight. REQUIRES: called before Start().
  void Handle(const std::string& path, HttpHandler handler, bool probe = false);
  // Puts every endpoint behind the web config at `path` (--web.config.file; empty: plain HTTP,
  // no auth): TLS, basic auth, headers and rate limit, re-read when the file changes. An error
  // names the file and the problem when it cannot be used.
  // REQUIRES: called before Start().
  Result<bool> UseWebConfig(const std::string& path);
  // Starts listening on every Prometheus-style address (":9877", "127.0.0.1:9877",
  // "[::1]:9877"); ":port" is every address of IPv4 and IPv6. When civetweb has no IPv6, the
  // IPv6 side is an Ipv6Relay in front of civetweb's IPv4 listener (logged once at start).
  // An error when an address is invalid or cannot be bound.
  Result<bool> Start(const std::vector<std::string>& listen_addresses);
  // The port actually bound (useful with ":0"), of the first address, and of each (for an IPv6
  // literal served by the relay, the relay's port: its 127.0.0.1 target is not listed).
  int port() const { return ports_.empty() ? 0 : ports_.front(); }
  const std::vector<int>& ports() const { return ports_; }
  // Whether the listener speaks TLS.
  bool tls() const { return tls_ != nullptr; }
  // The web config's last reload; without --web.config.file, successful at Start().
  WebConfigReloadStatus WebConfigStatus() const;
  // Stops accepting, closes relayed IPv6 connections and waits for in-flight requests.
  void Stop();

 private:
  static int Dispatch(mg_connection* conn, void* self);
  // The web config's gate in front of the handlers: the status `conn` was answered with here
  // (401, 429), or 0 with *configured set to the config's response headers.
  int Refused(mg_connection* conn, HttpHeaders* configured);
  // The client of `conn`'s request: civetweb's remote address, or for a connection the IPv6
  // relay made, the relay's IPv6 client (so basic auth's one-check-per-client rule holds for
  // each IPv6 client, not for all of them as 127.0.0.1).
  std::string ClientOf(const mg_connection* conn) const;
  // Starts the relay for every plan with a relay address; `bound`: civetweb's port of each plan.
  Result<bool> StartRelay(const std::vector<std::string>& listen_addresses,
                          const std::vector<ListenPlan>& plans, const std::vector<int>& bound);
  struct Route {
    HttpHandler handler;
    bool probe = false;
  };
  const HttpServerLimits limits_;
  std::map<std::string, Route> handlers_;
  std::unique_ptr<WebConfigSource> web_config_;
  std::unique_ptr<TlsContext> tls_;
  std::unique_ptr<BasicAuthChecker> auth_;
  // rate_limit's bucket for requests with verified credentials (or all, without users), and
  // one for the rest, so that clients without good credentials cannot use up the others'.
  std::unique_ptr<RateLimiter> limiter_;
  std::unique_ptr<RateLimiter> unverified_limiter_;
  std::atomic<int> in_flight_{0};
  mg_context* ctx_ = nullptr;
  std::unique_ptr<Ipv6Relay> relay_;  // when civetweb has no IPv6 and an address wants it
  std::vector<int> ports_;
  Timestamp started_at_ = 0;
};

// The path of a request target as sent ("/metrics" of "/metrics?x"), %XX decoded; nullopt when
// it decodes to a NUL byte or has an invalid escape. Nothing else is normalized: "//metrics" and
// "/a/../metrics" are paths of their own.
std::optional<std::string> RequestPath(std::string_view raw);
// Why a request's framing headers are refused (RFC 9112 §6.3: two different Content-Length
// values, one that is not a number, or Content-Length with Transfer-Encoding), or empty.
// `headers`: name and value of each header line.
std::string FramingError(const std::vector<std::pair<std::string_view, std::string_view>>& headers);
// Why a request's Host headers are refused (RFC 9112 §3.2: an HTTP/1.1 request without one, or
// any request with more than one), or empty.
std::string HostError(std::string_view http_version,
                      const std::vector<std::pair<std::string_view, std::string_view>>& headers);
// Gzip-compresses (RFC 1952).
std::string GzipCompress(std::string_view data);
// The headers of a response: its own first, then the web config's for names it does not set
// (a handler's own value wins, as with exporter-toolkit's handler). Names compare
// case-insensitively.
HttpHeaders MergeHeaders(HttpHeaders own, const HttpHeaders& configured);
// Decodes %XX and '+' in a query component.
std::string UrlDecode(std::string_view s);

}  // namespace podwait
