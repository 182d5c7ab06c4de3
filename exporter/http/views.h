#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exporter/model/types.h"
#include "exporter/state/waiting_tracker.h"

namespace podwait {

// What the JSON view and the status page show: the latest evaluation plus dependency state.
struct ViewModel {
  std::shared_ptr<const WaitingSnapshot> waiting;
  std::map<ClusterKey, ClusterDependencies> dependencies;
  bool synced = false;
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
};

// The filter of GET /api/v1/pods from its query (namespace, cluster, class). An unknown
// parameter, or a class that is not one of the vocabulary's, is an error naming it (answered
// 400), not an empty list.
std::optional<PodFilter> ParsePodFilter(const std::map<std::string, std::string>& query,
                                        std::string* error);

// GET /api/v1/pods: {"evaluatedAt", "pods": [...], "clusters": [...]}. Pure.
std::string RenderPodsJson(const ViewModel& model, const PodFilter& filter);

// GET /: a self-contained HTML status page (no external assets; refreshes itself). Pure.
std::string RenderStatusPage(const ViewModel& model, const std::string& telemetry_path);

// The status page's own headers: a Content-Security-Policy that lets nothing load but the page's
// inline style (allowed by its SHA-256), and no framing (frame-ancestors 'none', X-Frame-Options).
std::vector<std::pair<std::string, std::string>> StatusPageHeaders();

}  // namespace podwait
