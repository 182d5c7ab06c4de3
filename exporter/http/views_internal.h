#pragma once

// What the JSON view (views.cpp) and the status page (status_page.cpp) share. Internal to http/.

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "exporter/http/views.h"

namespace podwait::views {

// When the shown evaluation ran: the model's evaluated_at, else the snapshot's own time.
Timestamp EvaluatedAt(const ViewModel& model);

// Every cluster that has waiting pods or known dependencies, in order.
std::set<ClusterKey> AllClusters(const ViewModel& model);

// The whole scope, whatever the filter: what the status page's summary line says.
struct ScopeCounts {
  size_t attention = 0;  // pods
  size_t expected = 0;   // pods
  size_t clusters = 0;
  size_t attention_clusters = 0;  // clusters with a pod that needs attention
};
ScopeCounts CountScope(const ViewModel& model);

// Each shown cluster's waiting pods by class, counted under filter.AnyClass(); a cluster the
// filter matches has an entry even without waiting pods.
using WaitingCounts = std::map<ClusterKey, std::map<WaitClass, size_t>>;
WaitingCounts CountWaiting(const ViewModel& model, const PodFilter& filter);

// Percent-encodes everything but RFC 3986's unreserved characters.
std::string UrlEncode(std::string_view s);

// Base64 of the SHA-256 of `text`, as a Content-Security-Policy source names it.
std::string Sha256Base64(std::string_view text);

}  // namespace podwait::views
