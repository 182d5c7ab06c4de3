#pragma once

// IPv6 for a civetweb built without it (Debian's libcivetweb1 1.15 has no USE_IPV6): the relay
// listens on IPv6 addresses itself and copies each accepted connection byte for byte to one of
// civetweb's IPv4 listeners on 127.0.0.1. It never looks at the bytes, so TLS, basic auth, rate
// limits and headers are civetweb's as on IPv4. civetweb sees every relayed client as 127.0.0.1.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "exporter/common/result.h"

namespace podwait {

// One thread polls every listener and connection (non-blocking sockets, no busy loop). Each
// direction of a connection has a bounded buffer; a side is not read while its peer's buffer is
// full. An end of stream on one side is passed on as shutdown(SHUT_WR) to the other; a connection
// is closed when both directions have ended, or on an error of either side.
// Thread-safe: Listen() before Start(); Stop() and the counters from any thread.
class Ipv6Relay {
 public:
  // Bytes buffered per direction of a connection.
  static constexpr size_t kBufferBytes = 64 * 1024;

  // At most `max_connections` relayed connections at once; one accepted beyond is closed at once
  // and counted in refused().
  explicit Ipv6Relay(int max_connections);
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

  // Relayed connections open now.
  int open() const { return open_.load(); }
  // Connections closed at accept because max_connections were open.
  int64_t refused() const { return refused_.load(); }

 private:
  struct Listener {
    int fd = -1;
    int target_port = 0;
  };
  struct Connection;
  void Run();
  // Accepts what `listener` has; false when accepting is to pause (out of descriptors).
  bool Accept(const Listener& listener);

  const int max_connections_;
  std::vector<Listener> listeners_;
  std::vector<std::unique_ptr<Connection>> connections_;  // the relay thread's
  int wake_fd_ = -1;  // an eventfd: Stop() wakes the thread's poll()
  std::thread thread_;
  std::atomic<int> open_{0};
  std::atomic<int64_t> refused_{0};
};

}  // namespace podwait
