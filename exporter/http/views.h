#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/model/types.h"
#include "exporter/model/waiting.h"

namespace podwait {

// Whether the data the views show is current (docs/DESIGN.md §7, "No data is not good news"):
// what the watches and the API server connection say, as plain values.
struct DataHealth {
  std::vector<std::string> not_synced_yet;  // watches still waiting for their first list
  std::vector<std::string> out_of_sync;     // watches that listed once and keep failing
  std::string api_address;                  // the API server, as configured
  bool api_reachable = true;
  std::string api_error;                // the last transport error while unreachable
  Timestamp api_unreachable_since = 0;  // wall time of the first failure of the outage
  // When the pod watches last brought anything (a list, an event, a bookmark): the oldest of
  // them; 0: none has yet.
  Timestamp last_data = 0;
  Timestamp started_at = 0;  // when the exporter started (0: unknown)
  // Every watch has listed, none keeps failing, the API server answers.
  bool Current() const { return not_synced_yet.empty() && out_of_sync.empty() && api_reachable; }
};

// What the JSON view and the status page show: the latest evaluation plus dependency state.
struct ViewModel {
  std::shared_ptr<const WaitingSnapshot> waiting;
  std::map<ClusterKey, ClusterDependencies> dependencies;
  bool synced = false;
  DataHealth health;
  Timestamp now = 0;
  // When the last evaluation ran, which may be later than the snapshot (published only when
  // something changed); 0: the snapshot's own time.
  Timestamp evaluated_at = 0;
};

struct PodFilter {
  std::string namespace_;  // exact; empty = any
  std::string cluster;     // TidbCluster name or tidb_cluster label; empty = any
  std::string wait_class;  // exact class name; empty = any
  std::string pod;         // exact pod name; empty = any
  // Only pods whose class is (true) or is not (false) an expected wait; nullopt = any.
  std::optional<bool> expected;
  bool Matches(const WaitingPod& p) const;
  bool MatchesCluster(const ClusterKey& k) const;
  bool Empty() const {
    return namespace_.empty() && cluster.empty() && wait_class.empty() && pod.empty() &&
           !expected.has_value();
  }
  // The filter without its class and expected parts: the scope whose pods the class chips and
  // the per-cluster counts count.
  PodFilter AnyClass() const;
  // From a request's ?namespace=&cluster=&class=&pod=&expected= (what the status page's links
  // and alerts' links set), as sent: an unknown class stays, so the status page shows its empty
  // state; other parameters are ignored.
  static PodFilter FromQuery(const std::map<std::string, std::string>& query);
};

// The filter of GET /api/v1/pods: FromQuery, where an unknown parameter or class is an error
// naming it (answered 400), not an empty list.
Result<PodFilter> ParsePodFilter(const std::map<std::string, std::string>& query);

// What the status page says about the exporter itself.
struct StatusPageOptions {
  std::string telemetry_path = "/metrics";  // served beside the page (under the route prefix)
  std::string version;
  std::string selector;                 // the pod selectors, named on the page when nothing waits
  std::string selector_v2;              // empty: not watched
  std::vector<std::string> namespaces;  // empty: all
  std::string external_url;             // --web.external-url; empty: not known
};

// "tidb-2" before "tidb-10": runs of digits compare by their value.
bool NaturalLess(std::string_view a, std::string_view b);

// GET /api/v1/pods (README.md, "Endpoints"): {"evaluatedAt", "now", "synced", "health",
// "scope", "pods": [...], "clusters": [...]}; `pods` is what the filter matches, `scope` counts
// every waiting pod whatever the filter, each cluster's `waiting` counts its pods by class under
// the filter's namespace, cluster and pod. Pure.
std::string RenderPodsJson(const ViewModel& model, const PodFilter& filter);

// GET /: the status page for triage, self-contained (no external assets): first what keeps the
// data from being current (DataHealth; never an all-clear then), a summary line of the whole
// scope, every needs-attention group of every cluster above every expected group (those
// collapsed in <details>, their rows loaded when opened), class/cluster/namespace filter links
// (query parameters), natural sort, a runbook link per class; with ?namespace=&pod= that pod's
// class, reason, evidence, times and what holds it first. Its script refreshes it in place from
// /api/v1/pods every 30 s (?refresh=<seconds>), keeping opened groups and the scroll position;
// without script it is whole, reloaded by hand, each collapsed group a link to its rows. Every
// link is relative, so the page works under a route prefix, behind kubectl proxy or an ingress
// sub-path. Pure.
std::string RenderStatusPage(const ViewModel& model, const StatusPageOptions& options,
                             const PodFilter& filter);

// The status page's own headers: a Content-Security-Policy that lets nothing load but the page's
// inline style and script (allowed by their SHA-256) and its requests to /api/v1/pods
// (connect-src 'self'), and no framing (frame-ancestors 'none', X-Frame-Options).
std::vector<std::pair<std::string, std::string>> StatusPageHeaders();
// The headers of a page whose only resource is its inline `style`: a Content-Security-Policy
// allowing that style by its SHA-256 and nothing else, no forms, no framing.
std::vector<std::pair<std::string, std::string>> StyleOnlyPageHeaders(std::string_view style);

}  // namespace podwait
