#pragma once

// What one probe round learned about one TiDB cluster's PD: a small value type that flows from
// the prober (sources) to the dependency store (state) and the metrics. Header-only on purpose:
// the state and metrics modules use it without linking the sources module.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "exporter/common/clock.h"

namespace podwait {

struct PdFacts {
  Timestamp probed_at = 0;
  // PD answered at least one of /health, /leader, /members with a PD payload. False means "the
  // API cannot be reached" (refused, timeout, TLS failure, or only proxy garbage came back).
  bool reachable = false;
  // Every endpoint answered and parsed (the "not bootstrapped" answer of /stores counts as an
  // answer). This is podwait_pd_probe_success.
  bool success = false;
  std::string error;  // the first failure, for logs and the status page; empty on success

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
