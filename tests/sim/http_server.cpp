#include "tests/sim/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace podwait::sim {

namespace {

constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kMaxBodyBytes = 64 * 1024 * 1024;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends what the next recv() returns; false when the peer closed or the read failed.
bool RecvMore(int fd, std::string* buf) {
  char tmp[16384];
  while (true) {
    ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf->append(tmp, static_cast<size_t>(n));
    return true;
  }
}

}  // namespace

std::string UrlDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = HexValue(text[i + 1]);
      int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && c == '+' ? ' ' : c);
  }
  return out;
}

std::multimap<std::string, std::string> ParseQuery(std::string_view query) {
  std::multimap<std::string, std::string> out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      out.emplace(UrlDecode(part, true), "");
    } else {
      out.emplace(UrlDecode(part.substr(0, eq), true), UrlDecode(part.substr(eq + 1), true));
    }
  }
  return out;
}

std::string StatusText(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Status";
  }
}

std::string Request::Param(const std::string& name, const std::string& fallback) const {
  auto it = params.find(name);
  return it == params.end() ? fallback : it->second;
}

std::string Request::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

bool Responder::WriteAll(std::string_view data) {
  if (aborted_) return false;
  while (!data.empty()) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close_ = true;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

static std::string HeadBlock(int status, std::string_view content_type, const Headers& extra,
                             bool close) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) + "\r\n";
  if (!content_type.empty()) head += "Content-Type: " + std::string(content_type) + "\r\n";
  for (const auto& [k, v] : extra) head += k + ": " + v + "\r\n";
  if (close) head += "Connection: close\r\n";
  return head;
}

bool Responder::Send(int status, std::string_view content_type, std::string_view body,
                     const Headers& extra) {
  responded_ = true;
  std::string head = HeadBlock(status, content_type, extra, close_);
  head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  if (body.size() < 64 * 1024) {
    head.append(body);
    return WriteAll(head);
  }
  return WriteAll(head) && WriteAll(body);
}

bool Responder::BeginChunked(int status, std::string_view content_type, const Headers& extra) {
  responded_ = true;
  chunked_open_ = true;
  std::string head = HeadBlock(status, content_type, extra, close_);
  head += "Transfer-Encoding: chunked\r\n\r\n";
  return WriteAll(head);
}

bool Responder::WriteChunk(std::string_view data) {
  if (data.empty()) return !aborted_;
  char size[32];
  int len = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string frame;
  frame.reserve(static_cast<size_t>(len) + data.size() + 2);
  frame.append(size, static_cast<size_t>(len));
  frame.append(data);
  frame.append("\r\n");
  return WriteAll(frame);
}

bool Responder::EndChunked() {
  if (!chunked_open_) return true;
  chunked_open_ = false;
  return WriteAll("0\r\n\r\n");
}

void Responder::Abort() {
  if (aborted_) return;
  linger lg{1, 0};  // close with RST
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
  ::shutdown(fd_, SHUT_RDWR);
  aborted_ = true;
  close_ = true;
  responded_ = true;
}

void Responder::CloseWithoutResponse() {
  close_ = true;
  responded_ = true;
}

bool Responder::PeerGone() const {
  if (aborted_) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  int r = ::poll(&p, 1, 0);
  if (r <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) return true;
  if (p.revents & POLLIN) {
    char c;
    ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0;
  }
  return false;
}

HttpServer::~HttpServer() { Stop(); }

bool HttpServer::Listen(const std::string& host, int port, std::string* error) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) {
    *error = std::strerror(errno);
    return false;
  }
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    *error = "bad listen address " + host;
    return false;
  }
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 512) != 0) {
    *error = std::string("bind/listen: ") + std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  return true;
}

void HttpServer::Start(Handler handler) {
  handler_ = std::move(handler);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

void HttpServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (accept_thread_.joinable()) accept_thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
  std::vector<std::unique_ptr<Conn>> conns;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& c : conns_) {
      if (c->fd >= 0) ::shutdown(c->fd, SHUT_RDWR);
    }
    conns.swap(conns_);
  }
  for (auto& c : conns) {
    if (c->thread.joinable()) c->thread.join();
  }
}

void HttpServer::ReapFinished() {
  std::vector<std::unique_ptr<Conn>> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::partition(conns_.begin(), conns_.end(),
                             [](const std::unique_ptr<Conn>& c) { return !c->done.load(); });
    for (auto i = it; i != conns_.end(); ++i) finished.push_back(std::move(*i));
    conns_.erase(it, conns_.end());
  }
  for (auto& c : finished) {
    if (c->thread.joinable()) c->thread.join();
  }
}

void HttpServer::AcceptLoop() {
  while (!stopping_.load()) {
    sockaddr_in peer{};
    socklen_t len = sizeof(peer);
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (stopping_.load()) break;
      if (errno == EMFILE || errno == ENFILE) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ReapFinished();
        continue;
      }
      break;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ReapFinished();
    auto conn = std::make_unique<Conn>();
    conn->fd = fd;
    Conn* raw = conn.get();
    int remote_port = ntohs(peer.sin_port);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) {
      ::close(fd);
      break;
    }
    raw->thread = std::thread([this, raw, remote_port] { ServeConnection(raw, remote_port); });
    conns_.push_back(std::move(conn));
  }
}

void HttpServer::ServeConnection(Conn* conn, int remote_port) {
  int fd = conn->fd;
  std::string buf;
  bool keep_going = true;
  while (keep_going && !stopping_.load()) {
    // Read the header block.
    size_t header_end;
    while ((header_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (buf.size() > kMaxHeaderBytes) {
        keep_going = false;
        break;
      }
      if (!RecvMore(fd, &buf)) {
        keep_going = false;
        break;
      }
    }
    if (!keep_going) break;
    Request req;
    req.remote_port = remote_port;
    std::string_view head(buf.data(), header_end);
    size_t line_end = head.find("\r\n");
    std::string_view request_line = head.substr(0, line_end);
    size_t sp1 = request_line.find(' ');
    size_t sp2 = request_line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 == sp1) break;
    req.method = std::string(request_line.substr(0, sp1));
    std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view version = request_line.substr(sp2 + 1);
    size_t q = target.find('?');
    req.path = UrlDecode(target.substr(0, q), false);
    if (q != std::string_view::npos) {
      req.query = std::string(target.substr(q + 1));
      req.params = ParseQuery(req.query);
    }
    std::string_view rest =
        line_end == std::string_view::npos ? std::string_view() : head.substr(line_end + 2);
    while (!rest.empty()) {
      size_t e = rest.find("\r\n");
      std::string_view line = rest.substr(0, e);
      rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      req.headers[Lower(Trim(line.substr(0, colon)))] = std::string(Trim(line.substr(colon + 1)));
    }
    buf.erase(0, header_end + 4);
    size_t content_length = 0;
    if (auto it = req.headers.find("content-length"); it != req.headers.end()) {
      content_length = static_cast<size_t>(std::strtoull(it->second.c_str(), nullptr, 10));
    }
    Responder resp(fd);
    bool keep_alive = version == "HTTP/1.1" ? Lower(req.Header("connection")) != "close"
                                            : Lower(req.Header("connection")) == "keep-alive";
    resp.set_keep_alive(keep_alive);
    if (content_length > kMaxBodyBytes) {
      resp.set_keep_alive(false);
      resp.Send(413, "text/plain", "body too large\n");
      break;
    }
    if (content_length > 0 && Lower(req.Header("expect")) == "100-continue" &&
        buf.size() < content_length) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      ::send(fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL);
    }
    while (buf.size() < content_length) {
      if (!RecvMore(fd, &buf)) {
        keep_going = false;
        break;
      }
    }
    if (!keep_going) break;
    req.body = buf.substr(0, content_length);
    buf.erase(0, content_length);

    handler_(req, resp);
    if (!resp.responded()) resp.Send(500, "text/plain", "no response\n");
    if (resp.closing() || resp.aborted()) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ::close(fd);
  conn->fd = -1;
  conn->done.store(true);
}

}  // namespace podwait::sim
