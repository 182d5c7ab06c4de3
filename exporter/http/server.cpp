#include "exporter/http/server.h"

#include <civetweb.h>
#include <zlib.h>

#include <cstring>

#include "exporter/common/log.h"
#include "exporter/http/error_reply.h"

namespace podwait {
namespace {

const char* StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
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

HttpServer::HttpServer(HttpServerLimits limits) : limits_(limits) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(const std::string& path, HttpHandler handler) {
  handlers_[path] = std::move(handler);
}

bool HttpServer::Start(const std::string& listen_address, std::string* error) {
  std::string ports;
  if (!ToCivetwebPorts(listen_address, &ports)) {
    *error = "invalid listen address \"" + listen_address + "\" (want host:port or :port)";
    return false;
  }
  mg_init_library(0);
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
  callbacks.http_error = &SendErrorReply;
  ctx_ = mg_start(&callbacks, nullptr, options);
  if (ctx_ == nullptr) {
    *error = "cannot listen on \"" + listen_address + "\" (address in use or not permitted)";
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

int HttpServer::Dispatch(mg_connection* conn, void* self_ptr) {
  auto* self = static_cast<HttpServer*>(self_ptr);
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
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
            reply.status, StatusText(reply.status), reply.content_type.c_str(), body.size(),
            gzip ? "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n" : "");
  if (request.method != "HEAD") mg_write(conn, body.data(), body.size());
  return reply.status;
}

}  // namespace podwait
