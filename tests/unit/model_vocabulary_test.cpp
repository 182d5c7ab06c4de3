// The vocabulary tables: names round-trip, every reason goes with classes that exist, and the
// dependency reasons map onto the pod reasons the label vocabulary has.

#include <gtest/gtest.h>

#include <set>

#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

TEST(Vocabulary, NamesRoundTrip) {
  for (const StageInfo& s : kStages) EXPECT_EQ(ParseStage(s.name), s.stage);
  for (const ClassInfo& c : kClasses) EXPECT_EQ(ParseWaitClass(c.name), c.wait_class);
  for (const DependencyInfo& d : kDependencies) EXPECT_EQ(ParseDependency(d.name), d.dependency);
  for (const DependencyReasonInfo& r : kDependencyReasons) {
    EXPECT_EQ(ParseDependencyReason(r.name), r.reason);
  }
  EXPECT_EQ(ParseStage("pending"), std::nullopt);
  EXPECT_EQ(ParseWaitClass("Capacity"), std::nullopt);
  EXPECT_EQ(ParseDependencyReason("no such reason"), DependencyReason::kNone);
}

TEST(Vocabulary, ReasonsAreUniqueAndSnakeCase) {
  std::set<std::string_view> seen;
  for (const ReasonInfo& r : kReasons) {
    EXPECT_TRUE(seen.insert(r.name).second) << r.name;
    for (char c : r.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_') << r.name;
    EXPECT_FALSE(r.classes.Empty()) << r.name;
  }
  EXPECT_EQ(FindReason("insufficient_cpu")->name, reason::kInsufficientCpu);
  EXPECT_EQ(FindReason("Insufficient cpu"), nullptr);
}

TEST(Vocabulary, AllowedChecksReasonClassAndStageTogether) {
  EXPECT_TRUE(Allowed(Stage::kUnscheduled, WaitClass::kCapacity, reason::kInsufficientCpu));
  EXPECT_FALSE(Allowed(Stage::kUnscheduled, WaitClass::kScaleUp, reason::kInsufficientCpu));
  EXPECT_FALSE(Allowed(Stage::kStarting, WaitClass::kCapacity, reason::kInsufficientCpu));
  EXPECT_TRUE(Allowed(Stage::kInitializing, WaitClass::kDependencyStuck, reason::kDependencyReady));
  // Unknown readiness is never a dependency wait.
  EXPECT_FALSE(Allowed(Stage::kStarting, WaitClass::kDependency, reason::kDependencyUnknown));
  EXPECT_TRUE(Allowed(Stage::kStarting, WaitClass::kNotReady, reason::kDependencyUnknown));
  EXPECT_FALSE(Allowed(Stage::kInitializing, WaitClass::kNotReady, reason::kReadinessProbe));
  EXPECT_FALSE(Allowed(Stage::kStarting, WaitClass::kStarting, "made_up"));
}

TEST(Vocabulary, ExpectedClasses) {
  std::set<std::string_view> expected;
  for (const ClassInfo& c : kClasses) {
    if (c.expected) expected.insert(c.name);
  }
  EXPECT_EQ(expected, (std::set<std::string_view>{"dependency", "scale_up", "gated", "scheduling",
                                                  "starting", "planned"}));
}

TEST(Vocabulary, DependencyReasonsMapOntoPodReasons) {
  EXPECT_EQ(PodReasonFor(Dependency::kPd, DependencyReason::kNoPdLeader), reason::kNoPdLeader);
  // Facts the label vocabulary has no reason of its own for take the dependency's.
  EXPECT_EQ(PodReasonFor(Dependency::kPd, DependencyReason::kPdUnhealthyMajority),
            reason::kPdNotReady);
  EXPECT_EQ(PodReasonFor(Dependency::kTikv, DependencyReason::kTikvNotBootstrapped),
            reason::kTikvNotReady);
  EXPECT_EQ(PodReasonFor(Dependency::kTikv, DependencyReason::kNone), reason::kTikvNotReady);
  EXPECT_EQ(PodReasonFor(Dependency::kTikv, DependencyReason::kPdNotReady), reason::kPdNotReady);
  // A not-ready dependency never yields dependency_unknown.
  EXPECT_EQ(PodReasonFor(Dependency::kPd, DependencyReason::kDependencyUnknown),
            reason::kPdNotReady);
  for (const DependencyReasonInfo& r : kDependencyReasons) {
    for (Dependency d : kAllDependencies) {
      EXPECT_NE(FindReason(PodReasonFor(d, r.reason)), nullptr) << r.name;
    }
  }
}

}  // namespace
}  // namespace podwait
