#pragma once

// PD through the Kubernetes API server (--pd.via, docs/DESIGN.md §3): from a laptop PD's Service
// address (`http://basic-pd.tidb:2379`) does not resolve, but the API server's service proxy
// reaches it with the user's own credentials and RBAC (`get` on `services/proxy`):
//   <api>/api/v1/namespaces/<ns>/services/[https:]<name>:<port>/proxy/pd/api/v1/health
// This file maps a PD address to that path and tells the API server's own answers (a Kubernetes
// Status: forbidden, no such Service, no endpoints) from PD's, which the proxy passes through.
// The Kubernetes client itself (budget, credentials) is behind PdApiServerRoute, implemented in
// app/ so that pd/ needs no Kubernetes client.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "exporter/net/http_client.h"

namespace podwait {

// A Kubernetes Service named by a PD base URL.
struct PdServiceAddress {
  bool https = false;
  std::string namespace_;
  std::string name;
  std::string port;  // as written, or 80 / 443 by the scheme
  std::string path;  // after host:port, without a trailing '/' (usually empty)
};

// The Service a PD base URL names: its host is <name>.<namespace>, <name>.<namespace>.svc or
// <name>.<namespace>.svc.<cluster domain> (each a DNS-1123 label), as tidb-operator v1's
// `<cluster>-pd.<namespace>`, a v2 Cluster's status.pd and the default URL template write it.
// nullopt for anything else: an IP address, a single label, a name outside the cluster
// (pd.example.com), a URL with user information.
std::optional<PdServiceAddress> PdServiceOf(std::string_view base_url);

// The Service's base URL through the API server at `api_url` (no trailing '/'); PD's API paths
// are appended to it.
std::string ServiceProxyBaseUrl(std::string_view api_url, const PdServiceAddress& service);

// The API server's own answer to a proxied request, not PD's: a non-2xx Kubernetes Status object
// ({"kind":"Status","apiVersion":"v1",...}), which PD never sends.
struct ApiServerStatus {
  int code = 0;
  std::string reason;  // Forbidden, NotFound, ServiceUnavailable, ...
  std::string message;
  bool forbidden() const { return code == 401 || code == 403; }
};
std::optional<ApiServerStatus> ApiServerStatusOf(const HttpResponse& response);

// What to grant a user whose proxy requests are forbidden in `namespace_`, as a kubectl command.
std::string ServiceProxyGrant(std::string_view namespace_);

// How the prober's requests reach the API server. Called from the prober's thread only; must
// outlive the prober.
class PdApiServerRoute {
 public:
  virtual ~PdApiServerRoute() = default;
  // Takes a token of the API server's request budget if one is at hand at monotonic time now_ms
  // (a probe uses only what the other API calls leave; it asks again shortly).
  virtual bool TryTake(int64_t now_ms) = 0;
  // Adds the user's credentials and the API server's TLS to a request (may fetch a token).
  virtual void Authorize(HttpRequest* request) = 0;
  // The API server's answer to one request (a 401 fetches the credentials again).
  virtual void OnAnswer(const HttpResponse& response) = 0;
};

}  // namespace podwait
