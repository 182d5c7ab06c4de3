#include "exporter/common/label_values.h"

#include <array>

namespace podwait {

namespace {
constexpr std::array<std::string_view, 10> kKnownStoreStates = {
    "Up",        "Disconnected", "Down",     "Offline", "Tombstone",
    "Preparing", "Serving",      "Removing", "Removed", "Unknown"};
}  // namespace

std::span<const std::string_view> StoreStateLabels() { return kKnownStoreStates; }

std::string_view StoreStateLabel(std::string_view state) {
  for (std::string_view known : kKnownStoreStates) {
    if (state == known) return known;
  }
  return "other";
}

bool IsDns1123Label(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : name) {
    if (!alnum(c) && c != '-') return false;
  }
  return alnum(name.front()) && alnum(name.back());
}

}  // namespace podwait
