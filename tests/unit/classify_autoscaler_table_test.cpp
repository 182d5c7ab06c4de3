#include <gtest/gtest.h>

#include <set>
#include <string>

#include "exporter/classify/autoscaler.h"
#include "exporter/model/autoscalers.h"

namespace podwait {
namespace {

TEST(Autoscalers, OneRowPerKindInEnumOrder) {
  std::set<std::string_view> names;
  for (const AutoscalerInfo& a : kAutoscalers) {
    EXPECT_NE(a.kind, AutoscalerKind::kNone);
    EXPECT_EQ(&InfoOf(a.kind), &a);
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    EXPECT_NE(a.name, "auto");
    EXPECT_NE(a.name, "none");
    EXPECT_FALSE(a.verdict.empty()) << a.name;
    EXPECT_FALSE(a.resources.empty()) << a.name;
    EXPECT_EQ(FindAutoscaler(a.name), &a);
  }
  EXPECT_EQ(FindAutoscaler("gke"), nullptr);
  EXPECT_EQ(AutoscalerNames(), "cluster-autoscaler, karpenter");
}

// Every verdict reason is one of the row's own reasons or a reason its parsers recognize: an
// event with that reason, written by the row's first source, counts as the row's.
TEST(Autoscalers, VerdictsAreTheRowsOwnEvents) {
  for (const AutoscalerInfo& a : kAutoscalers) {
    ASSERT_FALSE(a.event_sources.empty()) << a.name;
    for (std::string_view reason : a.verdict_reasons) {
      EventRecord e;
      e.reason = std::string(reason);
      e.source = std::string(a.event_sources.front());
      EXPECT_EQ(EventAutoscalerKind(e), a.kind) << a.name << " " << reason;
    }
    for (std::string_view reason : a.event_reasons) {
      EventRecord e;
      e.reason = std::string(reason);  // no source: the reason alone names the writer
      EXPECT_EQ(EventAutoscalerKind(e), a.kind) << a.name << " " << reason;
    }
  }
}

// The --autoscaler flag takes each row's name, auto and none, and nothing else.
TEST(Autoscalers, FlagValuesComeFromTheTable) {
  for (const AutoscalerInfo& a : kAutoscalers) {
    EXPECT_EQ(ParseAutoscalerMode(a.name), AutoscalerMode::Forced(a.kind));
    EXPECT_TRUE(AutoscalerMode::Forced(a.kind).MayUse(a.kind));
    EXPECT_FALSE(AutoscalerMode::kNone.MayUse(a.kind));
    EXPECT_TRUE(AutoscalerMode::kAuto.MayUse(a.kind));
    for (const AutoscalerInfo& other : kAutoscalers) {
      if (other.kind != a.kind) {
        EXPECT_FALSE(AutoscalerMode::Forced(a.kind).MayUse(other.kind));
      }
    }
  }
}

TEST(Autoscalers, PerAutoscalerIsIndexedByKind) {
  PerAutoscaler<int> v;
  v[AutoscalerKind::kKarpenter] = 7;
  EXPECT_EQ(v[AutoscalerKind::kKarpenter], 7);
  EXPECT_EQ(v[AutoscalerKind::kClusterAutoscaler], 0);
  AutoscalerState s;
  s.detected[AutoscalerKind::kKarpenter] = true;
  EXPECT_TRUE(s.Present(AutoscalerKind::kKarpenter));
  EXPECT_FALSE(s.Present(AutoscalerKind::kClusterAutoscaler));
  EXPECT_TRUE(s.Any());
  s.forced_none = true;
  EXPECT_FALSE(s.Present(AutoscalerKind::kKarpenter));
  EXPECT_FALSE(s.Any());
}

}  // namespace
}  // namespace podwait
