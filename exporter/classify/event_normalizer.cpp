#include "exporter/classify/event_normalizer.h"

#include <string>

namespace podwait {
namespace {

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Karpenter's event recorder before v0.20: reason "NominatePod" (some releases "Nominate"),
// message "Pod should schedule on <node>".
bool IsLegacyNominateReason(std::string_view reason) {
  return reason == "NominatePod" || reason == "Nominate";
}
constexpr std::string_view kLegacyNominatePrefix = "Pod should schedule on ";

}  // namespace

std::string_view StripCombinedPrefix(std::string_view message) {
  message = TrimSpaces(message);
  while (message.starts_with(kCombinedEventPrefix)) {
    message = TrimSpaces(message.substr(kCombinedEventPrefix.size()));
  }
  return message;
}

void NormalizeEvent(EventRecord* event) {
  std::string_view stripped = StripCombinedPrefix(event->message);
  if (stripped.size() != event->message.size()) event->message = std::string(stripped);

  if (IsLegacyNominateReason(event->reason)) {
    std::string_view m = event->message;
    if (m.starts_with(kLegacyNominatePrefix)) {
      std::string_view node = TrimSpaces(m.substr(kLegacyNominatePrefix.size()));
      // The current forms carry a colon ("on: nodeclaim/x", "on node: x"); only the legacy
      // "on <node>" is rewritten.
      if (!node.empty() && node.find(':') == std::string_view::npos &&
          node.find(' ') == std::string_view::npos) {
        event->message = "Pod should schedule on node: " + std::string(node);
      }
    }
    event->reason = "Nominated";
  }
}

}  // namespace podwait
