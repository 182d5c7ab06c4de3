#include "exporter/net/curl_transfer.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace podwait::curl_transfer {
namespace {

// What a failed transfer tells the operator: the kind of failure (refused, DNS, timeout, TLS) and
// libcurl's detail, which names the host and port.
std::string DescribeError(CURLcode rc, long os_errno, const char* detail) {
  std::string kind;
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      kind = "DNS: cannot resolve the host";
      break;
    case CURLE_COULDNT_CONNECT:
      kind = os_errno != 0
                 ? std::string("cannot connect: ") + std::strerror(static_cast<int>(os_errno))
                 : "cannot connect";
      break;
    case CURLE_OPERATION_TIMEDOUT:
      kind = "timeout";
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
      kind = "TLS";
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
      kind = "scheme not allowed (only http and https)";
      break;
    default:
      kind = curl_easy_strerror(rc);
      break;
  }
  if (detail != nullptr && detail[0] != '\0') kind += std::string(": ") + detail;
  return kind;
}

size_t HeaderCallback(char* data, size_t size, size_t nitems, void* userdata) {
  auto* st = static_cast<State*>(userdata);
  const size_t n = size * nitems;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (also after redirects or 100-continue): reset per-response state.
    st->retry_after_s = -1;
    st->content_type.clear();
    st->status_known = false;
    return n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name(line.substr(0, colon));
  for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  if (name == "retry-after") {
    if (std::optional<int64_t> secs = ParseRetryAfter(value)) st->retry_after_s = *secs;
  } else if (name == "content-type") {
    st->content_type = std::string(value);
  }
  return n;
}

size_t WriteCallback(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* st = static_cast<State*>(userdata);
  const size_t n = size * nmemb;
  if (!st->status_known) {
    long code = 0;
    curl_easy_getinfo(st->curl, CURLINFO_RESPONSE_CODE, &code);
    st->status = static_cast<int>(code);
    st->status_known = true;
  }
  const bool success = st->status >= 200 && st->status < 300;
  if (st->on_data != nullptr && success) {
    if (!(*st->on_data)(std::string_view(data, n))) {
      st->stopped_by_callback = true;
      return 0;  // aborts the transfer
    }
    return n;
  }
  if (st->body->size() + n > st->max_body) {
    st->body_too_large = true;
    return 0;
  }
  st->body->append(data, n);
  return n;
}

int ProgressCallback(void* userdata, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<State*>(userdata);
  if (st->request->cancel != nullptr && st->request->cancel->load()) {
    st->cancelled = true;
    return 1;
  }
  return 0;
}

// One TLS item from memory (PEM; libcurl copies it, so `pem` need not outlive the call) or from
// a file.
void SetPemOrFile(CURL* curl, CURLoption blob_option, CURLoption file_option,
                  const std::string& pem, const std::string& file) {
  if (!pem.empty()) {
    curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, blob_option, &blob);
  } else if (!file.empty()) {
    curl_easy_setopt(curl, file_option, file.c_str());
  }
}

void SetTlsOptions(CURL* curl, const TlsOptions& tls) {
  SetPemOrFile(curl, CURLOPT_CAINFO_BLOB, CURLOPT_CAINFO, tls.ca_pem, tls.ca_file);
  if (!tls.ca_pem.empty()) {
    // Trust only these CAs, as kubectl does: without this, libcurl adds its default bundle.
    curl_easy_setopt(curl, CURLOPT_CAINFO, static_cast<char*>(nullptr));
    curl_easy_setopt(curl, CURLOPT_CAPATH, static_cast<char*>(nullptr));
  }
  SetPemOrFile(curl, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLCERT, tls.cert_pem, tls.cert_file);
  SetPemOrFile(curl, CURLOPT_SSLKEY_BLOB, CURLOPT_SSLKEY, tls.key_pem, tls.key_file);
  if (!tls.cert_pem.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
  if (!tls.key_pem.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  if (tls.insecure_skip_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

}  // namespace

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Result<bool> Configure(CURL* curl, State* st) {
  const HttpRequest& request = *st->request;
  curl_easy_reset(curl);
  st->curl = curl;
  if (Result<bool> scheme = CheckUrlScheme(request.url); !scheme.ok()) return scheme;
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, st->detail);
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  // Only http and https, also for redirects (which are not followed anyway): a URL from a
  // Cluster's status or a flag must not make libcurl speak gopher, file, dict, ... .
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPINTVL, 15L);
  if (!request.keep_connection) curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_ms));
  if (request.timeout_ms > 0) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_ms));
  }
  if (request.low_speed_time_s > 0) {
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(request.low_speed_time_s));
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(request.low_speed_bytes));
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, HeaderCallback);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, st);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteCallback);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, st);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, ProgressCallback);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, st);
  SetTlsOptions(curl, request.tls);
  const bool write = !request.method.empty() && request.method != "GET";
  if (write) {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    // A write sends its body at once: no "Expect: 100-continue" round trip for larger bodies.
    st->headers = curl_slist_append(st->headers, "Expect:");
  }
  for (const auto& [name, value] : request.headers) {
    std::string line = name + ": " + value;
    st->headers = curl_slist_append(st->headers, line.c_str());
  }
  if (st->headers != nullptr) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, st->headers);
  return Result<bool>::Ok(true);
}

void Finish(CURL* curl, CURLcode rc, State* st, HttpResponse* response) {
  if (st->headers != nullptr) {
    curl_slist_free_all(st->headers);
    st->headers = nullptr;
  }
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  response->status = static_cast<int>(code);
  double total = 0;
  curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME, &total);
  response->duration_ms = static_cast<int64_t>(total * 1000);
  response->retry_after_s = st->retry_after_s;
  response->content_type = st->content_type;
  response->cancelled = st->cancelled;

  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && st->stopped_by_callback)) {
    if (st->cancelled) {
      response->error = "cancelled";
    } else if (st->body_too_large) {
      response->too_large = true;
      response->error = "response body too large";
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
      response->timed_out = true;
      response->error = DescribeError(rc, 0, st->detail);
    } else {
      long os_errno = 0;
      curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
      response->error = DescribeError(rc, os_errno, st->detail);
    }
  }
}

}  // namespace podwait::curl_transfer
