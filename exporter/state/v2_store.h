#pragma once

// The tidb-operator v2 objects the exporter knows (core.pingcap.com/v1alpha1), as facts only
// (model/v2.h), never the documents: Clusters, instances and groups, by cluster
// (ClusterKey{namespace, spec.cluster.name}). Written by the v2 sources (one reflector per
// resource, over all namespaces or one per watched namespace), read by the PD targets (status.pd),
// the evaluation (a pod's instance) and the dependency store (through the listener).
//
// Replace semantics as TidbClusterStore: a (re)list of one resource in one namespace scope
// replaces exactly that resource's objects of that scope; other resources and namespaces keep
// theirs.

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "exporter/model/v2.h"
#include "exporter/state/change_journal.h"

namespace podwait {

// A planned wait of the instance itself (TiKV's LeadersEvicted, a store's Offlined): sets
// out->plan_* and returns true, else leaves them and returns false. Pure.
bool InstancePlanOf(const v2::Instance& instance, InstanceReadiness* out);

// Thread-safe. The listener is called, in order and one at a time, under the store's lock, with
// every cluster whose facts changed (keep it short; it must not call back into the store).
class V2Store {
 public:
  using Listener = std::function<void(const ClusterKey&, const v2::ClusterFacts&)>;

  V2Store() = default;
  V2Store(const V2Store&) = delete;
  V2Store& operator=(const V2Store&) = delete;

  // REQUIRES: set before the first update.
  void SetListener(Listener listener);

  // Clusters. namespace_scope "" means every namespace.
  void ReplaceClusters(std::string_view namespace_scope, std::vector<v2::Cluster> listed);
  void UpsertCluster(v2::Cluster cluster);
  void RemoveCluster(std::string_view namespace_, std::string_view name);
  // Instances of one kind (instance_kind: PD, TiKV, ...).
  void ReplaceInstances(std::string_view kind, std::string_view namespace_scope,
                        std::vector<v2::Instance> listed);
  void UpsertInstance(v2::Instance instance);
  void RemoveInstance(std::string_view kind, std::string_view namespace_, std::string_view name);
  // Groups of one kind (group_kind: PDGroup, ...).
  void ReplaceGroups(std::string_view kind, std::string_view namespace_scope,
                     std::vector<v2::Group> listed);
  void UpsertGroup(v2::Group group);
  void RemoveGroup(std::string_view kind, std::string_view namespace_, std::string_view name);

  // The Ready condition and planned wait (InstancePlanOf) of the instance of that component and
  // name in that cluster, or nullopt when the instance is unknown (or has neither yet).
  std::optional<InstanceReadiness> InstanceOf(const ClusterKey& cluster, std::string_view component,
                                              std::string_view name) const;
  v2::ClusterFacts FactsFor(const ClusterKey& cluster) const;
  // Every cluster's non-empty status.pd.
  std::map<ClusterKey, std::string> PdUrls() const;
  // Objects held of a kind (Cluster, an instance kind or a group kind).
  size_t Count(std::string_view kind) const;
  // The pods (namespace, name) whose instance changed after version `since`, and the version this
  // answer is current to. False when the record no longer reaches back to `since`: the reader
  // must look at every pod.
  bool ChangedPodsSince(uint64_t since, std::vector<PodName>* pods, uint64_t* version) const;

 private:
  // (kind, name)
  using ObjectKey = std::pair<std::string, std::string>;
  struct Entry {
    std::optional<v2::Cluster> cluster;
    std::map<ObjectKey, v2::Instance, std::less<>> instances;
    std::map<ObjectKey, v2::Group, std::less<>> groups;
    v2::ClusterFacts facts;  // as last told to the listener
    bool Empty() const { return !cluster && instances.empty() && groups.empty(); }
  };

  // REQUIRES: mu_ held. Recomputes the facts of `key`, tells the listener when they changed and
  // drops the entry when it holds nothing.
  void Changed(const ClusterKey& key);
  static v2::ClusterFacts Compute(const Entry& e);
  static bool InScope(std::string_view namespace_scope, const std::string& namespace_) {
    return namespace_scope.empty() || namespace_scope == namespace_;
  }

  // REQUIRES: mu_ held. Records that the pod of an instance may read it differently now.
  void Journal(std::string_view kind, const std::string& namespace_, std::string_view name);

  mutable std::mutex mu_;
  std::map<ClusterKey, Entry> clusters_;
  uint64_t version_ = 0;
  ChangeJournal<PodName> journal_{16384};
  Listener listener_;
};

}  // namespace podwait
