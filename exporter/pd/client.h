#pragma once

// The fetch layer over the PD HTTP API: one request per endpoint on top of podwait::HttpClient,
// each bounded by a timeout, each classified into an error kind, each reported to an observer
// (the exporter's self-metrics; wait-for-pd passes none). Parsing is in api.h.

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/model/pd_facts.h"
#include "exporter/model/types.h"
#include "exporter/net/http_client.h"
#include "exporter/pd/api.h"

namespace podwait {

// The answer of one endpoint.
template <typename T>
struct PdAnswer {
  std::optional<T> value;  // set when PD answered with a payload that parsed
  PdErrorKind error_kind = PdErrorKind::kNone;
  int http_status = 0;  // 0 when no response arrived
  std::string error;    // what went wrong, for logs (no secrets, no bodies beyond a short excerpt)
  bool not_bootstrapped = false;  // /stores: HTTP 500 "TiKV cluster not bootstrapped"
  // PD itself answered (a payload, or one of PD's own error answers), as opposed to no answer or
  // a proxy's HTML/empty/502/504 page. Used to tell "PD is up but unhappy" from "cannot reach PD".
  bool pd_answered = false;

  bool ok() const { return value.has_value(); }
  // No HTTP answer at all: connection refused, timeout, TLS failure, cancelled.
  bool transport_failed() const {
    return error_kind == PdErrorKind::kTimeout || error_kind == PdErrorKind::kConnect ||
           error_kind == PdErrorKind::kTls || error_kind == PdErrorKind::kCancelled;
  }
};

// Receives one call per request. Implementations must be thread-safe (probe workers share one).
class PdProbeObserver {
 public:
  virtual ~PdProbeObserver() = default;
  // `seconds` is the request's wall time; `kind` is kNone on success.
  virtual void OnRequest(PdEndpoint endpoint, double seconds, PdErrorKind kind) = 0;
  // A full round over all clusters took `seconds`.
  virtual void OnRound(double /*seconds*/) {}
};

struct PdClientOptions {
  std::string base_url;  // e.g. http://basic-pd.default:2379 (no trailing slash)
  TlsOptions tls;
  int64_t timeout_ms = 3000;  // per request, connect included
  // When set and it turns true, requests in flight abort within ~100 ms.
  const std::atomic<bool>* cancel = nullptr;
};

// One PD endpoint set. Not thread-safe (it uses one HttpClient); cheap to construct per cluster.
class PdClient {
 public:
  // `http` and `observer` (optional) must outlive the client.
  PdClient(HttpClient& http, PdClientOptions options, PdProbeObserver* observer = nullptr);

  PdAnswer<std::vector<PdMemberHealth>> Health();
  // A leader is nullopt inside an ok answer when PD says there is none.
  PdAnswer<std::optional<PdMember>> Leader();
  PdAnswer<PdMembers> Members();
  PdAnswer<PdClusterStatus> ClusterStatus();
  PdAnswer<PdStores> Stores();
  PdAnswer<PdReplicateConfig> ReplicateConfig();

  // The GET of one endpoint, uninterpreted and unreported (ProbePd interprets it step by step).
  HttpResponse Get(PdEndpoint endpoint);

  const PdClientOptions& options() const { return options_; }
  PdProbeObserver* observer() const { return observer_; }

 private:
  template <typename T>
  PdAnswer<T> Fetch(PdEndpoint endpoint, PdParse<T> (*parse)(std::string_view));

  HttpClient& http_;
  PdClientOptions options_;
  PdProbeObserver* observer_;
};

// PD bodies are small; 8 MiB bounds even a /stores of thousands of stores.
inline constexpr size_t kPdMaxBody = 8 << 20;

// The GET of one endpoint with `options`' base URL, timeout, TLS and cancel flag.
HttpRequest PdRequest(const PdClientOptions& options, PdEndpoint endpoint);

// What one endpoint's HTTP response says: its payload when it parsed, else the error kind, PD's
// own "not bootstrapped" answer of /stores, and whether PD (rather than a proxy) answered.
// Instantiated for the parsers of api.h.
template <typename T>
PdAnswer<T> InterpretPdResponse(PdEndpoint endpoint, const HttpResponse& response,
                                PdParse<T> (*parse)(std::string_view));

// Hands one request to `observer` (may be null); a cancelled request is not reported.
void ReportPdRequest(PdProbeObserver* observer, PdEndpoint endpoint, const HttpResponse& response,
                     PdErrorKind kind);

// Substitutes {cluster} and {namespace} in a URL template (--pd.url-template) and drops a
// trailing '/', so API paths can be appended.
std::string PdBaseUrl(std::string_view url_template, const ClusterKey& cluster);

// The PD TLS flags: --pd.tls.dir and the global --pd.tls.{ca,cert,key}-file.
struct PdTlsFlags {
  std::string dir;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

// TLS for one cluster's PD: the per-cluster files <dir>/<namespace>/<cluster>/{ca.crt,tls.crt,
// tls.key} when that directory holds a ca.crt or a tls.crt, otherwise the global files. Reads
// only file existence.
TlsOptions PdTlsFor(const PdTlsFlags& flags, const ClusterKey& cluster);

// Classifies a transport failure of HttpResponse (error set) into timeout / tls / connect.
PdErrorKind ClassifyTransportError(const HttpResponse& response);

}  // namespace podwait
