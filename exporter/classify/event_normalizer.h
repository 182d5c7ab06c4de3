#pragma once

// One pass over an event before any message parser reads it: the forms the event pipeline
// itself rewrites, and an older Karpenter's wording, brought back to the forms the parsers in
// messages.h know. Pure; never throws.
//
//  - client-go's event correlator (k8s.io/client-go/tools/record/events_cache.go,
//    EventAggregator) replaces the message of an event once a source has written about ten
//    differently worded events of one reason about one object within ten minutes: the message
//    becomes "(combined from similar events): <the newest message>". The cluster-autoscaler's
//    NotTriggerScaleUp text changes its group counts on every loop, and Karpenter's
//    FailedScheduling text varies too, so a pod that waits longer than about ten minutes carries
//    this form. The prefix is dropped; the rest is the newest verdict.
//  - The newest verdict's time is the aggregate's last observation (lastTimestamp,
//    series.lastObservedTime), not its first: ParseEvent (sources/events.h) reads it so.
//  - Karpenter before v0.20 wrote reason "NominatePod" (some releases "Nominate") with "Pod
//    should schedule on <node>" (no colon): it becomes reason "Nominated" with "Pod should schedule
//    on node: <node>", the form of the v1alpha5 releases that followed.

#include <string_view>

#include "exporter/model/types.h"

namespace podwait {

// The prefix client-go's EventAggregator puts before the newest message.
inline constexpr std::string_view kCombinedEventPrefix = "(combined from similar events): ";

// The message without the aggregation prefix (any number of times, surrounding spaces trimmed).
std::string_view StripCombinedPrefix(std::string_view message);

// Rewrites `event` in place into the form the parsers read (see above). Idempotent.
void NormalizeEvent(EventRecord* event);

}  // namespace podwait
