#pragma once

// --events.write: one Event on a pod each time podwait sees it in a new class (docs/DESIGN.md
// §8, "Events"), so `kubectl describe pod` shows the verdict next to the scheduler's and the
// autoscaler's. The writer (kube/event_writer.h) deduplicates, rate-limits and sends them.

#include <map>
#include <memory>
#include <string>

#include "exporter/kube/event_writer.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/model/waiting.h"

namespace podwait {

// The PodEventNote for a waiting pod as seen at `now` (reason and type: EventReason and
// EventType of model/vocabulary.h): the note says the class, whether it is
// expected, the reason and the evidence; the series key is the class and the reason.
PodEventNote EventNoteFor(const WaitingPod& pod, Timestamp now);

// Fed after every evaluation, from the evaluation thread only: records an Event for each pod
// whose class is not the one it had in the previous snapshot (a pod seen waiting for the first
// time included; a pod that stops waiting is forgotten, so waiting again is a change).
class ClassEvents {
 public:
  explicit ClassEvents(EventWriter& writer) : writer_(writer) {}
  // Classes while a source is still listing are not news: nothing is recorded until `synced`.
  void Observe(bool synced, const std::shared_ptr<const WaitingSnapshot>& snapshot, Timestamp now);

 private:
  EventWriter& writer_;
  std::shared_ptr<const WaitingSnapshot> seen_;
  std::map<std::string, WaitClass> last_;  // namespace/pod -> class
};

// Counts the writer's results in podwait_events_written_total and podwait_events_dropped_total.
class SelfMetricsEventObserver final : public EventWriterObserver {
 public:
  explicit SelfMetricsEventObserver(SelfMetrics& metrics);
  void OnWritten(EventWriteResult result) override;
  void OnDropped(EventDropReason reason) override;

 private:
  SelfMetrics& metrics_;
};

}  // namespace podwait
