#pragma once

// IPv6 for a civetweb built without it (Debian's libcivetweb1 1.15 has no USE_IPV6): the relay
// listens on IPv6 addresses itself and copies each accepted connection byte for byte to one of
// civetweb's IPv4 listeners on 127.0.0.1. It never looks at the bytes, so TLS, basic auth, rate
// limits and headers are civetweb's as on IPv4. civetweb sees every relayed client as 127.0.0.1;
// PeerOf() tells which IPv6 client a relayed connection belongs to.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "exporter/common/result.h"

namespace podwait {

struct Ipv6RelayLimits {
  // Relayed connections at once. One accepted beyond takes the place of the stalest, so clients
  // that hold connections and send or read nothing never keep a newer client out.
  int max_connections = 128;
  // Relayed connections of one client address at once. One beyond takes the place of that
  // address's stalest, so one address cannot push every other client's connections out.
  int max_per_peer = 32;
  // A connection on which no byte has moved either way for this long is closed.
  int64_t idle_timeout_ms = 30'000;
  // A connection with bytes for a side that has not taken one of them for this long is closed
  // (a client that sends requests and never reads their answers).
  int64_t progress_timeout_ms = 5'000;
  // Once the server has ended its side and the client has all it sent, the client's own end is
  // awaited this long (what it still sends is read and dropped: closing a socket with unread
  // bytes would reset the connection and could lose the answer on the client's side).
  int64_t linger_ms = 2'000;
};

// A client's IPv6 address.
using Ipv6Peer = std::array<uint8_t, 16>;

// What the relay weighs when a connection arrives and there is no room: each open connection's
// client, when a byte last moved on it, and whether only its client's end is still awaited.
struct RelaySlot {
  Ipv6Peer peer{};
  int64_t last_progress_ms = 0;
  bool lingering = false;
};
// The connection a new one from `peer` takes the place of: over the peer's cap, the peer's
// stalest; else over the total, the stalest of all (a lingering one before any other, then the
// one whose bytes moved longest ago); -1 when there is room. Pure.
int EvictionFor(std::span<const RelaySlot> open, const Ipv6Peer& peer,
                const Ipv6RelayLimits& limits);

// One thread polls every listener and connection (non-blocking sockets, no busy loop). Each
// direction of a connection has a bounded buffer; a side is not read while its peer's buffer is
// full. An end of stream from the client is passed on as shutdown(SHUT_WR) to the server. A
// connection is closed once the server has ended its side and the client has everything (after
// the linger), on an error of either side, on the idle or progress deadline, or when a newer
// connection takes its place (Ipv6RelayLimits).
// Thread-safe: Listen() before Start(); Stop(), PeerOf() and the counters from any thread.
class Ipv6Relay {
 public:
  // Bytes buffered per direction of a connection.
  static constexpr size_t kBufferBytes = 64 * 1024;

  explicit Ipv6Relay(Ipv6RelayLimits limits = {});
  ~Ipv6Relay();
  Ipv6Relay(const Ipv6Relay&) = delete;
  Ipv6Relay& operator=(const Ipv6Relay&) = delete;

  // Listens on [`address`]:`port` (an IPv6 address without brackets, "::" for every one; IPv6
  // only, so an IPv4 listener may hold the same port) and relays to 127.0.0.1:`target_port`.
  // Returns the port bound (`port` 0: one the kernel picks), or an error naming the address.
  // REQUIRES: called before Start().
  Result<int> Listen(const std::string& address, int port, int target_port);
  // Starts relaying. REQUIRES: at most once.
  void Start();
  // Stops accepting and closes every relayed connection at once; waits for the thread.
  void Stop();

  // The IPv6 client ("2001:db8::7") of the relayed connection that reaches 127.0.0.1:
  // `target_port` from 127.0.0.1:`source_port` (what the server sees as its client's port), or
  // "" when no open relayed connection does. The relay registers a connection before it relays
  // its first byte and forgets it when it closes the connection.
  std::string PeerOf(int target_port, int source_port) const;

  // Relayed connections open now.
  int open() const { return open_.load(); }
  // Connections closed to make room for a newer one.
  int64_t evicted() const { return evicted_.load(); }
  // Connections closed on the idle, progress or linger deadline.
  int64_t timed_out() const { return timed_out_.load(); }

 private:
  struct Listener {
    int fd = -1;
    int target_port = 0;
  };
  struct Connection;
  // The clients of open relayed connections, by (target port, source port). Thread-safe.
  class PeerTable {
   public:
    static uint32_t Key(int target_port, int source_port) {
      return static_cast<uint32_t>(target_port) << 16 | static_cast<uint32_t>(source_port);
    }
    void Add(uint32_t key, std::string peer);
    void Remove(uint32_t key);
    std::string Find(uint32_t key) const;

   private:
    mutable std::mutex mu_;
    std::unordered_map<uint32_t, std::string> peers_;
  };
  void Run();
  // Accepts what `listener` has; false when accepting is to pause (out of descriptors).
  bool Accept(const Listener& listener);
  // Makes room for a connection from `peer` when the limits ask for it.
  void MakeRoom(const Ipv6Peer& peer);
  // Closes every connection past one of its deadlines; returns the earliest deadline left.
  int64_t CloseExpired(int64_t now_ms);

  const Ipv6RelayLimits limits_;
  std::vector<Listener> listeners_;
  PeerTable peers_;  // before connections_, which remove themselves from it
  std::vector<std::unique_ptr<Connection>> connections_;  // the relay thread's
  int wake_fd_ = -1;  // an eventfd: Stop() wakes the thread's poll()
  std::thread thread_;
  std::atomic<int> open_{0};
  std::atomic<int64_t> evicted_{0};
  std::atomic<int64_t> timed_out_{0};
};

}  // namespace podwait
