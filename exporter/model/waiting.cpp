#include "exporter/model/waiting.h"

#include <algorithm>
#include <utility>

#include "exporter/model/v2.h"

namespace podwait {

std::string TidbClusterLabel(const std::string& ns, const std::string& cluster) {
  if (cluster.empty()) return std::string();
  return ns + "-" + cluster;
}

bool IsDependencyRow(const WaitingPod& w) {
  const WaitClass c = w.classification.wait_class;
  return w.classification.waiting &&
         (c == WaitClass::kDependency || c == WaitClass::kDependencyStuck);
}

void HeldByIndex::Add(const WaitingPod& w) {
  groups_[Key{w.namespace_, w.cluster, w.component}].push_back(&w);
}

std::vector<HeldBy> HeldByIndex::For(const WaitingPod& row) const {
  std::vector<HeldBy> out;
  if (!IsDependencyRow(row)) return out;
  std::vector<const WaitingPod*> holders;
  for (Dependency d : kAllDependencies) {
    if (!row.classification.waits_on.Contains(d)) continue;
    auto it = groups_.find(Key{row.namespace_, row.cluster, DependencyName(d)});
    if (it == groups_.end()) continue;
    holders.insert(holders.end(), it->second.begin(), it->second.end());
  }
  // The unexpected first (one of them is the problem), then the expected; otherwise as added.
  std::stable_partition(holders.begin(), holders.end(), [](const WaitingPod* h) {
    return !IsExpected(h->classification.wait_class);
  });
  out.reserve(holders.size());
  for (const WaitingPod* h : holders) {
    if (h == &row || h->pod == row.pod) continue;
    out.push_back(HeldBy{h->pod, h->classification.wait_class, h->classification.reason});
  }
  return out;
}

WaitingPod WithHeldBy(const WaitingPod& base, std::vector<HeldBy> held_by) {
  WaitingPod w = base;
  if (!held_by.empty()) {
    const HeldBy& first = held_by.front();
    std::string note = "held by " + first.pod + ": " +
                       std::string(WaitClassName(first.wait_class)) + "/" + first.reason;
    if (held_by.size() > 1) note += " (+" + std::to_string(held_by.size() - 1) + " more)";
    std::string& e = w.classification.evidence;
    e = e.empty() ? note : note + "; " + e;
  }
  w.held_by = std::move(held_by);
  return w;
}

WaitingPod MakeWaitingPod(const PodRecord& pod, Classification classification,
                          Timestamp class_since) {
  WaitingPod w;
  w.namespace_ = pod.namespace_;
  w.cluster = pod.cluster;
  w.tidb_cluster = TidbClusterLabel(pod.namespace_, pod.cluster);
  w.component = pod.component;
  w.pod = pod.name;
  if (pod.v2_instance) w.v2_instance = v2::InstanceNameOfPod(pod.name, pod.component);
  w.uid = pod.uid;
  w.classification = std::move(classification);
  w.class_since = class_since;
  return w;
}

}  // namespace podwait
