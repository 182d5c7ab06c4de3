#pragma once

// The fetch layer over the PD HTTP API: one request per endpoint on top of podwait::HttpClient,
// each bounded by a timeout, each classified into an error kind, each reported to an observer
// (the exporter's self-metrics; wait-for-pd passes none). Parsing is in pd_api.h.

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/model/types.h"
#include "exporter/net/http_client.h"
#include "exporter/sources/pd_api.h"

namespace podwait {

enum class PdEndpoint : uint8_t {
  kHealth,
  kLeader,
  kMembers,
  kClusterStatus,
  kStores,
  kConfigReplicate
};
// health, leader, members, cluster_status, stores, config_replicate (the `endpoint` label).
// Inline so that modules using only this header (metrics) need not link the sources module.
inline std::string_view PdEndpointName(PdEndpoint e) {
  switch (e) {
    case PdEndpoint::kHealth:
      return "health";
    case PdEndpoint::kLeader:
      return "leader";
    case PdEndpoint::kMembers:
      return "members";
    case PdEndpoint::kClusterStatus:
      return "cluster_status";
    case PdEndpoint::kStores:
      return "stores";
    case PdEndpoint::kConfigReplicate:
      return "config_replicate";
  }
  return "unknown";
}

// /pd/api/v1/health, ...
std::string_view PdEndpointPath(PdEndpoint e);

// Why a request failed. kNone also covers PD's "not bootstrapped" answer on /stores, which is a
// real answer (no TiKV yet), not a failure.
enum class PdErrorKind : uint8_t {
  kNone,
  kTimeout,
  kConnect,
  kHttpStatus,
  kParse,
  kTls,
  kTooLarge,
  kCancelled
};
// The `kind` label: timeout, connect, http_status, parse, tls, too_large ("" for kNone,
// "cancelled").
inline std::string_view PdErrorKindName(PdErrorKind k) {
  switch (k) {
    case PdErrorKind::kNone:
      return "";
    case PdErrorKind::kTimeout:
      return "timeout";
    case PdErrorKind::kConnect:
      return "connect";
    case PdErrorKind::kHttpStatus:
      return "http_status";
    case PdErrorKind::kParse:
      return "parse";
    case PdErrorKind::kTls:
      return "tls";
    case PdErrorKind::kTooLarge:
      return "too_large";
    case PdErrorKind::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

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

  const PdClientOptions& options() const { return options_; }

 private:
  // Performs the GET; fills the transport/status part of *answer and returns the response.
  template <typename T, typename Parser>
  PdAnswer<T> Fetch(PdEndpoint endpoint, Parser parse);

  HttpClient& http_;
  PdClientOptions options_;
  PdProbeObserver* observer_;
};

// Substitutes {cluster} and {namespace} in a URL template (Config::pd_url_template) and drops a
// trailing '/', so API paths can be appended.
std::string PdBaseUrl(std::string_view url_template, const ClusterKey& cluster);

// TLS for one cluster's PD: the per-cluster files <pd_tls_dir>/<namespace>/<cluster>/{ca.crt,
// tls.crt,tls.key} when that directory holds a ca.crt or a tls.crt, otherwise the global
// --pd.tls.* files. Reads only file existence.
TlsOptions PdTlsFor(const Config& config, const ClusterKey& cluster);

// Classifies a transport failure of HttpResponse (error set) into timeout / tls / connect.
PdErrorKind ClassifyTransportError(const HttpResponse& response);

}  // namespace podwait
