#include "exporter/model/autoscalers.h"

namespace podwait {

// The table lists every kind once, in enum order: InfoOf indexes it.
static_assert([] {
  for (size_t i = 0; i < kAutoscalers.size(); ++i) {
    if (static_cast<size_t>(kAutoscalers[i].kind) != i + 1) return false;
  }
  return true;
}());

const AutoscalerInfo* FindAutoscaler(std::string_view name) {
  for (const AutoscalerInfo& a : kAutoscalers) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string AutoscalerNames() {
  std::string out;
  for (const AutoscalerInfo& a : kAutoscalers) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

}  // namespace podwait
