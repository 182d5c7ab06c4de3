#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/result.h"

namespace podwait {

// Files or in-memory PEM (a kubeconfig's *-data fields; the container's root filesystem is
// read-only, so they are never written to temporary files). PEM wins over the file of the same
// item.
struct TlsOptions {
  std::string ca_file;    // empty (and no ca_pem): the system trust store
  std::string cert_file;  // client certificate (mTLS), optional
  std::string key_file;
  std::string ca_pem;  // CA bundle; when set, only these CAs are trusted
  std::string cert_pem;
  std::string key_pem;
  bool insecure_skip_verify = false;
};

struct HttpRequest {
  std::string url;
  // Write() only: the method (POST, PATCH, PUT, DELETE) and the body sent with it.
  std::string method;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t timeout_ms = 0;  // whole request; 0 = none (watch streams)
  int64_t connect_timeout_ms = 5000;
  // Abort when fewer than low_speed_bytes arrive for low_speed_time_s seconds (dead connections
  // on long streams). 0 disables.
  int64_t low_speed_time_s = 0;
  int64_t low_speed_bytes = 1;
  TlsOptions tls;
  // false: the connection is closed after this request instead of kept for the next one (a
  // server asked rarely should not hold a descriptor and, with TLS, ~57 KB of libcurl state).
  bool keep_connection = true;
  // When set and it turns true, the transfer aborts within ~100 ms.
  const std::atomic<bool>* cancel = nullptr;
};

struct HttpResponse {
  int status = 0;     // HTTP status; 0 when no response arrived
  std::string error;  // transport error ("connection refused", "timeout", ...), empty if none
  bool timed_out = false;
  bool cancelled = false;
  bool too_large = false;  // Get(): the body passed max_body and the transfer was aborted
  std::string body;        // for Get(); Stream() leaves it empty
  std::string content_type;
  int64_t retry_after_s = -1;  // Retry-After in seconds when present
  int64_t duration_ms = 0;
  bool ok() const { return error.empty() && status >= 200 && status < 300; }
};

// A blocking HTTP client. One instance per thread: implementations reuse connections and are not
// thread-safe. Errors are values: transport failures come back in HttpResponse::error.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // GET with the whole body buffered (bounded by max_body bytes; larger bodies are an error).
  virtual HttpResponse Get(const HttpRequest& request, size_t max_body = 64 << 20) = 0;
  // GET that hands the body to on_data piece by piece as it arrives (only for 2xx answers; other
  // statuses have their body buffered in HttpResponse::body). on_data returns false to stop.
  virtual HttpResponse Stream(const HttpRequest& request,
                              const std::function<bool(std::string_view)>& on_data) = 0;
  // request.method with request.body (a write: POST, PATCH, PUT, DELETE), the answer buffered
  // like Get's. A client that cannot write answers with an error and sends nothing.
  virtual HttpResponse Write(const HttpRequest& request, size_t max_body = 1 << 20) {
    (void)request;
    (void)max_body;
    HttpResponse response;
    response.error = "this HTTP client does not write";
    return response;
  }
};

// Whether `url` uses http or https (case-insensitive), the only schemes podwait sends requests
// with; otherwise an error naming the refused scheme.
Result<bool> CheckUrlScheme(std::string_view url);

// A Retry-After header's value in seconds (delay-seconds; an HTTP date is not used by the API
// server or PD), capped at one day; nullopt when it is not a number.
std::optional<int64_t> ParseRetryAfter(std::string_view value);

// libcurl implementation. Thread-compatible (one per thread); curl_global_init is done once.
std::unique_ptr<HttpClient> MakeCurlHttpClient();

}  // namespace podwait
