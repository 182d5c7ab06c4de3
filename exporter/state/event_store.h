#pragma once

// Recent events about pods (scheduler, cluster-autoscaler, Karpenter), bounded per pod.
// Written by the event source, read by the evaluator.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/model/types.h"
#include "exporter/state/change_journal.h"

namespace podwait {

struct EventStoreOptions {
  // Per pod, at most one event per (reason, source) — the latest — and at most this many in all
  // (the oldest by `last` goes first).
  size_t max_per_pod = 8;
  // Pods tracked at most; events about further pods are dropped (counted in dropped()).
  size_t max_pods = 200'000;
  // Prune() drops the events of pods that are unknown to the pod store once their newest event
  // is older than this (events can arrive before their pod; events of pods outside the pod
  // selector are never claimed).
  Timestamp orphan_grace = 5 * kMinute;
};

// Thread-safe; every call takes one short lock. Events are keyed by the pod's namespace/name; an
// event carries the pod's uid, so EventsFor() can leave out events about an earlier pod that had
// the same name.
//
// Lifetime of a pod's events: PodStore calls ForgetPod() when the pod is deleted; the event source
// calls Prune() for pods that never appear; DELETED watch events (the API server's event TTL)
// remove single events.
class EventStore {
 public:
  explicit EventStore(EventStoreOptions options = {});
  EventStore(const EventStore&) = delete;
  EventStore& operator=(const EventStore&) = delete;

  // Adds or updates an event (by its uid, else by its pod + reason + source).
  void Add(EventRecord event);
  // Removes one event (a DELETED watch event).
  void Remove(const EventRecord& event);
  // Makes the events of one namespace ("" = all) exactly `events` (after a list or relist).
  void Replace(std::vector<EventRecord> events, std::string_view namespace_scope = {});
  // Drops a pod's events: those whose pod_uid is `uid` or empty (all of them when uid is empty).
  void ForgetPod(std::string_view namespace_, std::string_view name, std::string_view uid = {});
  // Drops the events of pods for which pod_known(namespace, name) is false and whose newest event
  // is older than orphan_grace at `now`. Returns how many pods' events were dropped.
  // pod_known is called under this store's lock: it must not call back into this store.
  size_t Prune(const std::function<bool(std::string_view, std::string_view)>& pod_known,
               Timestamp now);

  // The events of a pod, newest first. With a uid, events that name another pod uid are left out.
  std::vector<EventRecord> EventsFor(std::string_view namespace_, std::string_view name,
                                     std::string_view uid = {}) const;
  size_t PodCount() const;
  size_t EventCount() const;
  // The newest `last` time of any event written by that autoscaler (EventAutoscalerKind) that
  // this store was given, even if the event was dropped or removed since; 0 if none. Autoscaler
  // presence is judged from it (docs/DESIGN.md §4: "CA/Karpenter events seen recently").
  Timestamp LastAutoscalerEvent(AutoscalerKind kind) const;
  // The same for every autoscaler kind at once (AutoscalerSignals::last_event).
  PerAutoscaler<Timestamp> LastAutoscalerEvents() const;
  uint64_t Version() const;
  uint64_t dropped() const;
  // The pods (namespace, name) whose events changed after version `since`, and the version this
  // answer is current to. False when the store's record no longer reaches back to `since`: the
  // reader must look at every pod.
  bool ChangedPodsSince(uint64_t since, std::vector<PodName>* pods, uint64_t* version) const;

 private:
  void AddLocked(EventRecord event);
  // REQUIRES: mu_ held. A change of one pod's events: a new version, recorded.
  void Touch(std::string_view namespace_, std::string_view name);

  const EventStoreOptions opts_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<EventRecord>> by_pod_;  // "namespace/name"
  size_t events_ = 0;
  uint64_t version_ = 0;
  ChangeJournal<PodName> journal_{16384};
  uint64_t dropped_ = 0;
  PerAutoscaler<Timestamp> last_autoscaler_event_;  // 0: none seen
};

}  // namespace podwait
