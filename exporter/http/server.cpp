#include "exporter/http/server.h"

#include <civetweb.h>
#include <strings.h>
#include <zlib.h>

#include <cstring>

#include "exporter/common/clock.h"
#include "exporter/common/log.h"
#include "exporter/http/error_reply.h"
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

bool ToCivetwebPorts(const std::string& listen_address, std::string* out) {
  auto colon = listen_address.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = listen_address.substr(0, colon);
  std::string port = listen_address.substr(colon + 1);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) return false;
  if (host.empty() || host == "0.0.0.0") {
    *out = port;
  } else if (host.front() == '[' && host.back() == ']') {
    *out = "[" + host.substr(1, host.size() - 2) + "]:" + port;
    // civetweb wants "+" prefix for dual-stack on "::"; keep explicit addresses as given.
  } else {
    *out = host + ":" + port;
  }
  return true;
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

bool HttpServer::UseWebConfig(const std::string& path, std::string* error) {
  if (path.empty()) return true;
  WebConfig config;
  if (!LoadWebConfig(path, &config, error)) return false;
  const bool https = config.tls.enabled();
  LogInfo(
      https ? "TLS is enabled" : "TLS is disabled",
      {{"web_config", path}, {"basic_auth_users", std::to_string(config.basic_auth_users.size())}});
  web_config_ = std::make_unique<WebConfigSource>(path, std::move(config));
  auth_ = std::make_unique<BasicAuthChecker>();
  limiter_ = std::make_unique<RateLimiter>(SystemClock::Instance());
  if (https) {
    tls_ = TlsContext::Create(web_config_.get(), error);
    if (!tls_) {
      *error = "web config " + path + ": " + *error;
      return false;
    }
  }
  return true;
}

void HttpServer::Handle(const std::string& path, HttpHandler handler) {
  handlers_[path] = std::move(handler);
}

bool HttpServer::Start(const std::string& listen_address, std::string* error) {
  std::string ports;
  if (!ToCivetwebPorts(listen_address, &ports)) {
    *error = "invalid listen address \"" + listen_address + "\" (want host:port or :port)";
    return false;
  }
  if (tls_) {
    ports += "s";
    mg_init_library(MG_FEATURES_TLS);
    if (mg_check_feature(MG_FEATURES_TLS) == 0) {
      *error = "the web config enables TLS, but civetweb has no TLS support";
      return false;
    }
  } else {
    mg_init_library(0);
  }
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
  ctx_ = mg_start(&callbacks, this, options);
  if (ctx_ == nullptr) {
    *error = "cannot listen on \"" + listen_address + "\" (address in use or not permitted" +
             (tls_ ? ", or civetweb could not load libssl" : "") + ")";
    return false;
  }
  mg_set_request_handler(ctx_, "/", &HttpServer::Dispatch, this);
  mg_server_port server_ports[4];
  int n = mg_get_server_ports(ctx_, 4, server_ports);
  if (n > 0) port_ = server_ports[0].port;
  return true;
}

void HttpServer::Stop() {
  if (ctx_ != nullptr) {
    mg_stop(ctx_);
    ctx_ = nullptr;
  }
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

}  // namespace

int HttpServer::Refused(mg_connection* conn, HttpHeaders* configured) {
  if (!web_config_) return 0;
  const bool head = std::strcmp(mg_get_request_info(conn)->request_method, "HEAD") == 0;
  std::string error;
  std::shared_ptr<const WebConfig> config = web_config_->Current(&error);
  if (config == nullptr) {
    WriteReply(conn, 500, "text/plain; charset=utf-8", BaseHeaders(), "Internal Server Error\n",
               false, head);
    return 500;
  }
  *configured = config->headers;
  if (!limiter_->Allow(config->rate_limit_interval, config->rate_limit_burst)) {
    WriteReply(conn, 429, "text/plain; charset=utf-8", MergeHeaders(BaseHeaders(), *configured),
               "Too Many Requests\n", false, head);
    return 429;
  }
  if (!auth_->Allowed(*config, mg_get_header(conn, "Authorization"))) {
    HttpHeaders headers = MergeHeaders(BaseHeaders(), *configured);
    headers.emplace_back("WWW-Authenticate", "Basic");
    WriteReply(conn, 401, "text/plain; charset=utf-8", headers, "Unauthorized\n", false, head);
    return 401;
  }
  return 0;
}

int HttpServer::Dispatch(mg_connection* conn, void* self_ptr) {
  auto* self = static_cast<HttpServer*>(self_ptr);
  HttpHeaders configured;
  if (const int status = self->Refused(conn, &configured)) return status;
  const mg_request_info* info = mg_get_request_info(conn);
  HttpServerRequest request;
  request.method = info->request_method ? info->request_method : "";
  request.path = info->local_uri ? info->local_uri : "/";
  request.query = ParseQuery(info->query_string);
  request.accepts_gzip = HeaderAcceptsGzip(mg_get_header(conn, "Accept-Encoding"));

  HttpServerReply reply;
  auto it = self->handlers_.find(request.path);
  if (it == self->handlers_.end()) {
    reply.status = 404;
    reply.body = "404 page not found\n";
  } else if (request.method != "GET" && request.method != "HEAD") {
    reply.status = 405;
    reply.body = "method not allowed\n";
  } else {
    reply = it->second(request);
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
