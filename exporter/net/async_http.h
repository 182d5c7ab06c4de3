#pragma once

// Many HTTP requests at once on one thread: the PD prober (small requests to one PD per TiDB
// cluster) and the Kubernetes client's event loop (every list and watch of an API server, watches
// streamed). One thread drives every transfer, and connections stay open between requests, to the
// same host or another, up to a cache size the caller sets: a fleet of 1,000 PDs probed every 15 s
// keeps 1,000 idle connections instead of opening (and, with TLS, handshaking) one per request.
// Over HTTP/2 (https with ALPN h2) the transfers to one server share its connections as streams.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "exporter/net/http_client.h"

namespace podwait {

// Thread-compatible: Get() and Run() are called from one thread (the one that drives the
// transfers); only Wake() may be called from any thread.
class AsyncHttp {
 public:
  using Done = std::function<void(HttpResponse)>;
  // Receives a streamed body piece by piece; returns false to end the transfer (its `done` then
  // runs as for a complete one).
  using Data = std::function<bool(std::string_view)>;
  using TransferId = uint64_t;
  virtual ~AsyncHttp() = default;
  // Starts a GET whose body is buffered (bounded by max_body, as HttpClient::Get). `done` runs
  // exactly once, from a later Run(), unless the AsyncHttp is destroyed first (then never).
  virtual void Get(HttpRequest request, size_t max_body, Done done) = 0;
  // Starts a GET whose body is handed to `on_data` as it arrives when the status is 2xx (other
  // statuses have their body buffered in the response, bounded by 1 MiB), from Run(); `done` runs
  // once at the end, unless the transfer is cancelled. A client that cannot stream answers with
  // an error. Returns the transfer's id for Cancel().
  virtual TransferId Stream(HttpRequest request, Data on_data, Done done) {
    (void)request;
    (void)on_data;
    HttpResponse refused;
    refused.error = "this HTTP client does not stream";
    done(std::move(refused));
    return 0;
  }
  // Starts a GET like Get() and returns its id for Cancel().
  virtual TransferId Fetch(HttpRequest request, size_t max_body, Done done) {
    Get(std::move(request), max_body, std::move(done));
    return 0;
  }
  // Ends a transfer of Stream() or Fetch() now: neither its `on_data` nor its `done` runs after
  // this call. An unknown or finished id is ignored. From the driving thread, outside callbacks
  // of that transfer.
  virtual void Cancel(TransferId id) { (void)id; }
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
// Over HTTP/2 (https with ALPN h2) the transfers to one server are streams of one connection
// (CURLPIPE_MULTIPLEX, up to 1,000 streams each; the server's SETTINGS limit applies when lower),
// and https transfers started together wait for the connection being opened to say whether it
// multiplexes (CURLOPT_PIPEWAIT) instead of opening one each. Over HTTP/1.1 (plain http) every
// transfer in flight has a connection of its own.
std::unique_ptr<AsyncHttp> MakeCurlMultiHttp();

}  // namespace podwait
