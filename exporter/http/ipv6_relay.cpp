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
#include <optional>

#include "exporter/common/clock.h"
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
  // Since when the buffer's bytes wait for `to`: when it filled from empty, or the last write.
  int64_t waiting_since_ms = 0;
};

int64_t NowMs() { return SystemClock::Instance().MonotonicMs(); }

}  // namespace

int EvictionFor(std::span<const RelaySlot> open, const Ipv6Peer& peer,
                const Ipv6RelayLimits& limits) {
  int of_peer = 0;
  for (const RelaySlot& s : open) of_peer += s.peer == peer ? 1 : 0;
  const bool peer_full = of_peer >= std::max(1, limits.max_per_peer);
  if (!peer_full && static_cast<int>(open.size()) < std::max(1, limits.max_connections)) return -1;
  int victim = -1;
  const auto staler = [](const RelaySlot& a, const RelaySlot& b) {
    if (a.lingering != b.lingering) return a.lingering;
    return a.last_progress_ms < b.last_progress_ms;
  };
  for (size_t i = 0; i < open.size(); ++i) {
    if (peer_full && open[i].peer != peer) continue;
    if (victim < 0 || staler(open[i], open[static_cast<size_t>(victim)])) {
      victim = static_cast<int>(i);
    }
  }
  return victim;
}

void Ipv6Relay::PeerTable::Add(uint32_t key, std::string peer) {
  std::lock_guard<std::mutex> lock(mu_);
  peers_[key] = std::move(peer);
}

void Ipv6Relay::PeerTable::Remove(uint32_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  peers_.erase(key);
}

std::string Ipv6Relay::PeerTable::Find(uint32_t key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = peers_.find(key);
  return it == peers_.end() ? std::string() : it->second;
}

struct Ipv6Relay::Connection {
  int client = -1;
  int upstream = -1;
  bool connecting = true;  // the upstream connect() is in progress
  Direction up;            // client → upstream
  Direction down;          // upstream → client
  RelaySlot slot;
  int64_t linger_since_ms = 0;
  std::atomic<int>* open = nullptr;
  PeerTable* peers = nullptr;
  std::optional<uint32_t> peer_key;  // registered in `peers`

  Connection(int c, int u, const Ipv6Peer& peer, int64_t now, std::atomic<int>* n, PeerTable* t)
      : client(c), upstream(u), open(n), peers(t) {
    slot.peer = peer;
    slot.last_progress_ms = now;
    open->fetch_add(1);
  }
  ~Connection() {
    if (peer_key) peers->Remove(*peer_key);
    CloseFd(&client);
    CloseFd(&upstream);
    open->fetch_sub(1);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  short Events(const Direction& in, const Direction& out, bool is_upstream) const {
    // Lingering: only the client's end (or what it still sends) is read.
    if (slot.lingering) return is_upstream ? 0 : POLLIN;
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
  static bool Pump(Direction& d, int from, bool readable, int to, int64_t now, bool* progress) {
    if (readable && !d.eof && !d.buffer.full()) {
      const bool was_empty = d.buffer.empty();
      const ssize_t n = d.buffer.ReadFrom(from);
      if (n == 0) d.eof = true;
      if (n < 0 && !Retryable(errno)) return false;
      if (n > 0 && was_empty) d.waiting_since_ms = now;
      *progress = *progress || n >= 0;
    }
    if (!d.buffer.empty()) {
      const ssize_t n = d.buffer.WriteTo(to);
      if (n < 0 && !Retryable(errno)) return false;
      if (n > 0) d.waiting_since_ms = now;
      *progress = *progress || n > 0;
    }
    if (d.eof && d.buffer.empty() && !d.shut) {
      ::shutdown(to, SHUT_WR);
      d.shut = true;
      *progress = true;
    }
    return true;
  }

  // Reads and drops what a lingering client still sends. False once it has ended (or failed).
  bool Drain(short client_events) {
    if ((client_events & (POLLIN | POLLHUP)) == 0) return true;
    char scratch[4096];
    const ssize_t n = ::recv(client, scratch, sizeof(scratch), 0);
    return n > 0 || (n < 0 && Retryable(errno));
  }

  // Handles poll()'s answer for both sockets. False when the connection is to be closed.
  bool Step(short client_events, short upstream_events, int64_t now) {
    if ((client_events | upstream_events) & (POLLERR | POLLNVAL)) return false;
    if (slot.lingering) return Drain(client_events);
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
    if (!Pump(up, client, (client_events & readable) != 0, upstream, now, &progress)) return false;
    if (!Pump(down, upstream, (upstream_events & readable) != 0, client, now, &progress)) {
      return false;
    }
    if (progress) slot.last_progress_ms = now;
    if (down.shut) {
      // The server is done and the client has all of it: nothing more can be answered.
      if (up.eof) return false;
      slot.lingering = true;
      linger_since_ms = now;
      CloseFd(&upstream);
      return true;
    }
    // A hang-up that moved nothing would be reported again at once.
    return progress || !((client_events | upstream_events) & POLLHUP);
  }

  // When the connection is to be closed unless something moves first.
  int64_t Deadline(const Ipv6RelayLimits& limits) const {
    if (slot.lingering) return linger_since_ms + limits.linger_ms;
    int64_t deadline = slot.last_progress_ms + limits.idle_timeout_ms;
    for (const Direction* d : {&up, &down}) {
      if (!d->buffer.empty()) {
        deadline = std::min(deadline, d->waiting_since_ms + limits.progress_timeout_ms);
      }
    }
    return deadline;
  }
};

Ipv6Relay::Ipv6Relay(Ipv6RelayLimits limits)
    : limits_(limits), wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

Ipv6Relay::~Ipv6Relay() {
  Stop();
  CloseFd(&wake_fd_);
}

std::string Ipv6Relay::PeerOf(int target_port, int source_port) const {
  return peers_.Find(PeerTable::Key(target_port, source_port));
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

void Ipv6Relay::MakeRoom(const Ipv6Peer& peer) {
  std::vector<RelaySlot> slots;
  slots.reserve(connections_.size());
  for (const auto& c : connections_) slots.push_back(c->slot);
  const int victim = EvictionFor(slots, peer, limits_);
  if (victim < 0) return;
  connections_.erase(connections_.begin() + victim);
  evicted_.fetch_add(1);
}

bool Ipv6Relay::Accept(const Listener& listener) {
  while (true) {
    sockaddr_in6 from{};
    socklen_t from_len = sizeof(from);
    int client = ::accept4(listener.fd, reinterpret_cast<sockaddr*>(&from), &from_len,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (Retryable(errno)) return true;
      LogWarn("ipv6 relay: cannot accept", {{"err", std::strerror(errno)}});
      return false;
    }
    Ipv6Peer peer{};
    std::memcpy(peer.data(), &from.sin6_addr, peer.size());
    int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (upstream < 0) {
      LogWarn("ipv6 relay: cannot open a socket", {{"err", std::strerror(errno)}});
      CloseFd(&client);
      return false;
    }
    MakeRoom(peer);
    NoDelay(client);
    NoDelay(upstream);
    auto c = std::make_unique<Connection>(client, upstream, peer, NowMs(), &open_, &peers_);
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
    // The source port is bound by connect(): registered before any byte reaches the server.
    sockaddr_in source{};
    socklen_t source_len = sizeof(source);
    if (::getsockname(upstream, reinterpret_cast<sockaddr*>(&source), &source_len) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      ::inet_ntop(AF_INET6, &from.sin6_addr, text, sizeof(text));
      c->peer_key = PeerTable::Key(listener.target_port, ntohs(source.sin_port));
      peers_.Add(*c->peer_key, text);
    }
    connections_.push_back(std::move(c));
  }
}

int64_t Ipv6Relay::CloseExpired(int64_t now_ms) {
  int64_t earliest = now_ms + kSafetyNetMs;
  for (auto& c : connections_) {
    const int64_t deadline = c->Deadline(limits_);
    if (deadline <= now_ms) {
      c.reset();
      timed_out_.fetch_add(1);
    } else {
      earliest = std::min(earliest, deadline);
    }
  }
  std::erase(connections_, nullptr);
  return earliest;
}

void Ipv6Relay::Run() {
  std::vector<pollfd> fds;
  bool paused = false;
  while (true) {
    const int64_t next_deadline = CloseExpired(NowMs());
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
    const int64_t wait = std::clamp<int64_t>(next_deadline - NowMs(), 0, kSafetyNetMs);
    const int n = ::poll(fds.data(), static_cast<nfds_t>(fds.size()),
                         paused ? kAcceptPauseMs : static_cast<int>(wait));
    if (n < 0 && errno != EINTR) {
      LogError("ipv6 relay stopped: poll failed", {{"err", std::strerror(errno)}});
      return;
    }
    if (fds[0].revents != 0) return;  // Stop()
    paused = false;
    const int64_t now = NowMs();
    const size_t first = 1 + listeners_.size();
    for (size_t i = 0; i < connections_.size(); ++i) {
      if (!connections_[i]->Step(fds[first + 2 * i].revents, fds[first + 2 * i + 1].revents, now)) {
        connections_[i].reset();
      }
    }
    std::erase(connections_, nullptr);
    for (size_t i = 0; i < listeners_.size(); ++i) {
      // Out of file descriptors or memory: accepting again at once would fail again.
      if (fds[1 + i].revents != 0 && !Accept(listeners_[i])) paused = true;
    }
  }
}

}  // namespace podwait
