#include "exporter/classify/classifier.h"

#include <algorithm>

#include "exporter/classify/classifier_input.h"
#include "exporter/classify/initializing.h"
#include "exporter/classify/planned.h"
#include "exporter/classify/starting.h"
#include "exporter/classify/unscheduled.h"

namespace podwait {
namespace {

using rules::Context;
using rules::IsTrue;

Classification ClassifyWaitingPod(Context& ctx, std::span<const EventRecord> events) {
  const PodRecord& pod = ctx.pod;
  for (const auto& e : events) {
    // Events of an earlier pod with the same name (a StatefulSet pod deleted and re-created).
    if (!pod.uid.empty() && !e.pod_uid.empty() && e.pod_uid != pod.uid) continue;
    if (pod.created != 0 && e.last != 0 && e.last < pod.created) continue;
    ctx.events.push_back(&e);
  }
  std::stable_sort(ctx.events.begin(), ctx.events.end(),
                   [](const EventRecord* a, const EventRecord* b) { return a->last < b->last; });

  const PodCondition* scheduled = pod.Condition("PodScheduled");
  const PodCondition* initialized = pod.Condition("Initialized");
  auto or_created = [&](Timestamp t) { return t != 0 ? t : pod.created; };

  if (!IsTrue(scheduled)) return rules::ClassifyUnscheduled(ctx, pod.created);
  if (!IsTrue(initialized))
    return rules::ClassifyInitializing(ctx, or_created(scheduled->last_transition));
  Timestamp start = initialized->last_transition;
  if (const PodCondition* ready = pod.Condition("Ready"))
    start = std::max(start, ready->last_transition);
  return rules::ClassifyStarting(ctx, or_created(start));
}

}  // namespace

Classification Classify(const PodRecord& pod, std::span<const EventRecord> events,
                        const ClusterDependencies* deps, const AutoscalerState& autoscaler,
                        const ClassifierOptions& options, Timestamp now,
                        const InstanceReadiness* instance, const PodVolumeFacts* volumes) {
  using rules::NotWaiting;
  if (pod.deleted != 0) return NotWaiting("being deleted");
  if (pod.phase == PodPhase::kSucceeded) return NotWaiting("Succeeded");
  // A Failed pod is not waiting (a StatefulSet, tidb-operator v1's, deletes and re-creates it)
  // unless it is a v2 instance's whose instance is Ready=False: v2 never re-creates it.
  const bool failed_v2 = pod.phase == PodPhase::kFailed && instance != nullptr &&
                         instance->ready == ConditionStatus::kFalse;
  if (pod.phase == PodPhase::kFailed && !failed_v2) return NotWaiting("Failed");
  Context ctx{pod, {}, deps, autoscaler, options, now, volumes};
  Classification c;
  if (failed_v2) {
    c = rules::ClassifyFailedV2Pod(ctx, *instance);
  } else if (pod.IsReady()) {
    if (instance == nullptr || !InstanceHoldsBackReadyPod(*instance)) return NotWaiting("Ready");
    c = rules::ClassifyInstanceNotReady(ctx, *instance);
  } else {
    c = ClassifyWaitingPod(ctx, events);
    // The operator's word on the instance of a pod that is not Ready: evidence, never the class
    // (the pod's own state says more).
    if (c.waiting && instance != nullptr && instance->ready == ConditionStatus::kFalse) {
      c.evidence = rules::Cut(c.evidence + "; " + rules::InstanceEvidence(*instance));
    }
  }
  if (auto plan = c.waiting ? rules::PlanOf(ctx, instance) : std::nullopt) {
    rules::ApplyPlan(ctx, *plan, &c);
  }
  c.recheck_at = ctx.recheck_at;
  return c;
}

}  // namespace podwait
