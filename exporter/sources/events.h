#pragma once

// Events about pods: the pure parser from a core/v1 Event (or an events.k8s.io/v1 Event) to the
// compact EventRecord, and the reflector handler that keeps the EventStore current.

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/types.h"
#include "exporter/sources/reflector_options.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"

namespace podwait {

// The event reasons classification uses; events with other reasons are not kept.
//  - FailedScheduling: default-scheduler ("0/3 nodes are available: ...") and Karpenter
//    ("Failed to schedule pod, incompatible with nodepool ...").
//  - Scheduled: the scheduler bound the pod (closes an unscheduled stage).
//  - TriggeredScaleUp / NotTriggerScaleUp: cluster-autoscaler's decision for the pod.
//  - Nominated (Karpenter v0.32+, "Pod should schedule on: nodeclaim/x") and NominatedMachine
//    (the v1alpha5 Machine era): Karpenter is provisioning capacity for the pod.
//  - Preempted: the pod lost its node to a higher-priority pod.
//  - NominatePod / Nominate: Karpenter before v0.20 (NormalizeEvent makes them Nominated).
//  - FailedAttachVolume (the attach-detach controller: multi-attach, attach errors), FailedMount
//    (the kubelet's volume manager: mount timeouts and errors), FailedCreatePodSandBox (the
//    kubelet: CNI and runtime errors; pkg/kubelet/events/event.go): the `volume` class.
// Pod-creation failures (FailedCreate) are reported on the StatefulSet, not the pod, so a
// pod-scoped event watch never sees them.
inline constexpr std::string_view kRelevantEventReasons[] = {
    "FailedScheduling", "Scheduled",          "TriggeredScaleUp", "NotTriggerScaleUp",
    "Nominated",        "NominatedMachine",   "Preempted",        "NominatePod",
    "Nominate",         "FailedAttachVolume", "FailedMount",      "FailedCreatePodSandBox",
};
bool IsRelevantEventReason(std::string_view reason);

struct EventParseOptions {
  size_t max_message_bytes = 1024;
  // When set, times more than an hour after `now` are taken as `now` (NotInTheFuture).
  Timestamp now = 0;
};

struct ParsedEvent {
  EventRecord event;
  bool relevant = false;  // about a Pod, and a reason in kRelevantEventReasons
};

// Pure. Reads both shapes: core/v1 (involvedObject, message, source.component or
// reportingComponent, firstTimestamp/lastTimestamp/count, eventTime, series) and events.k8s.io/v1
// (regarding, note, reportingController, deprecated* fields, eventTime, series).
// first = firstTimestamp, else eventTime, else creationTimestamp; last = the latest of
// lastTimestamp, series.lastObservedTime and eventTime (else first); count = series.count, else
// count, else 1. The record then goes through NormalizeEvent (classify/event_normalizer.h): the
// aggregation prefix dropped, a legacy Karpenter nomination in today's form.
Result<ParsedEvent> ParseEvent(const rapidjson::Value& object,
                               const EventParseOptions& options = {});

// Pure: the message, source, times and count of an event of any object (ParseEvent's rules) into
// *event; the event's identity (uid, involved object, reason) is the caller's.
void ReadEventDetails(const rapidjson::Value& object, const EventParseOptions& options,
                      EventRecord* event);

// Keeps an EventStore current from an event reflector (fieldSelector=involvedObject.kind=Pod).
// With a pod store, events of pods unknown to it are pruned after a grace period (at each list
// end, and at most once a minute while watching). Called only from its reflector's thread.
class EventSource final : public ReflectorHandler {
 public:
  EventSource(EventStore& store, const PodStore* pods, const Clock& clock,
              std::string namespace_scope = {}, EventParseOptions options = {});

  void OnListBegin() override;
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override;
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  std::optional<size_t> ObjectCount() const override { return store_.EventCount(); }

  // Prunes now (also called internally).
  size_t Prune();

 private:
  // options_ with `now` set from the clock.
  EventParseOptions Options() const;

  EventStore& store_;
  const PodStore* const pods_;
  const Clock& clock_;
  const std::string scope_;
  const EventParseOptions options_;
  std::vector<EventRecord> staged_;
  int64_t last_prune_ms_ = 0;
};

// Reflector options for pod events: one per namespace of config.namespaces ("events/<ns>"), or
// one over all namespaces ("events"), with fieldSelector=involvedObject.kind=Pod.
std::vector<ReflectorOptions> EventReflectorOptions(const Config& config);

}  // namespace podwait
