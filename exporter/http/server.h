#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct mg_context;
struct mg_connection;

namespace podwait {

class BasicAuthChecker;
class RateLimiter;
class TlsContext;
class WebConfigSource;

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
};

// One civetweb server for all of podwait's endpoints. Handlers run on civetweb's worker threads
// and must be thread-safe. Paths are matched exactly; anything else is 404.
class HttpServer {
 public:
  explicit HttpServer(HttpServerLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // REQUIRES: called before Start().
  void Handle(const std::string& path, HttpHandler handler);
  // Puts every endpoint behind the web config at `path` (--web.config.file; empty: plain HTTP,
  // no auth): TLS, basic auth, headers and rate limit, re-read when the file changes. Returns
  // false with *error naming the file and the problem when it cannot be used.
  // REQUIRES: called before Start().
  bool UseWebConfig(const std::string& path, std::string* error);
  // Starts listening on a Prometheus-style address (":9877", "127.0.0.1:9877", "[::1]:9877").
  // Returns false with *error set when the port cannot be bound.
  bool Start(const std::string& listen_address, std::string* error);
  // The port actually bound (useful with ":0").
  int port() const { return port_; }
  // Whether the listener speaks TLS.
  bool tls() const { return tls_ != nullptr; }
  // Stops accepting and waits for in-flight requests.
  void Stop();

 private:
  static int Dispatch(mg_connection* conn, void* self);
  // The web config's gate in front of the handlers: the status `conn` was answered with here
  // (401, 429, 500), or 0 with *configured set to the config's response headers.
  int Refused(mg_connection* conn, HttpHeaders* configured);
  const HttpServerLimits limits_;
  std::map<std::string, HttpHandler> handlers_;
  std::unique_ptr<WebConfigSource> web_config_;
  std::unique_ptr<TlsContext> tls_;
  std::unique_ptr<BasicAuthChecker> auth_;
  std::unique_ptr<RateLimiter> limiter_;
  mg_context* ctx_ = nullptr;
  int port_ = 0;
};

// Converts ":9877" / "host:port" / "[v6]:port" to civetweb's listening_ports syntax.
bool ToCivetwebPorts(const std::string& listen_address, std::string* out);
// Gzip-compresses (RFC 1952).
std::string GzipCompress(std::string_view data);
// The headers of a response: its own first, then the web config's for names it does not set
// (a handler's own value wins, as with exporter-toolkit's handler). Names compare
// case-insensitively.
HttpHeaders MergeHeaders(HttpHeaders own, const HttpHeaders& configured);
// Decodes %XX and '+' in a query component.
std::string UrlDecode(std::string_view s);

}  // namespace podwait
