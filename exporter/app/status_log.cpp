#include "exporter/app/status_log.h"

#include "exporter/common/log.h"
#include "exporter/model/vocabulary.h"

namespace podwait {

namespace {

// Whether each watched namespace has its own watches (--namespaces.cluster-wide-above).
bool WatchesPerNamespace(const Config& config) {
  const int above = config.namespaces_cluster_wide_above;
  return !config.namespaces.empty() &&
         (above <= 0 || config.namespaces.size() <= static_cast<size_t>(above));
}

}  // namespace

void LogWatchScope(const Config& config) {
  std::string namespaces;
  for (const auto& ns : config.namespaces) namespaces += (namespaces.empty() ? "" : ",") + ns;
  LogInfo("watching", {{"selector", config.selector},
                       {"selector_v2", config.selector_v2},
                       {"namespaces", namespaces.empty() ? "(all)" : namespaces},
                       {"watch_per", WatchesPerNamespace(config) ? "namespace" : "cluster"},
                       {"autoscaler", config.autoscaler},
                       {"tidbclusters", config.tidbcluster_enabled ? "on" : "off"},
                       {"v2", config.v2_enabled ? "on" : "off"},
                       {"ca_status", config.ca_status_enabled ? "on" : "off"}});
}

StatusLog::StatusLog(int max_class_lines) : max_class_lines_(max_class_lines) {}

void StatusLog::Observe(bool synced, const std::shared_ptr<const WaitingSnapshot>& published,
                        const std::function<std::pair<size_t, size_t>()>& counts, int64_t now_ms) {
  if (published == nullptr) return;
  const WaitingSnapshot& snapshot = *published;
  if (synced && !synced_) {
    const auto [clusters, pods] = counts();
    std::map<std::string, size_t> by_class;
    for (const WaitingPod& p : snapshot.pods) {
      ++by_class[std::string(WaitClassName(p.classification.wait_class))];
    }
    std::string classes;
    for (const auto& [c, n] : by_class) {
      classes += (classes.empty() ? "" : ",") + c + "=" + std::to_string(n);
    }
    LogInfo("synced", {{"clusters", std::to_string(clusters)},
                       {"pods", std::to_string(pods)},
                       {"waiting", std::to_string(snapshot.pods.size())},
                       {"by_class", classes.empty() ? "none" : classes}});
    ++lines_;
  }
  synced_ = synced;
  if (!synced) return;             // classes while a source is still listing are not news
  if (published == seen_) return;  // nothing changed since the last evaluation
  seen_ = published;
  if (!baseline_) {
    for (const WaitingPod& p : snapshot.pods) {
      last_[p.namespace_ + "/" + p.pod] = std::string(WaitClassName(p.classification.wait_class));
    }
    baseline_ = true;
    return;
  }
  ClassChanges(snapshot, now_ms);
}

bool StatusLog::TakeLine(int64_t now_ms) {
  if (now_ms - window_start_ms_ >= 60'000) {
    window_start_ms_ = now_ms;
    window_lines_ = 0;
  }
  if (window_lines_ >= max_class_lines_) {
    ++suppressed_;
    return false;
  }
  ++window_lines_;
  ++lines_;
  return true;
}

void StatusLog::ClassChanges(const WaitingSnapshot& snapshot, int64_t now_ms) {
  std::map<std::string, std::string> now;
  for (const WaitingPod& p : snapshot.pods) {
    const std::string key = p.namespace_ + "/" + p.pod;
    const std::string cls(WaitClassName(p.classification.wait_class));
    now[key] = cls;
    auto it = last_.find(key);
    const std::string from = it == last_.end() ? "not_waiting" : it->second;
    if (from == cls || !TakeLine(now_ms)) continue;
    LogInfo("pod class changed", {{"pod", key},
                                  {"from", from},
                                  {"to", cls},
                                  {"reason", p.classification.reason},
                                  {"not_logged_before", std::to_string(suppressed_)}});
    suppressed_ = 0;
  }
  for (const auto& [key, cls] : last_) {
    if (now.count(key) != 0 || !TakeLine(now_ms)) continue;
    LogInfo("pod class changed", {{"pod", key},
                                  {"from", cls},
                                  {"to", "not_waiting"},
                                  {"not_logged_before", std::to_string(suppressed_)}});
    suppressed_ = 0;
  }
  last_ = std::move(now);
}

}  // namespace podwait
