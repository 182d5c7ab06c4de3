#include "tests/support/tcp_clients.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string_view>

#include "tests/support/process.h"

namespace podwait::testing {
namespace {

// What a slow client drips, one byte a second: a request that never completes in time.
constexpr std::string_view kSlowRequest =
    "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: one-byte-a-second\r\nAccept: */*\r\n"
    "X-Padding: "
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";

}  // namespace

MisbehavingClients::MisbehavingClients(int port, int idle, int slow) : port_(port) {
  conns_.resize(static_cast<size_t>(idle + slow));
  for (int i = 0; i < idle + slow; ++i) {
    conns_[static_cast<size_t>(i)].slow = i >= idle;
    Connect(&conns_[static_cast<size_t>(i)]);
  }
  thread_ = std::thread([this] { Run(); });
}

MisbehavingClients::~MisbehavingClients() {
  stop_ = true;
  thread_.join();
  for (Conn& c : conns_) {
    if (c.fd >= 0) ::close(c.fd);
  }
}

void MisbehavingClients::Connect(Conn* c) {
  if (c->fd >= 0) {
    ::close(c->fd);
    --open_;
  }
  c->fd = ConnectLoopback(port_);
  c->sent = 0;
  if (c->fd >= 0) ++open_;
}

void MisbehavingClients::Run() {
  auto next_byte = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const bool drip = std::chrono::steady_clock::now() >= next_byte;
    if (drip) next_byte += std::chrono::seconds(1);
    for (Conn& c : conns_) {
      if (c.fd < 0) {
        Connect(&c);
        continue;
      }
      // Closed by the server? (EOF or an error; EAGAIN means still open and silent.)
      char buf[512];
      const ssize_t n = ::recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
      const bool closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
      if (!closed && drip && c.slow && c.sent < kSlowRequest.size()) {
        if (::send(c.fd, kSlowRequest.data() + c.sent, 1, MSG_NOSIGNAL) == 1) ++c.sent;
      }
      if (closed || n > 0) {  // an answer (a 408 or 400) also ends that connection's usefulness
        ++reconnects_;
        Connect(&c);
      }
    }
  }
}

}  // namespace podwait::testing
