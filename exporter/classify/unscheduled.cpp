#include "exporter/classify/unscheduled.h"

#include <utility>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/autoscaler_evidence.h"
#include "exporter/classify/fit_verdict.h"
#include "exporter/classify/messages.h"

namespace podwait::rules {
Classification ClassifyUnscheduled(const Context& ctx, Timestamp start) {
  const PodRecord& pod = ctx.pod;
  const PodCondition* cond = pod.Condition("PodScheduled");
  const Timestamp grace = ctx.opt.decision_grace;

  if (cond != nullptr && cond->reason == "SchedulingGated") {
    return Waiting(Stage::kUnscheduled, WaitClass::kGated, r::kSchedulingGated, start,
                   "PodScheduled=False SchedulingGated" +
                       (cond->message.empty() ? std::string() : ": " + cond->message));
  }

  // The ProvisioningRequest the pod consumes says whether its wait is planned.
  if (auto c = FromProvisioningRequest(ctx, start)) return std::move(*c);

  // The scheduler's view: the condition's message, or the last FailedScheduling it wrote.
  std::string fit_message = cond != nullptr ? cond->message : "";
  if (fit_message.empty()) {
    for (const EventRecord* e : ctx.events) {
      if (e->reason == "FailedScheduling" && EventAutoscalerKind(*e) == AutoscalerKind::kNone) {
        fit_message = e->message;  // events are oldest first: the last one wins
      }
    }
  }
  FitError fit = ParseFitError(fit_message);

  // The autoscaler's view: its latest verdict on this pod decides, positive or negative.
  const EventRecord* verdict = nullptr;
  for (const EventRecord* e : ctx.events) {
    if (IsAutoscalerVerdict(*e)) verdict = e;  // oldest first: the last one is the newest
  }
  if (verdict != nullptr) {
    if (auto c = FromAutoscalerVerdict(ctx, start, fit, *verdict)) return std::move(*c);
    // A verdict we cannot read: fall through to the scheduler's view.
  }

  if (cond == nullptr || cond->status != ConditionStatus::kFalse) {
    // The scheduler has not written a verdict yet.
    std::string_view why =
        Past(ctx, pod.created, grace) ? r::kNoSchedulerDecision : r::kAwaitingDecision;
    return Waiting(Stage::kUnscheduled, WaitClass::kScheduling, why, start,
                   fit_message.empty() ? "no PodScheduled condition yet" : fit_message);
  }

  const Timestamp since = cond->last_transition != 0 ? cond->last_transition : pod.created;
  const std::string scheduler_evidence =
      "PodScheduled=False " + cond->reason + (fit_message.empty() ? "" : ": " + fit_message);
  if (ctx.autoscaler.Any() && !Past(ctx, since, grace)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kScheduling, r::kAwaitingDecision, start,
                   "unschedulable " + std::string(kAgo) + ", autoscaler has not decided; " +
                       scheduler_evidence,
                   since);
  }

  // A ResourceClaim being created or allocated: not a verdict yet.
  if (const FitReason* pending = DominantReason(fit.reasons, FitKind::kTransient)) {
    return Waiting(Stage::kUnscheduled, WaitClass::kScheduling, pending->reason, start,
                   scheduler_evidence);
  }
  std::string_view why;
  std::string mix_note;
  FitVerdict v = Judge(fit, ctx.volumes, &why, &mix_note);
  if (v == FitVerdict::kResource) {
    if (auto c = FromCaStatus(ctx, start, since, scheduler_evidence)) return std::move(*c);
  }
  if (v == FitVerdict::kResource && verdict == nullptr) {
    if (auto c = SilentAutoscaler(ctx, start, since, scheduler_evidence)) return std::move(*c);
  }
  return FromFit(start, v, why,
                 mix_note.empty() ? scheduler_evidence : mix_note + "; " + scheduler_evidence);
}

}  // namespace podwait::rules
