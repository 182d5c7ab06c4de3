#pragma once

// Misbehaving HTTP clients on loopback, for tests and benchmarks of the HTTP server: connections
// that send nothing (idle) and connections that send a request line one byte a second (slow).
// A connection the server closes is opened again at once, as a persistent attacker would.
// Bounded: one thread, stopped by the destructor.

#include <atomic>
#include <thread>
#include <vector>

namespace podwait::testing {

class MisbehavingClients {
 public:
  MisbehavingClients(int port, int idle, int slow);
  ~MisbehavingClients();
  MisbehavingClients(const MisbehavingClients&) = delete;
  MisbehavingClients& operator=(const MisbehavingClients&) = delete;

  // Connections open right now (idle + slow).
  int open() const { return open_.load(); }
  // Times the server closed one of them (and it was opened again).
  int reconnects() const { return reconnects_.load(); }

 private:
  struct Conn {
    int fd = -1;
    bool slow = false;
    size_t sent = 0;
  };
  void Run();
  void Connect(Conn* c);

  const int port_;
  std::vector<Conn> conns_;
  std::atomic<bool> stop_{false};
  std::atomic<int> open_{0};
  std::atomic<int> reconnects_{0};
  std::thread thread_;
};

}  // namespace podwait::testing
