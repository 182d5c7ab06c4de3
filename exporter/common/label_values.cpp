#include "exporter/common/label_values.h"

#include <array>

namespace podwait {

std::string_view StoreStateLabel(std::string_view state) {
  static constexpr std::array<std::string_view, 10> kKnown = {
      "Up",        "Disconnected", "Down",     "Offline", "Tombstone",
      "Preparing", "Serving",      "Removing", "Removed", "Unknown"};
  for (std::string_view known : kKnown) {
    if (state == known) return known;
  }
  return "other";
}

}  // namespace podwait
