#pragma once

// Many HTTP requests at once on one thread, for callers that talk to many servers with small
// requests (the PD prober: one PD per TiDB cluster). One thread drives every transfer, and
// connections stay open between requests, to the same host or another, up to a cache size the
// caller sets: a fleet of 1,000 PDs probed every 15 s keeps 1,000 idle connections instead of
// opening (and, with TLS, handshaking) one per request.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "exporter/net/http_client.h"

namespace podwait {

// Thread-compatible: Get() and Run() are called from one thread (the one that drives the
// transfers); only Wake() may be called from any thread.
class AsyncHttp {
 public:
  using Done = std::function<void(HttpResponse)>;
  virtual ~AsyncHttp() = default;
  // Starts a GET whose body is buffered (bounded by max_body, as HttpClient::Get). `done` runs
  // exactly once, from a later Run(), unless the AsyncHttp is destroyed first (then never).
  virtual void Get(HttpRequest request, size_t max_body, Done done) = 0;
  // Moves every transfer forward and runs the `done` of those that finished. Waits up to wait_ms
  // for something to happen when nothing finished yet; returns sooner on Wake().
  virtual void Run(int64_t wait_ms) = 0;
  // Makes a Run() in progress (or the next one) return promptly. Thread-safe.
  virtual void Wake() = 0;
  // How many connections are kept open for reuse, in use or idle (the oldest idle one closes
  // beyond that). Size it to the number of hosts talked to in turn, or every request opens one.
  virtual void SetMaxConnections(size_t connections) = 0;
  // Transfers started and not yet finished.
  virtual size_t in_flight() const = 0;
};

using AsyncHttpFactory = std::function<std::unique_ptr<AsyncHttp>()>;

// libcurl's multi interface: one connection cache for all transfers, TLS sessions shared between
// them (a connection that had to be reopened resumes its session instead of a full handshake).
std::unique_ptr<AsyncHttp> MakeCurlMultiHttp();

}  // namespace podwait
