// --events.write against the simulator (tests/scenarios/demo.json): the exporter writes its
// verdicts as events.k8s.io/v1 Events, which the API server lists as core v1 Events on the pod
// (what `kubectl describe pod` reads); a class change is a new Event; without the flag nothing is
// written.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

struct SeenEvent {
  std::string reason, type, message, source, instance, uid;
  int count = 0;
};

// podwait's Events on one pod, as the API server lists them (core v1).
std::vector<SeenEvent> PodwaitEvents(SimAndExporter& stack, const std::string& pod) {
  HttpResult r =
      HttpGet(stack.sim_port(),
              "/api/v1/namespaces/demo/events?fieldSelector=involvedObject.name%3D" + pod);
  std::vector<SeenEvent> out;
  rapidjson::Document d;
  d.Parse(r.body.c_str(), r.body.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("items")) return out;
  auto str = [](const rapidjson::Value& v, const char* k) {
    auto it = v.FindMember(k);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString())
                                                       : std::string();
  };
  for (const auto& e : d["items"].GetArray()) {
    if (str(e, "reportingComponent") != "podwait.pingcap.com/exporter") continue;
    SeenEvent s{str(e, "reason"),
                str(e, "type"),
                str(e, "message"),
                str(e, "reportingComponent"),
                str(e, "reportingInstance"),
                str(e["involvedObject"], "uid"),
                0};
    if (e.HasMember("series") && e["series"].IsObject() && e["series"].HasMember("count")) {
      s.count = e["series"]["count"].GetInt();
    }
    out.push_back(s);
  }
  return out;
}

const SeenEvent* Find(const std::vector<SeenEvent>& events, const std::string& reason) {
  for (const auto& e : events) {
    if (e.reason == reason) return &e;
  }
  return nullptr;
}

bool HasReason(const std::vector<SeenEvent>& events, const std::string& reason) {
  return Find(events, reason) != nullptr;
}

TEST(ExporterEvents, VerdictsBecomeEventsOnThePodAndAClassChangeIsANewOne) {
  SimAndExporter stack("tests/scenarios/demo.json", {"--events.write"});
  std::vector<SeenEvent> events;
  ASSERT_TRUE(WaitFor(
      [&] {
        events = PodwaitEvents(stack, "demo-tikv-0");
        return HasReason(events, "PodwaitScaleUp");
      },
      std::chrono::seconds(30)))
      << stack.exporter().ReadLog();
  const SeenEvent scale_up = *Find(events, "PodwaitScaleUp");
  EXPECT_EQ(scale_up.type, "Normal");
  EXPECT_THAT(scale_up.message, ::testing::StartsWith("scale_up (expected wait), stage "
                                                      "unscheduled, reason "));
  EXPECT_THAT(scale_up.message, ::testing::HasSubstr("TriggeredScaleUp"));
  EXPECT_FALSE(scale_up.uid.empty());
  EXPECT_FALSE(scale_up.instance.empty());
  // The tidb pods wait on PD: an expected wait each.
  for (int i = 0; i < 5; ++i) {
    const std::string pod = "demo-tidb-" + std::to_string(i);
    ASSERT_TRUE(WaitFor([&] { return HasReason(PodwaitEvents(stack, pod), "PodwaitDependency"); },
                        std::chrono::seconds(10)))
        << pod;
  }
  // The node arrives: demo-tikv-0 starts, a new class, a new Event.
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=node-arrives"), 200);
  ASSERT_TRUE(WaitFor(
      [&] {
        events = PodwaitEvents(stack, "demo-tikv-0");
        return HasReason(events, "PodwaitStarting");
      },
      std::chrono::seconds(20)))
      << stack.exporter().ReadLog();
  EXPECT_TRUE(HasReason(events, "PodwaitScaleUp"));  // the earlier verdict stays
  EXPECT_EQ(Find(events, "PodwaitStarting")->type, "Normal");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_events_written_total", {{"result", "created"}}) >= 8;
      },
      10, &text))
      << text;
  EXPECT_EQ(SampleValue(text, "podwait_events_written_total", {{"result", "failed"}}), 0);
  EXPECT_EQ(SampleValue(text, "podwait_events_dropped_total", {{"reason", "queue_full"}}), 0);
}

TEST(ExporterEvents, NothingIsWrittenWithoutTheFlag) {
  SimAndExporter stack("tests/scenarios/demo.json");
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return !FindSamples(t, "podwait_pod_waiting_seconds",
                            {{"pod", "demo-tikv-0"}, {"class", "scale_up"}})
                    .empty();
      },
      20, &text))
      << text;
  ASSERT_EQ(stack.SimPost("/_sim/advance?to=node-arrives"), 200);
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return FindSamples(t, "podwait_pod_waiting_seconds",
                           {{"pod", "demo-tikv-0"}, {"class", "scale_up"}})
            .empty();
      },
      20, &text))
      << text;
  EXPECT_THAT(PodwaitEvents(stack, "demo-tikv-0"), ::testing::IsEmpty());
  EXPECT_THAT(PodwaitEvents(stack, "demo-tidb-0"), ::testing::IsEmpty());
  EXPECT_TRUE(FindSamples(text, "podwait_events_written_total").empty());
}

}  // namespace
}  // namespace podwait::testing
