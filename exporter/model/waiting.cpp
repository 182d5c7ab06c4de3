#include "exporter/model/waiting.h"

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

void ClusterHolders::Add(const WaitingPod& w) {
  const std::optional<Dependency> d = ParseDependency(w.component);
  if (!d) return;
  auto& list = IsExpected(w.classification.wait_class) ? expected_ : unexpected_;
  list[static_cast<size_t>(*d)].push_back(&w);
}

const std::vector<HeldBy>& ClusterHolders::For(DependencySet on) {
  uint32_t key = 0;
  for (Dependency d : kAllDependencies) {
    if (on.Contains(d)) key |= 1u << static_cast<uint32_t>(d);
  }
  auto [it, inserted] = by_set_.try_emplace(key);
  if (!inserted) return it->second;
  for (const auto* half : {&unexpected_, &expected_}) {
    for (Dependency d : kAllDependencies) {
      if (!on.Contains(d)) continue;
      for (const WaitingPod* h : (*half)[static_cast<size_t>(d)]) {
        it->second.push_back(
            HeldBy{h->pod, h->classification.wait_class, h->classification.reason});
      }
    }
  }
  return it->second;
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
  w.owner = pod.owner;
  w.classification = std::move(classification);
  w.class_since = class_since;
  return w;
}

}  // namespace podwait
