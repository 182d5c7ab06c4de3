#include "exporter/http/ipv6_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "exporter/common/log.h"

namespace podwait {
namespace {

// poll() waits for events; its timeout is only a safety net.
constexpr int kSafetyNetMs = 1000;
// How long accepting pauses when the process is out of file descriptors (accept() would fail at
// once again).
constexpr int kAcceptPauseMs = 100;

bool Retryable(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

void NoDelay(int fd) {
  // civetweb writes headers and body apart; with Nagle each relayed piece could wait for an ACK.
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// A fixed-size byte queue: bytes read from one side that wait to be written to the other.
class Buffer {
 public:
  Buffer() : data_(std::make_unique<char[]>(Ipv6Relay::kBufferBytes)) {}
  bool empty() const { return begin_ == end_; }
  bool full() const { return end_ - begin_ == Ipv6Relay::kBufferBytes; }
  // recv() into the free space. REQUIRES: !full().
  ssize_t ReadFrom(int fd) {
    if (end_ == Ipv6Relay::kBufferBytes) {
      std::memmove(data_.get(), data_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    const ssize_t n = ::recv(fd, data_.get() + end_, Ipv6Relay::kBufferBytes - end_, 0);
    if (n > 0) end_ += static_cast<size_t>(n);
    return n;
  }
  // send() of the queued bytes. REQUIRES: !empty().
  ssize_t WriteTo(int fd) {
    const ssize_t n = ::send(fd, data_.get() + begin_, end_ - begin_, MSG_NOSIGNAL);
    if (n > 0) begin_ += static_cast<size_t>(n);
    if (begin_ == end_) begin_ = end_ = 0;
    return n;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

// One direction of a relayed connection: from one socket, through a buffer, to the other.
struct Direction {
  Buffer buffer;
  bool eof = false;   // `from` has ended its stream
  bool shut = false;  // ...and everything was written to `to`, which was shut down for writing
};

}  // namespace

struct Ipv6Relay::Connection {
  int client = -1;
  int upstream = -1;
  bool connecting = true;  // the upstream connect() is in progress
  Direction up;            // client → upstream
  Direction down;          // upstream → client
  std::atomic<int>* open = nullptr;

  Connection(int c, int u, std::atomic<int>* n) : client(c), upstream(u), open(n) {
    open->fetch_add(1);
  }
  ~Connection() {
    CloseFd(&client);
    CloseFd(&upstream);
    open->fetch_sub(1);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  short Events(const Direction& in, const Direction& out, bool is_upstream) const {
    // Until the upstream is connected, only its connect is waited for.
    if (connecting) return is_upstream ? POLLOUT : 0;
    short events = 0;
    if (!in.eof && !in.buffer.full()) events |= POLLIN;
    if (!out.buffer.empty()) events |= POLLOUT;
    return events;
  }
  short ClientEvents() const { return Events(up, down, false); }
  short UpstreamEvents() const { return Events(down, up, true); }

  // Reads what `from` has for `d` and writes what `d` holds to `to`; passes an end of stream on.
  // False on an error. *progress: whether any byte moved or a stream ended.
  static bool Pump(Direction& d, int from, bool readable, int to, bool* progress) {
    if (readable && !d.eof && !d.buffer.full()) {
      const ssize_t n = d.buffer.ReadFrom(from);
      if (n == 0) d.eof = true;
      if (n < 0 && !Retryable(errno)) return false;
      *progress = *progress || n >= 0;
    }
    if (!d.buffer.empty()) {
      const ssize_t n = d.buffer.WriteTo(to);
      if (n < 0 && !Retryable(errno)) return false;
      *progress = *progress || n > 0;
    }
    if (d.eof && d.buffer.empty() && !d.shut) {
      ::shutdown(to, SHUT_WR);
      d.shut = true;
      *progress = true;
    }
    return true;
  }

  // Handles poll()'s answer for both sockets. False when the connection is to be closed.
  bool Step(short client_events, short upstream_events) {
    if ((client_events | upstream_events) & (POLLERR | POLLNVAL)) return false;
    bool progress = false;
    if (connecting) {
      if (upstream_events == 0) return true;
      int err = 0;
      socklen_t len = sizeof(err);
      if (::getsockopt(upstream, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) return false;
      connecting = false;
      progress = true;
    }
    const short readable = POLLIN | POLLHUP;
    if (!Pump(up, client, (client_events & readable) != 0, upstream, &progress)) return false;
    if (!Pump(down, upstream, (upstream_events & readable) != 0, client, &progress)) return false;
    if (up.shut && down.shut) return false;
    // A hang-up that moved nothing would be reported again at once.
    return progress || !((client_events | upstream_events) & POLLHUP);
  }
};

Ipv6Relay::Ipv6Relay(int max_connections)
    : max_connections_(std::max(1, max_connections)),
      wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

Ipv6Relay::~Ipv6Relay() {
  Stop();
  CloseFd(&wake_fd_);
}

Result<int> Ipv6Relay::Listen(const std::string& address, int port, int target_port) {
  using R = Result<int>;
  const std::string name = "[" + address + "]:" + std::to_string(port);
  sockaddr_in6 sa{};
  sa.sin6_family = AF_INET6;
  sa.sin6_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET6, address.c_str(), &sa.sin6_addr) != 1) {
    return R::Fail(name + ": not an IPv6 address");
  }
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return R::Fail(name + ": " + std::strerror(errno));
  const int one = 1;
  // IPv6 only: the IPv4 side of the same port is civetweb's.
  ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  socklen_t len = sizeof(sa);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
      ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    const std::string error = name + ": " + std::strerror(errno);
    CloseFd(&fd);
    return R::Fail(error);
  }
  listeners_.push_back({fd, target_port});
  return R::Ok(ntohs(sa.sin6_port));
}

void Ipv6Relay::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Ipv6Relay::Stop() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof(one));
    thread_.join();
  }
  connections_.clear();
  for (Listener& l : listeners_) CloseFd(&l.fd);
  listeners_.clear();
}

bool Ipv6Relay::Accept(const Listener& listener) {
  while (true) {
    int client = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (Retryable(errno)) return true;
      LogWarn("ipv6 relay: cannot accept", {{"err", std::strerror(errno)}});
      return false;
    }
    if (static_cast<int>(connections_.size()) >= max_connections_) {
      refused_.fetch_add(1);
      CloseFd(&client);
      continue;
    }
    int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (upstream < 0) {
      LogWarn("ipv6 relay: cannot open a socket", {{"err", std::strerror(errno)}});
      CloseFd(&client);
      return false;
    }
    NoDelay(client);
    NoDelay(upstream);
    auto c = std::make_unique<Connection>(client, upstream, &open_);
    sockaddr_in target{};
    target.sin_family = AF_INET;
    target.sin_port = htons(static_cast<uint16_t>(listener.target_port));
    target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(upstream, reinterpret_cast<sockaddr*>(&target), sizeof(target)) == 0) {
      c->connecting = false;
    } else if (errno != EINPROGRESS) {
      LogDebug("ipv6 relay: connect failed", {{"err", std::strerror(errno)}});
      continue;  // closes the client: there is nothing to relay to
    }
    connections_.push_back(std::move(c));
  }
}

void Ipv6Relay::Run() {
  std::vector<pollfd> fds;
  bool paused = false;
  while (true) {
    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    for (const Listener& l : listeners_) fds.push_back({paused ? -1 : l.fd, POLLIN, 0});
    // A socket with nothing to wait for is left out (-1): poll() would report its hang-up anyway.
    const auto add = [&fds](int fd, short events) {
      fds.push_back({events != 0 ? fd : -1, events, 0});
    };
    for (const auto& c : connections_) {
      add(c->client, c->ClientEvents());
      add(c->upstream, c->UpstreamEvents());
    }
    const int n =
        ::poll(fds.data(), static_cast<nfds_t>(fds.size()), paused ? kAcceptPauseMs : kSafetyNetMs);
    if (n < 0 && errno != EINTR) {
      LogError("ipv6 relay stopped: poll failed", {{"err", std::strerror(errno)}});
      return;
    }
    if (fds[0].revents != 0) return;  // Stop()
    paused = false;
    const size_t first = 1 + listeners_.size();
    for (size_t i = 0; i < connections_.size(); ++i) {
      if (!connections_[i]->Step(fds[first + 2 * i].revents, fds[first + 2 * i + 1].revents)) {
        connections_[i].reset();
      }
    }
    connections_.erase(std::remove(connections_.begin(), connections_.end(), nullptr),
                       connections_.end());
    for (size_t i = 0; i < listeners_.size(); ++i) {
      // Out of file descriptors or memory: accepting again at once would fail again.
      if (fds[1 + i].revents != 0 && !Accept(listeners_[i])) paused = true;
    }
  }
}

}  // namespace podwait
