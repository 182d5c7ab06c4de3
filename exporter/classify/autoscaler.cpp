#include "exporter/classify/autoscaler.h"

#include <algorithm>
#include <span>

#include "exporter/classify/messages.h"

namespace podwait {
namespace {

bool Recent(Timestamp last, Timestamp now, Timestamp recent) {
  // A timestamp from the future (clock skew between the API server and us) counts as recent.
  return last != 0 && now - last <= recent;
}

bool In(std::string_view s, std::span<const std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool StartsWithAny(std::string_view s, std::span<const std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return s.starts_with(p); });
}

// Karpenter writes its own FailedScheduling events; the scheduler's never start like this.
bool KarpenterFailedToSchedule(const EventRecord& e) {
  return e.reason == "FailedScheduling" && e.message.starts_with("Failed to schedule pod, ");
}

// A nomination counts only in a form we can read (it names what the pod waits for).
bool KarpenterVerdictReadable(const EventRecord& e) {
  return e.reason == "FailedScheduling" || ParseKarpenterNominated(e.message).has_value();
}

// The parsers and rules of one autoscaler, next to its data row in model/autoscalers.h.
struct AutoscalerRules {
  AutoscalerKind kind;
  // Recognizes its events that neither their reason nor their source gives away; may be null.
  bool (*also_wrote)(const EventRecord&);
  // Whether an event with one of its verdict reasons is readable as a verdict; null: always.
  bool (*verdict_readable)(const EventRecord&);
};

constexpr AutoscalerRules kRules[] = {
    {AutoscalerKind::kClusterAutoscaler, nullptr, nullptr},
    {AutoscalerKind::kKarpenter, KarpenterFailedToSchedule, KarpenterVerdictReadable},
};
static_assert(std::size(kRules) == kAutoscalers.size(), "one rule row per autoscaler");

const AutoscalerRules& RulesOf(AutoscalerKind kind) {
  return kRules[static_cast<size_t>(kind) - 1];
}

bool Wrote(const AutoscalerInfo& a, const EventRecord& e) {
  if (In(e.reason, a.event_reasons) || In(e.source, a.event_sources) ||
      StartsWithAny(e.source, a.event_source_prefixes)) {
    return true;
  }
  const AutoscalerRules& rules = RulesOf(a.kind);
  return rules.also_wrote != nullptr && rules.also_wrote(e);
}

}  // namespace

std::optional<AutoscalerMode> ParseAutoscalerMode(std::string_view flag) {
  if (flag == "auto") return AutoscalerMode::kAuto;
  if (flag == "none") return AutoscalerMode::kNone;
  if (const AutoscalerInfo* a = FindAutoscaler(flag)) return AutoscalerMode::Forced(a->kind);
  return std::nullopt;
}

void DetectAutoscaler(AutoscalerMode mode, const AutoscalerSignals& signals, Timestamp now,
                      AutoscalerState* state, Timestamp recent) {
  state->forced_none = mode.how == AutoscalerMode::How::kNone;
  for (const AutoscalerInfo& a : kAutoscalers) {
    bool& detected = state->detected[a.kind];
    switch (mode.how) {
      case AutoscalerMode::How::kNone:
        detected = false;
        break;
      case AutoscalerMode::How::kForced:
        detected = mode.forced == a.kind;
        break;
      case AutoscalerMode::How::kAuto:
        // A status object alone counts: only its autoscaler writes it. (An uninstalled CA leaves
        // its ConfigMap behind; --autoscaler=none is the way out for such clusters.)
        detected = signals.status_object[a.kind] || Recent(signals.last_event[a.kind], now, recent);
        break;
    }
  }
}

AutoscalerKind EventAutoscalerKind(const EventRecord& e) {
  for (const AutoscalerInfo& a : kAutoscalers) {
    if (Wrote(a, e)) return a.kind;
  }
  return AutoscalerKind::kNone;
}

bool IsAutoscalerVerdict(const EventRecord& e) {
  AutoscalerKind k = EventAutoscalerKind(e);
  if (k == AutoscalerKind::kNone || !In(e.reason, InfoOf(k).verdict_reasons)) return false;
  const AutoscalerRules& rules = RulesOf(k);
  return rules.verdict_readable == nullptr || rules.verdict_readable(e);
}

}  // namespace podwait
