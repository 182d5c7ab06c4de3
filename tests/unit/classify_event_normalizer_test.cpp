// NormalizeEvent (exporter/classify/event_normalizer.h): every message parser reads the form
// client-go's event correlator writes for an aggregated event ("(combined from similar events): "
// + the newest message, k8s.io/client-go/tools/record/events_cache.go) exactly as it reads the
// plain form, and the legacy Karpenter nomination reads as today's. The plain messages are the
// real-shaped ones of classify_messages_test.cpp (each cited there).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/event_normalizer.h"
#include "exporter/classify/messages.h"

namespace podwait {
namespace {

std::string Describe(const std::vector<FitReason>& reasons) {
  std::ostringstream out;
  for (const auto& r : reasons)
    out << r.reason << "/" << static_cast<int>(r.kind) << "/" << r.count << ";";
  return out.str();
}

// One parser, its answer written out; "" when the parser does not read the message.
struct ParserRow {
  std::string name;
  std::string reason;  // the event reason that carries it
  std::string source;
  std::string message;
  std::function<std::string(std::string_view)> parse;
};

std::string FitText(std::string_view m) {
  FitError f = ParseFitError(m);
  if (f.total_nodes < 0) return "";
  return std::to_string(f.total_nodes) + ":" + Describe(f.reasons);
}
std::string TriggeredText(std::string_view m) {
  auto g = ParseTriggeredScaleUp(m);
  if (!g) return "";
  std::string s;
  for (const auto& x : *g)
    s += x.name + " " + std::to_string(x.from) + "->" + std::to_string(x.to) + ";";
  return s;
}
std::string RefusalText(std::string_view m) {
  auto r = ParseNotTriggerScaleUp(m);
  return r ? Describe(r->reasons) : "";
}
std::string NominatedText(std::string_view m) {
  auto n = ParseKarpenterNominated(m);
  return n ? n->kind + "/" + n->name : "";
}
std::string KarpenterFailureText(std::string_view m) {
  auto pools = ParseKarpenterFailedScheduling(m);
  if (!pools) return "";
  std::string s;
  for (const auto& p : *pools) s += p.nodepool + ":" + std::string(p.reason.reason) + ";";
  return s;
}

std::vector<ParserRow> Rows() {
  return {
      {"SchedulerFitError", "FailedScheduling", "default-scheduler",
       "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint "
       "{node.kubernetes.io/unreachable: }. preemption: 0/5 nodes are available: 5 Preemption is "
       "not helpful for scheduling.",
       FitText},
      {"TriggeredScaleUp", "TriggeredScaleUp", "cluster-autoscaler",
       "pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)}]", TriggeredText},
      {"TriggeredScaleUpBefore1_0", "TriggeredScaleUp", "cluster-autoscaler",
       "pod triggered scale-up, group: grp, sizes (current/new): 1/2", TriggeredText},
      {"NotTriggerScaleUp", "NotTriggerScaleUp", "cluster-autoscaler",
       "pod didn't trigger scale-up: 3 node(s) had untolerated taint {dedicated: tidb}, 1 in "
       "backoff after failed scale-up",
       RefusalText},
      {"NotTriggerScaleUpBefore1_16", "NotTriggerScaleUp", "cluster-autoscaler",
       "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 max limit reached",
       RefusalText},
      {"KarpenterNominatedNodeClaim", "Nominated", "karpenter",
       "Pod should schedule on: nodeclaim/default-abc12", NominatedText},
      {"KarpenterNominatedMachine", "NominatedMachine", "karpenter",
       "Pod should schedule on node associated with machine: default-x7k2p", NominatedText},
      {"KarpenterFailedScheduling", "FailedScheduling", "karpenter",
       "Failed to schedule pod, incompatible with nodepool \"tikv\", daemonset overhead={\"cpu\":"
       "\"200m\"}, did not tolerate dedicated=tidb:NoSchedule; all available instance types "
       "exceed limits for nodepool \"default\"",
       KarpenterFailureText},
  };
}

class AggregatedForm : public ::testing::TestWithParam<ParserRow> {};

TEST_P(AggregatedForm, ReadsLikeThePlainForm) {
  const ParserRow& row = GetParam();
  const std::string plain = row.parse(row.message);
  ASSERT_FALSE(plain.empty()) << "the plain form must parse: " << row.message;

  EventRecord e;
  e.reason = row.reason;
  e.source = row.source;
  e.message = std::string(kCombinedEventPrefix) + row.message;
  NormalizeEvent(&e);
  EXPECT_EQ(e.message, row.message);
  EXPECT_EQ(row.parse(e.message), plain);
  // Who wrote it is still told apart after normalizing (Karpenter's FailedScheduling is known by
  // its text).
  EventRecord plain_event = e;
  plain_event.message = row.message;
  EXPECT_EQ(EventAutoscalerKind(e), EventAutoscalerKind(plain_event));
}

INSTANTIATE_TEST_SUITE_P(EveryParser, AggregatedForm, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<ParserRow>& p) { return p.param.name; });

// Without the normalizer, the autoscalers' parsers miss the aggregated verdict: the reason the
// normalizer exists.
TEST(AggregatedForm, UnnormalizedAutoscalerVerdictsAreNotRead) {
  const std::string prefix(kCombinedEventPrefix);
  EXPECT_FALSE(ParseNotTriggerScaleUp(prefix + "pod didn't trigger scale-up: 1 in backoff after "
                                               "failed scale-up"));
  EXPECT_FALSE(ParseTriggeredScaleUp(prefix + "pod triggered scale-up: [{g 1->2 (max: 3)}]"));
  EXPECT_FALSE(ParseKarpenterFailedScheduling(prefix + "Failed to schedule pod, x"));
}

TEST(NormalizeEvent, Idempotent) {
  EventRecord e;
  e.reason = "NotTriggerScaleUp";
  e.message =
      "(combined from similar events): (combined from similar events):  pod didn't "
      "trigger scale-up: 1 max node group size reached";
  NormalizeEvent(&e);
  EXPECT_EQ(e.message, "pod didn't trigger scale-up: 1 max node group size reached");
  EventRecord again = e;
  NormalizeEvent(&again);
  EXPECT_EQ(again.message, e.message);
  EXPECT_EQ(again.reason, e.reason);
}

TEST(NormalizeEvent, PlainMessageUntouched) {
  EventRecord e;
  e.reason = "FailedScheduling";
  e.message = "0/3 nodes are available: 3 Insufficient memory.";
  NormalizeEvent(&e);
  EXPECT_EQ(e.message, "0/3 nodes are available: 3 Insufficient memory.");
  EXPECT_EQ(e.reason, "FailedScheduling");
}

// Karpenter's event recorder before v0.20: Eventf(pod, Normal, "NominatePod", "Pod should schedule
// on %s", node.Name) (some releases reason "Nominate").
TEST(NormalizeEvent, LegacyKarpenterNominatePod) {
  for (const char* reason : {"NominatePod", "Nominate"}) {
    EventRecord e;
    e.reason = reason;
    e.source = "karpenter";
    e.message = "Pod should schedule on ip-192-168-12-34.us-west-2.compute.internal";
    NormalizeEvent(&e);
    EXPECT_EQ(e.reason, "Nominated");
    EXPECT_EQ(NominatedText(e.message), "node/ip-192-168-12-34.us-west-2.compute.internal");
    EXPECT_EQ(EventAutoscalerKind(e), AutoscalerKind::kKarpenter);
  }
}

TEST(NormalizeEvent, LegacyKarpenterAggregated) {
  EventRecord e;
  e.reason = "NominatePod";
  e.message = "(combined from similar events): Pod should schedule on ip-10-0-1-2.ec2.internal";
  NormalizeEvent(&e);
  EXPECT_EQ(e.reason, "Nominated");
  EXPECT_EQ(e.message, "Pod should schedule on node: ip-10-0-1-2.ec2.internal");
}

}  // namespace
}  // namespace podwait
