#pragma once

// What podwait learns from PD, as values shared by the PD client and prober (pd/), the dependency
// store (state/), the metrics and the views: the endpoints podwait reads, why a request failed,
// and what one probe round learned about one TiDB cluster's PD (docs/DESIGN.md, "Inputs").
// Plain value types and constant tables: pd/ uses them without linking any model code, which
// keeps wait-for-pd down to pd, net and common.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "exporter/common/clock.h"

namespace podwait {

enum class PdEndpoint : uint8_t {
  kHealth,
  kLeader,
  kMembers,
  kClusterStatus,
  kStores,
  kConfigReplicate
};
struct PdEndpointInfo {
  PdEndpoint endpoint;
  std::string_view name;  // the `endpoint` label of the probe metrics
  std::string_view path;  // appended to the PD base URL
};
inline constexpr PdEndpointInfo kPdEndpoints[] = {
    {PdEndpoint::kHealth, "health", "/pd/api/v1/health"},
    {PdEndpoint::kLeader, "leader", "/pd/api/v1/leader"},
    {PdEndpoint::kMembers, "members", "/pd/api/v1/members"},
    {PdEndpoint::kClusterStatus, "cluster_status", "/pd/api/v1/cluster/status"},
    {PdEndpoint::kStores, "stores", "/pd/api/v1/stores"},
    {PdEndpoint::kConfigReplicate, "config_replicate", "/pd/api/v1/config/replicate"},
};
static_assert(
    [] {
      for (size_t i = 0; i < std::size(kPdEndpoints); ++i) {
        if (static_cast<size_t>(kPdEndpoints[i].endpoint) != i) return false;
      }
      return true;
    }(),
    "kPdEndpoints is in PdEndpoint order");
inline constexpr std::string_view PdEndpointName(PdEndpoint e) {
  return kPdEndpoints[static_cast<size_t>(e)].name;
}
inline constexpr std::string_view PdEndpointPath(PdEndpoint e) {
  return kPdEndpoints[static_cast<size_t>(e)].path;
}

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
// The `kind` label of podwait_probe_errors_total, by PdErrorKind ("" for kNone).
inline constexpr std::string_view kPdErrorKindNames[] = {
    "", "timeout", "connect", "http_status", "parse", "tls", "too_large", "cancelled"};
static_assert(std::size(kPdErrorKindNames) == static_cast<size_t>(PdErrorKind::kCancelled) + 1);
inline constexpr std::string_view PdErrorKindName(PdErrorKind k) {
  return kPdErrorKindNames[static_cast<size_t>(k)];
}

struct PdFacts {
  Timestamp probed_at = 0;
  // PD answered at least one of /health, /leader, /members with a PD payload. False means "the
  // API cannot be reached" (refused, timeout, TLS failure, or only proxy garbage came back).
  bool reachable = false;
  // Every endpoint answered and parsed (the "not bootstrapped" answer of /stores counts as an
  // answer). This is podwait_pd_probe_success.
  bool success = false;
  std::string error;  // the first failure, for logs and the status page; empty on success
  // Set when PD's state cannot be known from where podwait runs, which says nothing about the
  // cluster: the API server refused the user's requests to PD's service proxy (401, 403). What
  // to grant, in words.
  std::string not_reachable_from_here;

  // /health
  bool health_known = false;
  int members_healthy = 0;
  int members_unhealthy = 0;
  // /leader (or /members as the fallback)
  bool leader_known = false;
  bool has_leader = false;
  std::string leader_name;
  // /cluster/status; is_initialized stays nullopt when PD does not report it (PD < 3.0).
  bool cluster_status_known = false;
  std::optional<bool> is_initialized;
  // /stores; not_bootstrapped is PD's HTTP 500 "TiKV cluster not bootstrapped".
  bool stores_known = false;
  bool not_bootstrapped = false;
  std::map<std::string, int> tikv_stores;  // state_name -> count; TiFlash excluded
  int tiflash_stores = 0;
  // /config/replicate
  std::optional<int64_t> max_replicas;

  int TikvStoresIn(const std::string& state) const {
    auto it = tikv_stores.find(state);
    return it == tikv_stores.end() ? 0 : it->second;
  }
  // A majority of the members reported by /health are healthy.
  bool HealthyMajority() const {
    const int total = members_healthy + members_unhealthy;
    return total > 0 && members_healthy * 2 > total;
  }
};

}  // namespace podwait
