#include "exporter/app/class_events.h"

#include "exporter/model/vocabulary.h"

namespace podwait {

PodEventNote EventNoteFor(const WaitingPod& pod, Timestamp now) {
  const Classification& c = pod.classification;
  const std::string cls(WaitClassName(c.wait_class));
  PodEventNote note;
  note.namespace_ = pod.namespace_;
  note.pod = pod.pod;
  note.pod_uid = pod.uid;
  note.type = std::string(EventType(c.wait_class));
  note.reason = EventReason(c.wait_class);
  note.note = cls + (IsExpected(c.wait_class) ? " (expected wait)" : " (needs attention)") +
              ", stage " + std::string(StageName(c.stage)) + ", reason " + c.reason;
  const std::string evidence = EvidenceText(c, now);
  if (!evidence.empty()) note.note += ": " + evidence;
  note.series_key = cls + "/" + c.reason;
  return note;
}

void ClassEvents::Observe(bool synced, const std::shared_ptr<const WaitingSnapshot>& snapshot,
                          Timestamp now) {
  if (!synced || snapshot == nullptr || snapshot == seen_) return;
  seen_ = snapshot;
  std::map<std::string, WaitClass> classes;
  for (const WaitingPod& p : snapshot->pods) {
    const std::string key = p.namespace_ + "/" + p.pod;
    classes.emplace(key, p.classification.wait_class);
    auto it = last_.find(key);
    if (it == last_.end() || it->second != p.classification.wait_class) {
      writer_.Record(EventNoteFor(p, now));
    }
  }
  last_ = std::move(classes);
}

SelfMetricsEventObserver::SelfMetricsEventObserver(SelfMetrics& metrics) : metrics_(metrics) {
  // Every series from the start, so a rate() sees the first increment.
  for (EventWriteResult r :
       {EventWriteResult::kCreated, EventWriteResult::kSeriesUpdated, EventWriteResult::kFailed}) {
    metrics_.EventsWritten(EventWriteResultName(r));
  }
  for (EventDropReason r : {EventDropReason::kPodRateLimited, EventDropReason::kQueueFull}) {
    metrics_.EventsDropped(EventDropReasonName(r));
  }
}

void SelfMetricsEventObserver::OnWritten(EventWriteResult result) {
  metrics_.EventsWritten(EventWriteResultName(result)).Increment();
}

void SelfMetricsEventObserver::OnDropped(EventDropReason reason) {
  metrics_.EventsDropped(EventDropReasonName(reason)).Increment();
}

}  // namespace podwait
