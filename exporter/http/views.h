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

// What the JSON view and the status page show: the latest evaluation plus dependency state.
struct ViewModel {
  std::shared_ptr<const WaitingSnapshot> waiting;
  std::map<ClusterKey, ClusterDependencies> dependencies;
  bool synced = false;
  std::vector<std::string> unsynced;  // the watches still waiting for their first list
  Timestamp now = 0;
  // When the last evaluation ran, which may be later than the snapshot (published only when
  // something changed); 0: the snapshot's own time.
  Timestamp evaluated_at = 0;
};

struct PodFilter {
  std::string namespace_;  // exact; empty = any
  std::string cluster;     // TidbCluster name or tidb_cluster label; empty = any
  std::string wait_class;  // exact class name; empty = any
  bool Matches(const WaitingPod& p) const;
  bool MatchesCluster(const ClusterKey& k) const;
  bool Empty() const { return namespace_.empty() && cluster.empty() && wait_class.empty(); }
  // From a request's ?namespace=&cluster=&class= (what the status page's filter links set), as
  // sent: an unknown class stays, so the status page shows its empty state; other parameters
  // are ignored.
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

// GET /api/v1/pods: {"evaluatedAt", "pods": [...], "clusters": [...]}. Pure.
std::string RenderPodsJson(const ViewModel& model, const PodFilter& filter);

// GET /: a self-contained HTML status page for triage (no external assets, no script; refreshes
// itself): a summary line, every needs-attention group of every cluster above every expected
// group (those collapsed in <details>), class/cluster/namespace filter links (query parameters),
// natural sort, a runbook link per class. Every link is relative, so the page works under a
// route prefix, behind kubectl proxy or an ingress sub-path. Pure.
std::string RenderStatusPage(const ViewModel& model, const StatusPageOptions& options,
                             const PodFilter& filter);

// The status page's own headers: a Content-Security-Policy that lets nothing load but the page's
// inline style (allowed by its SHA-256), and no framing (frame-ancestors 'none', X-Frame-Options).
std::vector<std::pair<std::string, std::string>> StatusPageHeaders();
// The headers of a page whose only resource is its inline `style`: a Content-Security-Policy
// allowing that style by its SHA-256 and nothing else, no forms, no framing.
std::vector<std::pair<std::string, std::string>> StyleOnlyPageHeaders(std::string_view style);

}  // namespace podwait
