#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

// Each table is indexed by its enum: its rows must be in enum order.
template <typename Table, typename Field>
constexpr bool InEnumOrder(const Table& table, Field field) {
  for (size_t i = 0; i < std::size(table); ++i) {
    if (static_cast<size_t>(table[i].*field) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(kStages, &StageInfo::stage));
static_assert(InEnumOrder(kClasses, &ClassInfo::wait_class));
static_assert(InEnumOrder(kDependencies, &DependencyInfo::dependency));
static_assert(InEnumOrder(kDependencyReasons, &DependencyReasonInfo::reason));
static_assert(std::size(kReadinessNames) == static_cast<size_t>(Readiness::kReady) + 1);

// Every reason's classes occur in the stages they are given.
constexpr bool ReasonsHaveClasses() {
  for (const ReasonInfo& r : kReasons) {
    if (r.classes.Empty()) return false;
  }
  return true;
}
static_assert(ReasonsHaveClasses());

template <typename Table>
auto FindByName(const Table& table, std::string_view name) -> decltype(&table[0]) {
  for (const auto& row : table) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace

std::optional<Stage> ParseStage(std::string_view name) {
  const StageInfo* s = FindByName(kStages, name);
  return s == nullptr ? std::nullopt : std::optional<Stage>(s->stage);
}

std::optional<WaitClass> ParseWaitClass(std::string_view name) {
  const ClassInfo* c = FindByName(kClasses, name);
  return c == nullptr ? std::nullopt : std::optional<WaitClass>(c->wait_class);
}

const ReasonInfo* FindReason(std::string_view name) { return FindByName(kReasons, name); }

bool Allowed(Stage stage, WaitClass wait_class, std::string_view reason) {
  const ReasonInfo* r = FindReason(reason);
  return r != nullptr && r->classes.Contains(wait_class) && Info(wait_class).stages.Contains(stage);
}

std::optional<Dependency> ParseDependency(std::string_view name) {
  const DependencyInfo* d = FindByName(kDependencies, name);
  return d == nullptr ? std::nullopt : std::optional<Dependency>(d->dependency);
}

DependencyReason ParseDependencyReason(std::string_view name) {
  if (name.empty()) return DependencyReason::kNone;
  const DependencyReasonInfo* r = FindByName(kDependencyReasons, name);
  return r == nullptr ? DependencyReason::kNone : r->reason;
}

std::string EventReason(WaitClass c) {
  std::string reason = "Podwait";
  bool upper = true;
  for (char ch : WaitClassName(c)) {
    if (ch == '_') {
      upper = true;
      continue;
    }
    reason += upper && ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch;
    upper = false;
  }
  return reason;
}

}  // namespace podwait
