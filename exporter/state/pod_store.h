#pragma once

// The pods the exporter knows, by namespace/name. Written by the pod
// source (one reflector thread per watched namespace), read by the evaluator and the JSON view.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "exporter/model/types.h"
#include "exporter/state/change_journal.h"

namespace podwait {

class EventStore;

using PodPtr = std::shared_ptr<const PodRecord>;

// The TiDB clusters of the watched pods: every cluster (namespace + cluster label) that has at
// least one pod of a TiDB cluster (PodOwner::kTidbCluster: not a TidbMonitor's, a DMCluster's, a
// discovery's), with its number of Ready PD pods (IsReadyPdPod; the readiness fallback when the
// PD API cannot be reached).
using PodClusters = std::map<ClusterKey, int>;

// What changed since a version (see PodStore::ChangesSince).
struct PodChanges {
  uint64_t version = 0;  // the store's version this answer is current to
  bool full = false;     // `since` was too old: `upserted` holds every pod, `deleted` is empty
  std::vector<PodPtr> upserted;  // added or modified (or all, when full)
  struct Deleted {
    std::string uid, namespace_, name;
  };
  std::vector<Deleted> deleted;
};

// Thread-safe. Records are immutable once stored (shared_ptr<const PodRecord>), so snapshots are
// cheap: the lock is held only to copy pointers, never while a reader works on the records.
// Every change bumps a monotonically increasing version; each record remembers the version that
// last changed it, and deletions leave a bounded trail of tombstones, so a reader can ask for
// the changes since the version it saw last.
//
// Event clean-up: when a pod leaves the store (Delete, or dropped by Replace), the store tells
// the EventStore given to the constructor (if any) to forget that pod's events. Events whose pod
// never shows up are pruned by EventStore::Prune (the event source calls it).
class PodStore {
 public:
  // `events` may be nullptr; it must outlive the store.
  explicit PodStore(EventStore* events = nullptr, size_t max_tombstones = 8192);
  PodStore(const PodStore&) = delete;
  PodStore& operator=(const PodStore&) = delete;

  // Adds or replaces a pod. A different pod with the same namespace/name (an earlier incarnation
  // whose deletion was missed) is removed. A record whose resourceVersion equals the stored one is
  // not a change.
  void Upsert(PodPtr pod);
  void Upsert(PodRecord pod) { Upsert(std::make_shared<const PodRecord>(std::move(pod))); }
  // Removes a pod by namespace/name; a non-empty uid must match too (a DELETED event of an earlier
  // incarnation does not remove the current one). With an empty name, by uid (a scan: O(n)).
  // Returns whether it was there. With a `source`, only a record of that source
  // (PodRecord::source) is removed: a pod that moved from one pod reflector to the other is not
  // deleted by the late DELETED of the first.
  bool Delete(std::string_view uid, std::string_view namespace_, std::string_view name,
              std::optional<uint8_t> source = std::nullopt);
  // Makes the pods of one namespace (namespace_scope; "" means every namespace) exactly `pods`:
  // pods of that scope not in `pods` are deleted, the others upserted. Pods of other namespaces
  // are untouched (one reflector per namespace each replaces only its own); with a `source`, so
  // are pods of other sources.
  void Replace(std::vector<PodPtr> pods, std::string_view namespace_scope = {},
               std::optional<uint8_t> source = std::nullopt);

  PodPtr Get(std::string_view namespace_, std::string_view name) const;
  // A scan (O(n)): for tests and debugging, not for hot paths.
  PodPtr GetByUid(std::string_view uid) const;
  bool Contains(std::string_view namespace_, std::string_view name) const;
  size_t Size() const;
  uint64_t Version() const;

  // Every pod, in no particular order. *version (optional) receives the matching version.
  std::vector<PodPtr> Snapshot(uint64_t* version = nullptr) const;
  // Pods changed and deleted after version `since` (0: everything, as a full answer).
  PodChanges ChangesSince(uint64_t since) const;
  // The clusters of the stored pods, kept up to date as pods change (no scan).
  PodClusters Clusters() const;

 private:
  struct Tombstone {
    uint64_t version;
    PodChanges::Deleted pod;
  };
  // One index, by namespace/name (a name belongs to one pod at a time): at 100,000 pods every
  // byte per pod counts, so the entry holds the record and the key is read from the record itself
  // (heterogeneous lookup by NameKey). `version` is the store version that last changed the entry.
  struct Entry {
    mutable PodPtr pod;
    mutable uint64_t version = 0;
  };
  struct NameKey {
    std::string_view namespace_, name;
  };
  struct EntryHash {
    using is_transparent = void;
    size_t operator()(const NameKey& k) const noexcept {
      return std::hash<std::string_view>()(k.namespace_) * 31 +
             std::hash<std::string_view>()(k.name);
    }
    size_t operator()(const Entry& e) const noexcept {
      return (*this)(NameKey{e.pod->namespace_, e.pod->name});
    }
  };
  struct EntryEq {
    using is_transparent = void;
    static NameKey Key(const NameKey& k) { return k; }
    static NameKey Key(const Entry& e) { return NameKey{e.pod->namespace_, e.pod->name}; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const noexcept {
      const NameKey ka = Key(a), kb = Key(b);
      return ka.name == kb.name && ka.namespace_ == kb.namespace_;
    }
  };
  using Index = std::unordered_set<Entry, EntryHash, EntryEq>;

  // REQUIRES: mu_ held. Appends the removed pod's (uid, namespace, name) for event clean-up.
  void EraseLocked(Index::iterator it, std::vector<PodChanges::Deleted>* removed);
  void UpsertLocked(PodPtr pod, std::vector<PodChanges::Deleted>* removed);
  void ForgetEvents(const std::vector<PodChanges::Deleted>& removed);
  // REQUIRES: mu_ held. Records an upsert at the current version.
  void Journal(const PodRecord& pod);
  // REQUIRES: mu_ held. Adds (+1) or removes (-1) a pod's share of clusters_.
  void CountLocked(const PodRecord& pod, int sign);

  EventStore* const events_;
  const size_t max_tombstones_;
  mutable std::mutex mu_;
  Index pods_;
  std::deque<Tombstone> tombstones_;
  // Upserts by namespace/name: ChangesSince reads them instead of scanning every pod.
  ChangeJournal<PodChanges::Deleted> upserts_;
  struct ClusterCounts {
    int pods = 0;
    int ready_pd_pods = 0;
  };
  std::map<ClusterKey, ClusterCounts> clusters_;
  uint64_t version_ = 0;
  uint64_t trail_start_ = 0;  // ChangesSince(v) is exact for v >= trail_start_
};

}  // namespace podwait
