#include "exporter/http/server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <strings.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "exporter/common/clock.h"
#include "exporter/common/log.h"
#include "exporter/http/error_reply.h"
#include "exporter/http/ipv6_relay.h"
#include "exporter/http/tls_context.h"
#include "exporter/http/web_config.h"

namespace podwait {
namespace {

const char* StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "";
  }
}

std::map<std::string, std::string> ParseQuery(const char* qs) {
  std::map<std::string, std::string> out;
  if (qs == nullptr) return out;
  std::string_view q(qs);
  while (!q.empty()) {
    auto amp = q.find('&');
    std::string_view part = q.substr(0, amp);
    auto eq = part.find('=');
    if (!part.empty()) {
      out[UrlDecode(part.substr(0, eq))] =
          eq == std::string_view::npos ? std::string() : UrlDecode(part.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return out;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool HeaderAcceptsGzip(const char* value) {
  if (value == nullptr) return false;
  std::string_view v(value);
  size_t pos = 0;
  while ((pos = v.find("gzip", pos)) != std::string_view::npos) {
    // Reject "gzip;q=0".
    std::string_view rest = v.substr(pos + 4);
    auto comma = rest.find(',');
    std::string_view params = rest.substr(0, comma);
    if (params.find("q=0") == std::string_view::npos ||
        params.find("q=0.") != std::string_view::npos) {
      return true;
    }
    pos += 4;
  }
  return false;
}

}  // namespace

std::string UrlDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string GzipCompress(std::string_view data) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return {};
  std::string out;
  out.resize(deflateBound(&zs, data.size()) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

Result<ListenPlan> PlanListen(const std::string& listen_address, bool civetweb_ipv6) {
  using R = Result<ListenPlan>;
  const auto colon = listen_address.rfind(':');
  const std::string host =
      colon == std::string::npos ? std::string() : listen_address.substr(0, colon);
  const std::string port = colon == std::string::npos ? "" : listen_address.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return R::Fail("invalid listen address \"" + listen_address + "\" (want host:port or :port)");
  }
  ListenPlan plan;
  const bool literal6 = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (literal6 || host.find(':') != std::string::npos) {
    in6_addr addr{};
    const std::string inner = literal6 ? host.substr(1, host.size() - 2) : host;
    if (!literal6 || inet_pton(AF_INET6, inner.c_str(), &addr) != 1) {
      return R::Fail("invalid listen address \"" + listen_address +
                     "\" (an IPv6 address goes in brackets: [::1]:9877)");
    }
    if (civetweb_ipv6) {
      plan.civetweb = "[" + inner + "]:" + port;
    } else {
      plan.civetweb = "127.0.0.1:0";
      plan.relay_address = inner;
      plan.relay_port = std::stoi(port);
    }
  } else if (host.empty()) {
    plan.civetweb = (civetweb_ipv6 ? "+" : "") + port;
    if (!civetweb_ipv6) {
      plan.relay_address = "::";
      plan.relay_same_port = true;
    }
  } else {
    plan.civetweb = host + ":" + port;
  }
  return R::Ok(std::move(plan));
}

std::optional<std::string> RequestPath(std::string_view raw) {
  raw = raw.substr(0, raw.find('?'));
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      if (raw[i] == '\0') return std::nullopt;
      out += raw[i];
      continue;
    }
    if (i + 2 >= raw.size() || !std::isxdigit(static_cast<unsigned char>(raw[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
      return std::nullopt;
    }
    const char c = static_cast<char>(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16));
    if (c == '\0') return std::nullopt;
    out += c;
    i += 2;
  }
  return out;
}

std::string FramingError(
    const std::vector<std::pair<std::string_view, std::string_view>>& headers) {
  std::optional<std::string_view> length;
  bool transfer_encoding = false;
  for (const auto& [name, value] : headers) {
    transfer_encoding = transfer_encoding || SameName(name, "Transfer-Encoding");
    if (!SameName(name, "Content-Length")) continue;
    // "Content-Length: 5, 5" is one value written twice; RFC 9112 lets it count as one.
    std::string_view rest = value;
    while (true) {
      const auto comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      if (item.empty() || item.find_first_not_of("0123456789") != std::string_view::npos) {
        return "invalid Content-Length";
      }
      if (length && *length != item) return "two different Content-Length values";
      length = item;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (length && transfer_encoding) return "Content-Length with Transfer-Encoding";
  return "";
}

std::string HostError(std::string_view http_version,
                      const std::vector<std::pair<std::string_view, std::string_view>>& headers) {
  const auto hosts = std::count_if(headers.begin(), headers.end(),
                                   [](const auto& h) { return SameName(h.first, "Host"); });
  if (hosts > 1) return "more than one Host header";
  if (hosts == 0 && http_version == "1.1") return "no Host header";
  return "";
}

HttpHeaders MergeHeaders(HttpHeaders own, const HttpHeaders& configured) {
  for (const auto& [name, value] : configured) {
    bool set = false;
    for (const auto& o : own) set = set || strcasecmp(o.first.c_str(), name.c_str()) == 0;
    if (!set) own.emplace_back(name, value);
  }
  return own;
}

HttpServer::HttpServer(HttpServerLimits limits) : limits_(limits) {}

HttpServer::~HttpServer() { Stop(); }

Result<bool> HttpServer::UseWebConfig(const std::string& path) {
  using R = Result<bool>;
  if (path.empty()) return R::Ok(true);
  Result<std::unique_ptr<WebConfigSource>> source =
      WebConfigSource::Open(path, SystemClock::Instance());
  if (!source.ok()) return R::Fail(std::move(source.error));
  web_config_ = std::move(*source);
  std::shared_ptr<const WebConfig> config = web_config_->Current();
  const bool https = config->tls.enabled();
  LogInfo(https ? "TLS is enabled" : "TLS is disabled",
          {{"web_config", path},
           {"basic_auth_users", std::to_string(config->basic_auth_users.size())}});
  auth_ = std::make_unique<BasicAuthChecker>();
  limiter_ = std::make_unique<RateLimiter>(SystemClock::Instance());
  unverified_limiter_ = std::make_unique<RateLimiter>(SystemClock::Instance());
  if (https) {
    Result<std::unique_ptr<TlsContext>> tls = TlsContext::Create(web_config_.get());
    if (!tls.ok()) return R::Fail("web config " + path + ": " + tls.error);
    tls_ = std::move(*tls);
  }
  return R::Ok(true);
}

WebConfigReloadStatus HttpServer::WebConfigStatus() const {
  if (!web_config_) return {true, started_at_};
  return web_config_->status();
}

void HttpServer::Handle(const std::string& path, HttpHandler handler, bool probe) {
  handlers_[path] = Route{std::move(handler), probe};
}

Result<bool> HttpServer::Start(const std::vector<std::string>& listen_addresses) {
  using R = Result<bool>;
  mg_init_library(tls_ ? MG_FEATURES_TLS : 0);
  if (tls_ && mg_check_feature(MG_FEATURES_TLS) == 0) {
    return R::Fail("the web config enables TLS, but civetweb has no TLS support");
  }
  const bool ipv6 = mg_check_feature(MG_FEATURES_IPV6) != 0;
  std::vector<ListenPlan> plans;
  std::string ports;
  for (const std::string& address : listen_addresses) {
    Result<ListenPlan> plan = PlanListen(address, ipv6);
    if (!plan.ok()) return R::Fail(std::move(plan.error));
    ports += (ports.empty() ? "" : ",") + plan->civetweb + (tls_ ? "s" : "");
    plans.push_back(std::move(*plan));
  }
  if (ports.empty()) return R::Fail("no listen address");
  const std::string threads = std::to_string(limits_.worker_threads);
  const std::string request_timeout = std::to_string(limits_.request_timeout_ms);
  const std::string keep_alive_timeout = std::to_string(limits_.keep_alive_timeout_ms);
  // Headers and body go out in two writes: without tcp_nodelay, Nagle and the client's delayed
  // ACK add ~40 ms to every answer.
  // clang-format off
  const char* options[] = {
      "listening_ports",       ports.c_str(),
      "num_threads",           threads.c_str(),
      "request_timeout_ms",    request_timeout.c_str(),
      "keep_alive_timeout_ms", keep_alive_timeout.c_str(),
      "enable_keep_alive",     "yes",
      "tcp_nodelay",           "1",
      // The path is decoded here (RequestPath), so "%00" and "//" are seen as sent.
      "decode_url",            "no",
      nullptr};
  // clang-format on
  mg_callbacks callbacks{};
  callbacks.log_message = [](const mg_connection*, const char* message) {
    LogDebug("http server", {{"detail", message}});
    return 1;
  };
  // The TLS context is ours (built from the web config); civetweb asks for it at start and, on
  // stop, frees it only when this returns 0.
  callbacks.external_ssl_ctx = [](void** ssl_ctx, void* user_data) {
    auto* self = static_cast<HttpServer*>(user_data);
    if (!self->tls_) return 0;
    *ssl_ctx = self->tls_->ctx();
    return 1;
  };
  callbacks.http_error = &SendErrorReply;
  // The relay exists before civetweb serves (the request handlers read relay_), and listens once
  // civetweb's ports are known.
  const bool relayed = std::any_of(plans.begin(), plans.end(),
                                   [](const ListenPlan& p) { return !p.relay_address.empty(); });
  if (relayed) relay_ = std::make_unique<Ipv6Relay>(RelayLimits(limits_));
  started_at_ = SystemClock::Instance().Now();  // before any request can read it
  ctx_ = mg_start(&callbacks, this, options);
  if (ctx_ == nullptr) {
    std::string all;
    for (const auto& a : listen_addresses) all += (all.empty() ? "\"" : ", \"") + a + "\"";
    return R::Fail("cannot listen on " + all + " (address in use or not permitted" +
                   (tls_ ? ", or civetweb could not load libssl" : "") + ")");
  }
  mg_set_request_handler(ctx_, "/", &HttpServer::Dispatch, this);
  std::vector<mg_server_port> bound(listen_addresses.size() + 4);
  const int n = mg_get_server_ports(ctx_, static_cast<int>(bound.size()), bound.data());
  ports_.clear();
  for (int i = 0; i < n; ++i) ports_.push_back(bound[static_cast<size_t>(i)].port);
  if (Result<bool> relay = StartRelay(listen_addresses, plans, ports_); !relay.ok()) {
    Stop();
    return relay;
  }
  return R::Ok(true);
}

Result<bool> HttpServer::StartRelay(const std::vector<std::string>& listen_addresses,
                                    const std::vector<ListenPlan>& plans,
                                    const std::vector<int>& bound) {
  using R = Result<bool>;
  // Each plan is one civetweb listener (without IPv6, civetweb opens one socket per entry).
  if (bound.size() != plans.size()) {
    return R::Fail("civetweb reported " + std::to_string(bound.size()) + " listeners for " +
                   std::to_string(plans.size()) + " listen addresses");
  }
  std::vector<int> ports = bound;
  for (size_t i = 0; i < plans.size(); ++i) {
    const ListenPlan& plan = plans[i];
    if (plan.relay_address.empty()) continue;
    Result<int> port = relay_->Listen(plan.relay_address,
                                      plan.relay_same_port ? bound[i] : plan.relay_port, bound[i]);
    if (!port.ok()) {
      return R::Fail("cannot listen on \"" + listen_addresses[i] + "\" over IPv6 (" + port.error +
                     ")");
    }
    ports[i] = *port;
  }
  if (!relay_) return R::Ok(true);
  const Ipv6RelayLimits relay = RelayLimits(limits_);
  LogInfo("IPv6 is served through a relay to the IPv4 listener",
          {{"reason", "civetweb was built without IPv6 (USE_IPV6)"},
           {"max_connections", std::to_string(relay.max_connections)},
           {"max_per_client", std::to_string(relay.max_per_peer)}});
  relay_->Start();
  ports_ = std::move(ports);
  return R::Ok(true);
}

void HttpServer::Stop() {
  // The relay's connections first, so civetweb's workers are not left waiting on them; the relay
  // itself after civetweb, whose workers ask it for their clients (ClientOf) until they stop.
  if (relay_) relay_->Stop();
  if (ctx_ != nullptr) {
    mg_stop(ctx_);
    ctx_ = nullptr;
  }
  relay_.reset();
}

Ipv6RelayLimits RelayLimits(const HttpServerLimits& limits) {
  Ipv6RelayLimits relay;
  // IPv6 clients hold civetweb's workers as IPv4 ones do: at most all of them together, a
  // quarter for one client address.
  relay.max_connections = std::max(1, limits.worker_threads);
  relay.max_per_peer = std::max(1, limits.worker_threads / 4);
  // civetweb bounds each write of an answer by the request timeout: so does the relay for its
  // client. Idle: longer than civetweb's request and keep-alive timeouts, so civetweb ends an
  // idle connection first and the relay's deadline holds when it does not.
  relay.progress_timeout_ms = std::max(1, limits.request_timeout_ms);
  relay.idle_timeout_ms = std::max<int64_t>(
      30'000, 2 * std::max(limits.request_timeout_ms, limits.keep_alive_timeout_ms));
  return relay;
}

namespace {

// Every response says: not to be cached, not to be sniffed.
HttpHeaders BaseHeaders() {
  return {{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"}};
}

void WriteReply(mg_connection* conn, int status, const std::string& content_type,
                const HttpHeaders& headers, std::string_view body, bool gzip, bool head) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) +
                    "\r\nContent-Type: " + content_type +
                    "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  if (gzip) out += "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  mg_write(conn, out.data(), out.size());
  if (!head) mg_write(conn, body.data(), body.size());
}

// Makes civetweb close the connection after this reply: it keeps a connection open only while
// the request's own Connection header allows it (civetweb 1.15's should_keep_alive), and has no
// call for a handler to ask. The request's headers are the connection's, read by nothing after
// this. Returns the header to send with the reply.
std::pair<std::string, std::string> CloseAfterReply(mg_connection* conn) {
  auto* info = const_cast<mg_request_info*>(mg_get_request_info(conn));
  int slot = info->num_headers;
  for (int i = 0; i < info->num_headers; ++i) {
    if (strcasecmp(info->http_headers[i].name, "Connection") == 0) slot = i;
  }
  if (slot == MG_MAX_HEADERS) slot = MG_MAX_HEADERS - 1;
  info->http_headers[slot] = {"Connection", "close"};
  info->num_headers = std::max(info->num_headers, slot + 1);
  return {"Connection", "close"};
}

// A plain-text refusal that ends the connection: a client that is refused (bad framing, bad
// credentials, over a limit) does not keep a worker thread for its next try.
int Refuse(mg_connection* conn, int status, HttpHeaders headers, const std::string& body) {
  const bool head = std::strcmp(mg_get_request_info(conn)->request_method, "HEAD") == 0;
  headers.push_back(CloseAfterReply(conn));
  WriteReply(conn, status, "text/plain; charset=utf-8", headers, body, false, head);
  return status;
}

std::vector<std::pair<std::string_view, std::string_view>> RequestHeaders(
    const mg_request_info* info) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (int i = 0; i < info->num_headers; ++i) {
    out.emplace_back(info->http_headers[i].name, info->http_headers[i].value);
  }
  return out;
}

// Counts a request in flight for as long as it lives.
class InFlight {
 public:
  explicit InFlight(std::atomic<int>& n) : n_(n), count_(n.fetch_add(1) + 1) {}
  ~InFlight() { n_.fetch_sub(1); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  int count() const { return count_; }

 private:
  std::atomic<int>& n_;
  const int count_;
};

}  // namespace

std::string HttpServer::ClientOf(const mg_connection* conn) const {
  const mg_request_info* info = mg_get_request_info(conn);
  if (relay_ && std::strcmp(info->remote_addr, "127.0.0.1") == 0) {
    std::string peer = relay_->PeerOf(info->server_port, info->remote_port);
    if (!peer.empty()) return peer;
  }
  return info->remote_addr;
}

int HttpServer::Refused(mg_connection* conn, HttpHeaders* configured) {
  if (!web_config_) return 0;
  std::shared_ptr<const WebConfig> config = web_config_->Current();
  *configured = config->headers;
  const HttpHeaders headers = MergeHeaders(BaseHeaders(), *configured);
  const char* authorization = mg_get_header(conn, "Authorization");
  // Verified credentials (or no users at all) take the rate limit's own bucket; everything else
  // takes a second one before any bcrypt work, so guessers cannot use up the scrapes' requests.
  const bool verified = auth_->Cached(*config, authorization);
  RateLimiter& limiter = verified ? *limiter_ : *unverified_limiter_;
  if (!limiter.Allow(config->rate_limit_interval, config->rate_limit_burst)) {
    return Refuse(conn, 429, headers, "Too Many Requests\n");
  }
  if (verified) return 0;
  switch (auth_->Check(*config, authorization, ClientOf(conn))) {
    case AuthResult::kAllowed:
      return 0;
    case AuthResult::kBusy: {
      HttpHeaders busy = headers;
      busy.emplace_back("Retry-After", "1");
      return Refuse(conn, 429, busy, "Too Many Requests\n");
    }
    case AuthResult::kDenied:
      break;
  }
  HttpHeaders denied = headers;
  denied.emplace_back("WWW-Authenticate", "Basic");
  return Refuse(conn, 401, denied, "Unauthorized\n");
}

int HttpServer::Dispatch(mg_connection* conn, void* self_ptr) {
  auto* self = static_cast<HttpServer*>(self_ptr);
  const mg_request_info* info = mg_get_request_info(conn);
  // Framing first: a request whose body length is ambiguous must not reach a handler, and its
  // connection must not carry another request (the body could be read as one).
  const auto request_headers = RequestHeaders(info);
  std::string problem = FramingError(request_headers);
  if (problem.empty())
    problem = HostError(info->http_version ? info->http_version : "", request_headers);
  if (!problem.empty()) {
    LogDebug("request refused", {{"err", problem}});
    return Refuse(conn, 400, BaseHeaders(), "Bad Request: " + problem + "\n");
  }
  HttpHeaders configured;
  if (const int status = self->Refused(conn, &configured)) return status;
  HttpServerRequest request;
  request.method = info->request_method ? info->request_method : "";
  const std::optional<std::string> path =
      RequestPath(info->local_uri_raw ? info->local_uri_raw : "");
  if (!path) {
    return Refuse(conn, 400, MergeHeaders(BaseHeaders(), configured),
                  "Bad Request: invalid path\n");
  }
  request.path = *path;
  request.query = ParseQuery(info->query_string);
  request.accepts_gzip = HeaderAcceptsGzip(mg_get_header(conn, "Accept-Encoding"));

  HttpServerReply reply;
  auto it = self->handlers_.find(request.path);
  const InFlight in_flight(self->in_flight_);
  if (it == self->handlers_.end()) {
    reply.status = 404;
    reply.body = "404 page not found\n";
  } else if (request.method != "GET" && request.method != "HEAD") {
    reply.status = 405;
    reply.body = "method not allowed\n";
  } else if (!it->second.probe && self->limits_.max_requests > 0 &&
             in_flight.count() > self->limits_.max_requests) {
    // As node_exporter's --web.max-requests: beyond the limit, 503 at once.
    reply.status = 503;
    reply.body = "Service Unavailable: more than " + std::to_string(self->limits_.max_requests) +
                 " requests in flight\n";
    reply.headers.emplace_back("Retry-After", "1");
  } else {
    reply = it->second.handler(request);
  }
  std::string body = std::move(reply.body);
  bool gzip = false;
  if (reply.compressible && request.accepts_gzip && body.size() > 512) {
    std::string compressed = GzipCompress(body);
    if (!compressed.empty()) {
      body = std::move(compressed);
      gzip = true;
    }
  }
  HttpHeaders headers = MergeHeaders(BaseHeaders(), reply.headers);
  WriteReply(conn, reply.status, reply.content_type, MergeHeaders(std::move(headers), configured),
             body, gzip, request.method == "HEAD");
  return reply.status;
}

}  // namespace podwait
