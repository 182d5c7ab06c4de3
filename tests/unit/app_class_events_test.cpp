// --events.write: the Event's reason and type per class, the note, and one Event per class change
// (none while a source is listing, none for an unchanged pod).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "exporter/app/class_events.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

TEST(ClassEvents, OneCamelCaseReasonPerClassNormalForExpectedWaitsWarningForProblems) {
  std::set<std::string> reasons;
  for (const ClassInfo& c : kClasses) {
    const std::string reason = EventReason(c.wait_class);
    EXPECT_TRUE(std::regex_match(reason, std::regex("Podwait([A-Z][a-z]+)+"))) << reason;
    EXPECT_LE(reason.size(), 128u);  // events.k8s.io/v1's limit
    reasons.insert(reason);
    EXPECT_EQ(EventType(c.wait_class), c.expected ? "Normal" : "Warning");
  }
  EXPECT_EQ(reasons.size(), std::size(kClasses));
  EXPECT_EQ(EventReason(WaitClass::kScaleUp), "PodwaitScaleUp");
  EXPECT_EQ(EventReason(WaitClass::kDependencyStuck), "PodwaitDependencyStuck");
  EXPECT_EQ(EventReason(WaitClass::kNotReady), "PodwaitNotReady");
}

WaitingPod Pod(const std::string& name, WaitClass cls, const std::string& reason) {
  WaitingPod p;
  p.namespace_ = "demo";
  p.pod = name;
  p.uid = "uid-" + name;
  p.classification.waiting = true;
  p.classification.wait_class = cls;
  p.classification.stage = Stage::kUnscheduled;
  p.classification.reason = reason;
  return p;
}

TEST(ClassEvents, TheNoteSaysClassExpectationReasonAndEvidence) {
  WaitingPod p = Pod("demo-tikv-0", WaitClass::kScaleUp, "triggered_scale_up");
  p.classification.evidence = std::string("pod triggered scale-up ") + kEvidenceAgo;
  p.classification.evidence_since = 1'000'000;
  PodEventNote n = EventNoteFor(p, 1'000'000 + 20 * kSecond);
  EXPECT_EQ(n.type, "Normal");
  EXPECT_EQ(n.reason, "PodwaitScaleUp");
  EXPECT_EQ(n.pod_uid, "uid-demo-tikv-0");
  EXPECT_EQ(n.note,
            "scale_up (expected wait), stage unscheduled, reason triggered_scale_up: pod triggered "
            "scale-up 20s ago");
  EXPECT_EQ(n.series_key, "scale_up/triggered_scale_up");
  PodEventNote w = EventNoteFor(Pod("x", WaitClass::kCapacity, "insufficient_cpu"), 0);
  EXPECT_EQ(w.type, "Warning");
  EXPECT_THAT(w.note, HasSubstr("capacity (needs attention)"));
}

// Counts the Events the writer posts.
class CountingApi final : public HttpClient {
 public:
  explicit CountingApi(std::vector<std::string>* bodies, std::mutex* mu)
      : bodies_(bodies), mu_(mu) {}
  HttpResponse Get(const HttpRequest&, size_t) override { return {}; }
  HttpResponse Stream(const HttpRequest&, const std::function<bool(std::string_view)>&) override {
    return {};
  }
  HttpResponse Write(const HttpRequest& req, size_t) override {
    std::lock_guard<std::mutex> lock(*mu_);
    bodies_->push_back(req.method + " " + req.body);
    HttpResponse r;
    r.status = 201;
    return r;
  }

 private:
  std::vector<std::string>* bodies_;
  std::mutex* mu_;
};

std::shared_ptr<const WaitingSnapshot> Snapshot(std::vector<WaitingPod> pods) {
  auto s = std::make_shared<WaitingSnapshot>();
  for (auto& p : pods) s->pods.push_back(std::move(p));
  return s;
}

TEST(ClassEvents, OneEventPerClassChangeOnceSynced) {
  std::vector<std::string> sent;
  std::mutex mu;
  FakeClock clock;
  SyncStatus sync;
  KubeContext ctx;
  ctx.endpoint.api_url = "http://127.0.0.1:1";
  ctx.env.clock = &clock;
  ctx.env.http = [&] { return std::make_unique<CountingApi>(&sent, &mu); };
  ctx.sync = &sync;
  EventWriterOptions o;
  o.reporting_instance = "podwait-0";
  o.pod_burst = 100;  // the writer's limits are its own test's
  EventWriter writer(ctx, o, nullptr);
  writer.Start();
  ClassEvents events(writer);

  auto a = Snapshot(
      {Pod("tikv-0", WaitClass::kScaleUp, "r"), Pod("tikv-1", WaitClass::kDependency, "r")});
  events.Observe(false, a, clock.Now());  // still listing: nothing
  events.Observe(true, a, clock.Now());   // first sight of both: two Events
  events.Observe(true, a, clock.Now());   // the same snapshot: nothing
  events.Observe(true,
                 Snapshot({Pod("tikv-0", WaitClass::kScaleUp, "r"),
                           Pod("tikv-1", WaitClass::kDependency, "r")}),
                 clock.Now());  // a new snapshot, no change: nothing
  ASSERT_TRUE(writer.WaitIdle(5000));
  EXPECT_EQ(sent.size(), 2u);
  // tikv-0 becomes capacity, tikv-1 stops waiting: one Event.
  events.Observe(true, Snapshot({Pod("tikv-0", WaitClass::kCapacity, "r")}), clock.Now());
  ASSERT_TRUE(writer.WaitIdle(5000));
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_THAT(sent[2], HasSubstr("\"reason\":\"PodwaitCapacity\""));
  EXPECT_THAT(sent[2], HasSubstr("\"type\":\"Warning\""));
  // tikv-1 waits on its dependency again: the same Event, as a series.
  events.Observe(true,
                 Snapshot({Pod("tikv-0", WaitClass::kCapacity, "r"),
                           Pod("tikv-1", WaitClass::kDependency, "r")}),
                 clock.Now());
  ASSERT_TRUE(writer.WaitIdle(5000));
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_THAT(sent[3], HasSubstr("PATCH {\"series\":{\"count\":2"));
}

}  // namespace
}  // namespace podwait
