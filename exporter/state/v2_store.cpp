#include "exporter/state/v2_store.h"

#include <algorithm>
#include <set>

#include "exporter/common/label_values.h"

namespace podwait {
namespace {

// The clusters of namespace `ns` (all clusters when `ns` is empty and scope means every namespace)
// are visited by the callers through lower_bound on ClusterKey{ns, ""}.
template <typename Map, typename Fn>
void ForNamespace(Map& clusters, std::string_view ns, Fn fn) {
  auto it = ns.empty() ? clusters.begin() : clusters.lower_bound(ClusterKey{std::string(ns), ""});
  for (; it != clusters.end(); ++it) {
    if (!ns.empty() && it->first.namespace_ != ns) break;
    fn(it->first, it->second);
  }
}

// One more instance of a quorum (PD, DM masters); a Ready one dates the quorum's readiness.
void CountReady(const v2::Instance& inst, int* instances, int* ready, Timestamp* ready_since) {
  ++*instances;
  if (!inst.IsReady()) return;
  ++*ready;
  *ready_since = std::max(*ready_since, inst.ready->last_transition);
}

}  // namespace

bool InstancePlanOf(const v2::Instance& instance, InstanceReadiness* out) {
  auto plan = [&](const v2::Condition& c, std::string_view reason) {
    out->plan_reason = std::string(reason);
    out->plan_condition = c.type + (c.status == ConditionStatus::kTrue ? "=True" : "=False") +
                          (c.reason.empty() ? "" : " " + c.reason);
    out->plan_since = c.last_transition;
    return true;
  };
  // pkg/controllers/tikv/tasks/evict_leader.go: False/Evicting while leaders move away,
  // True/Evicted when none is left (the pod restarts next). True/StoreNotExist (no store yet, or
  // removed) and False/NotEvicted plan nothing.
  if (const auto& c = instance.leaders_evicted;
      c && ((c->status == ConditionStatus::kFalse && c->reason == "Evicting") ||
            (c->status == ConditionStatus::kTrue && c->reason == "Evicted"))) {
    return plan(*c, reason::kLeaderEviction);
  }
  // pkg/controllers/common/store_offline.go: the condition exists only while a store is taken
  // offline or was: False/Processing (removing), False/Canceling, True/Completed (removed);
  // Failed (common_types.go) is no plan.
  if (const auto& c = instance.offlined;
      c && (c->reason == "Processing" || c->reason == "Canceling" || c->reason == "Completed")) {
    return plan(*c, reason::kStoreOffline);
  }
  return false;
}

void V2Store::SetListener(Listener listener) { listener_ = std::move(listener); }

v2::ClusterFacts V2Store::Compute(const Entry& e) {
  v2::ClusterFacts f;
  f.present = !e.Empty();
  if (e.cluster) f.pd_url = e.cluster->pd_url;
  std::map<std::string, int> states;
  for (const auto& [key, inst] : e.instances) {
    if (inst.component == "pd") {
      CountReady(inst, &f.pd_instances, &f.pd_instances_ready, &f.pd_ready_since);
    } else if (inst.component == "tikv") {
      ++f.tikv_instances;
      if (inst.IsReady() && inst.store_state == "Serving") {
        ++f.tikv_serving_ready;
        f.tikv_ready_since = std::max(f.tikv_ready_since, inst.ready->last_transition);
      }
      if (!inst.store_state.empty()) ++states[std::string(StoreStateLabel(inst.store_state))];
    } else if (inst.component == "dm-master") {
      CountReady(inst, &f.dm_instances, &f.dm_instances_ready, &f.dm_ready_since);
    } else if (inst.component == "dm-worker") {
      ++f.dm_worker_instances;
    } else if (inst.component == "tso") {
      CountReady(inst, &f.tso_instances, &f.tso_instances_ready, &f.tso_ready_since);
    }
  }
  f.tikv_store_states.assign(states.begin(), states.end());
  std::vector<const v2::Group*> pd_groups;
  for (const auto& [key, g] : e.groups) {
    if (g.component == "pd") pd_groups.push_back(&g);
  }
  f.hold = v2::HoldOf(e.cluster ? &*e.cluster : nullptr, pd_groups);
  f.pd_ms_mode = f.hold.mode_switch.empty() && v2::InPdMicroservicesMode(pd_groups);
  return f;
}

void V2Store::Changed(const ClusterKey& key) {
  auto it = clusters_.find(key);
  if (it == clusters_.end()) return;
  v2::ClusterFacts facts = Compute(it->second);
  if (facts != it->second.facts) {
    it->second.facts = facts;
    if (listener_) listener_(key, facts);
  }
  if (it->second.Empty()) clusters_.erase(it);
}

void V2Store::ReplaceClusters(std::string_view scope, std::vector<v2::Cluster> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<ClusterKey> touched;
  ForNamespace(clusters_, scope, [&](const ClusterKey& key, Entry& e) {
    if (e.cluster) {
      e.cluster.reset();
      touched.insert(key);
    }
  });
  for (v2::Cluster& c : listed) {
    if (!InScope(scope, c.namespace_)) continue;
    ClusterKey key = c.Key();
    clusters_[key].cluster = std::move(c);
    touched.insert(key);
  }
  for (const ClusterKey& key : touched) Changed(key);
}

void V2Store::UpsertCluster(v2::Cluster cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  ClusterKey key = cluster.Key();
  clusters_[key].cluster = std::move(cluster);
  Changed(key);
}

void V2Store::RemoveCluster(std::string_view namespace_, std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  ClusterKey key{std::string(namespace_), std::string(name)};
  auto it = clusters_.find(key);
  if (it == clusters_.end()) return;
  it->second.cluster.reset();
  Changed(key);
}

void V2Store::Journal(std::string_view kind, const std::string& namespace_, std::string_view name) {
  for (const auto& k : v2::Kinds()) {
    if (k.instance_kind != kind) continue;
    std::string pod = v2::PodNameOf(name, k.component);
    if (!pod.empty()) journal_.Record(++version_, PodName(namespace_, std::move(pod)));
    return;
  }
}

bool V2Store::ChangedPodsSince(uint64_t since, std::vector<PodName>* pods,
                               uint64_t* version) const {
  std::lock_guard<std::mutex> lock(mu_);
  *version = version_;
  if (since > version_ || !journal_.Covers(since)) return false;
  journal_.Since(since, [&](const PodName& pod, uint64_t) { pods->push_back(pod); });
  return true;
}

void V2Store::ReplaceInstances(std::string_view kind, std::string_view scope,
                               std::vector<v2::Instance> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<ClusterKey> touched;
  ForNamespace(clusters_, scope, [&](const ClusterKey& key, Entry& e) {
    for (auto it = e.instances.begin(); it != e.instances.end();) {
      if (it->first.first == kind) {
        Journal(kind, key.namespace_, it->first.second);
        it = e.instances.erase(it);
        touched.insert(key);
      } else {
        ++it;
      }
    }
  });
  for (v2::Instance& i : listed) {
    if (i.kind != kind || !InScope(scope, i.namespace_)) continue;
    ClusterKey key = i.Key();
    ObjectKey okey{i.kind, i.name};
    Journal(i.kind, i.namespace_, i.name);
    clusters_[key].instances.insert_or_assign(std::move(okey), std::move(i));
    touched.insert(key);
  }
  for (const ClusterKey& key : touched) Changed(key);
}

void V2Store::UpsertInstance(v2::Instance instance) {
  std::lock_guard<std::mutex> lock(mu_);
  ClusterKey key = instance.Key();
  ObjectKey okey{instance.kind, instance.name};
  // An instance moved to another cluster (spec.cluster is immutable in v2, but be safe).
  std::set<ClusterKey> touched = {key};
  ForNamespace(clusters_, instance.namespace_, [&](const ClusterKey& k, Entry& e) {
    if (k != key && e.instances.erase(okey) > 0) touched.insert(k);
  });
  Journal(instance.kind, instance.namespace_, instance.name);
  clusters_[key].instances.insert_or_assign(std::move(okey), std::move(instance));
  for (const ClusterKey& k : touched) Changed(k);
}

void V2Store::RemoveInstance(std::string_view kind, std::string_view namespace_,
                             std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  const ObjectKey okey{std::string(kind), std::string(name)};
  std::set<ClusterKey> touched;
  ForNamespace(clusters_, namespace_, [&](const ClusterKey& k, Entry& e) {
    if (e.instances.erase(okey) > 0) touched.insert(k);
  });
  if (!touched.empty()) Journal(kind, std::string(namespace_), name);
  for (const ClusterKey& k : touched) Changed(k);
}

void V2Store::ReplaceGroups(std::string_view kind, std::string_view scope,
                            std::vector<v2::Group> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<ClusterKey> touched;
  ForNamespace(clusters_, scope, [&](const ClusterKey& key, Entry& e) {
    for (auto it = e.groups.begin(); it != e.groups.end();) {
      if (it->first.first == kind) {
        it = e.groups.erase(it);
        touched.insert(key);
      } else {
        ++it;
      }
    }
  });
  for (v2::Group& g : listed) {
    if (g.kind != kind || !InScope(scope, g.namespace_)) continue;
    ClusterKey key = g.Key();
    ObjectKey okey{g.kind, g.name};
    clusters_[key].groups.insert_or_assign(std::move(okey), std::move(g));
    touched.insert(key);
  }
  for (const ClusterKey& key : touched) Changed(key);
}

void V2Store::UpsertGroup(v2::Group group) {
  std::lock_guard<std::mutex> lock(mu_);
  ClusterKey key = group.Key();
  ObjectKey okey{group.kind, group.name};
  clusters_[key].groups.insert_or_assign(std::move(okey), std::move(group));
  Changed(key);
}

void V2Store::RemoveGroup(std::string_view kind, std::string_view namespace_,
                          std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  const ObjectKey okey{std::string(kind), std::string(name)};
  std::set<ClusterKey> touched;
  ForNamespace(clusters_, namespace_, [&](const ClusterKey& k, Entry& e) {
    if (e.groups.erase(okey) > 0) touched.insert(k);
  });
  for (const ClusterKey& k : touched) Changed(k);
}

std::optional<InstanceReadiness> V2Store::InstanceOf(const ClusterKey& cluster,
                                                     std::string_view component,
                                                     std::string_view name) const {
  const v2::Kind* kind = nullptr;
  for (const auto& k : v2::Kinds()) {
    if (k.component == component) kind = &k;
  }
  if (kind == nullptr) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto c = clusters_.find(cluster);
  if (c == clusters_.end()) return std::nullopt;
  auto it =
      c->second.instances.find(ObjectKey{std::string(kind->instance_kind), std::string(name)});
  if (it == c->second.instances.end()) return std::nullopt;
  InstanceReadiness r;
  r.kind = it->second.kind;
  const bool planned = InstancePlanOf(it->second, &r);
  if (!it->second.ready) return planned ? std::optional<InstanceReadiness>(r) : std::nullopt;
  r.ready = it->second.ready->status;
  r.reason = it->second.ready->reason;
  r.since = it->second.ready->last_transition;
  return r;
}

v2::ClusterFacts V2Store::FactsFor(const ClusterKey& cluster) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clusters_.find(cluster);
  return it == clusters_.end() ? v2::ClusterFacts{} : it->second.facts;
}

std::map<ClusterKey, std::string> V2Store::PdUrls() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<ClusterKey, std::string> out;
  for (const auto& [key, e] : clusters_) {
    if (e.cluster && !e.cluster->pd_url.empty()) out.emplace(key, e.cluster->pd_url);
  }
  return out;
}

size_t V2Store::Count(std::string_view kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [key, e] : clusters_) {
    if (kind == "Cluster") {
      n += e.cluster ? 1 : 0;
      continue;
    }
    for (const auto& [k, i] : e.instances) n += k.first == kind ? 1 : 0;
    for (const auto& [k, g] : e.groups) n += k.first == kind ? 1 : 0;
  }
  return n;
}

}  // namespace podwait
