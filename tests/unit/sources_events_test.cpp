// ParseEvent on events in the shapes the API server serves them. The payloads are made up; they
// follow core/v1 Events as written by default-scheduler and cluster-autoscaler (source.component,
// firstTimestamp/lastTimestamp/count), by Karpenter (reportingComponent, eventTime) and as served
// by events.k8s.io/v1 (regarding, note, reportingController, series), with the message texts
// quoted in docs/DESIGN.md §3.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/time_format.h"
#include "exporter/sources/events.h"

namespace podwait {
namespace {

Timestamp T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

const char* kCoreTriggeredScaleUp = R"({
  "kind": "Event", "apiVersion": "v1",
  "metadata": {"name": "basic-tikv-2.17c8f0a1b2c3d4e5", "namespace": "tidb",
               "uid": "ev-1", "resourceVersion": "5001",
               "creationTimestamp": "2024-05-02T10:00:05Z"},
  "involvedObject": {"kind": "Pod", "namespace": "tidb", "name": "basic-tikv-2",
                     "uid": "pod-uid-2", "apiVersion": "v1", "resourceVersion": "4990"},
  "reason": "TriggeredScaleUp",
  "message": "pod triggered scale-up: [{grp 3->4 (max: 10)}]",
  "source": {"component": "cluster-autoscaler"},
  "firstTimestamp": "2024-05-02T10:00:05Z", "lastTimestamp": "2024-05-02T10:03:05Z",
  "count": 4, "type": "Normal", "eventTime": null,
  "reportingComponent": "", "reportingInstance": ""})";

TEST(ParseEvent, CoreEventFromClusterAutoscaler) {
  auto doc = Parse(kCoreTriggeredScaleUp);
  Result<ParsedEvent> r = ParseEvent(doc);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r->relevant);
  const EventRecord& e = r->event;
  EXPECT_EQ(e.uid, "ev-1");
  EXPECT_EQ(e.pod_uid, "pod-uid-2");
  EXPECT_EQ(e.namespace_, "tidb");
  EXPECT_EQ(e.pod_name, "basic-tikv-2");
  EXPECT_EQ(e.reason, "TriggeredScaleUp");
  EXPECT_EQ(e.message, "pod triggered scale-up: [{grp 3->4 (max: 10)}]");
  EXPECT_EQ(e.source, "cluster-autoscaler");
  EXPECT_EQ(e.first, T("2024-05-02T10:00:05Z"));
  EXPECT_EQ(e.last, T("2024-05-02T10:03:05Z"));
  EXPECT_EQ(e.count, 4);
}

// client-go's event correlator (k8s.io/client-go/tools/record/events_cache.go) after about ten
// differently worded NotTriggerScaleUp events within ten minutes: a new event whose message is
// "(combined from similar events): " + the newest message, and whose count and lastTimestamp
// grow with each further one. Made up in that shape.
TEST(ParseEvent, AggregatedEventIsNormalized) {
  auto doc = Parse(R"({
    "metadata": {"name": "basic-tikv-2.17c8f0a1b2c3ffff", "namespace": "tidb", "uid": "ev-agg"},
    "involvedObject": {"kind": "Pod", "namespace": "tidb", "name": "basic-tikv-2", "uid": "p2"},
    "reason": "NotTriggerScaleUp",
    "message": "(combined from similar events): pod didn't trigger scale-up: 2 node(s) had untolerated taint {dedicated: tidb}, 1 in backoff after failed scale-up",
    "source": {"component": "cluster-autoscaler"},
    "firstTimestamp": "2024-05-02T10:10:05Z", "lastTimestamp": "2024-05-02T10:41:15Z",
    "count": 31, "type": "Normal"})");
  Result<ParsedEvent> r = ParseEvent(doc);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r->relevant);
  EXPECT_EQ(r->event.message,
            "pod didn't trigger scale-up: 2 node(s) had untolerated taint {dedicated: tidb}, 1 in "
            "backoff after failed scale-up");
  // The newest verdict is the aggregate's last observation.
  EXPECT_EQ(r->event.last, T("2024-05-02T10:41:15Z"));
  EXPECT_EQ(r->event.count, 31);
}

// events.k8s.io/v1 with a series: the newest observation is series.lastObservedTime.
TEST(ParseEvent, AggregatedSeriesEventIsNormalized) {
  auto doc = Parse(R"({
    "metadata": {"name": "x.2", "namespace": "tidb", "uid": "ev-series"},
    "regarding": {"kind": "Pod", "namespace": "tidb", "name": "basic-tidb-0", "uid": "p0"},
    "reason": "FailedScheduling", "reportingController": "karpenter",
    "note": "(combined from similar events): Failed to schedule pod, all available instance types exceed limits for nodepool \"default\"",
    "eventTime": "2024-05-02T10:00:00.000000Z",
    "series": {"count": 12, "lastObservedTime": "2024-05-02T10:30:00.000000Z"}})");
  Result<ParsedEvent> r = ParseEvent(doc);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r->relevant);
  EXPECT_EQ(r->event.message,
            "Failed to schedule pod, all available instance types exceed limits for nodepool "
            "\"default\"");
  EXPECT_EQ(r->event.first, T("2024-05-02T10:00:00Z"));
  EXPECT_EQ(r->event.last, T("2024-05-02T10:30:00Z"));
  EXPECT_EQ(r->event.count, 12);
}

// Karpenter before v0.20: reason NominatePod, "Pod should schedule on <node>".
TEST(ParseEvent, LegacyKarpenterNominatePod) {
  auto doc = Parse(R"({
    "metadata": {"name": "x.3", "namespace": "tidb", "uid": "ev-nom"},
    "involvedObject": {"kind": "Pod", "namespace": "tidb", "name": "basic-tikv-0", "uid": "p1"},
    "reason": "NominatePod", "message": "Pod should schedule on ip-192-168-55-10.ec2.internal",
    "source": {"component": "karpenter"},
    "firstTimestamp": "2022-06-01T08:00:00Z", "lastTimestamp": "2022-06-01T08:00:00Z",
    "count": 1})");
  Result<ParsedEvent> r = ParseEvent(doc);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_TRUE(r->relevant);
  EXPECT_EQ(r->event.reason, "Nominated");
  EXPECT_EQ(r->event.message, "Pod should schedule on node: ip-192-168-55-10.ec2.internal");
}

TEST(ParseEvent, KarpenterEventWithEventTimeAndSeries) {
  auto doc = Parse(R"({
    "metadata": {"name": "x.1", "namespace": "tidb", "uid": "ev-2"},
    "involvedObject": {"kind": "Pod", "namespace": "tidb", "name": "basic-tidb-0", "uid": "p0"},
    "reason": "Nominated", "message": "Pod should schedule on: nodeclaim/default-abc12",
    "reportingComponent": "karpenter", "source": {},
    "eventTime": "2024-05-02T10:00:00.123456Z",
    "series": {"count": 3, "lastObservedTime": "2024-05-02T10:02:00.000000Z"},
    "firstTimestamp": null, "lastTimestamp": null})");
  Result<ParsedEvent> r = ParseEvent(doc);
  ASSERT_TRUE(r.ok() && r->relevant) << r.error;
  EXPECT_EQ(r->event.source, "karpenter");
  EXPECT_EQ(r->event.first, T("2024-05-02T10:00:00.123Z"));
  EXPECT_EQ(r->event.last, T("2024-05-02T10:02:00Z"));
  EXPECT_EQ(r->event.count, 3);
}

TEST(ParseEvent, EventsK8sIoShape) {
  auto doc = Parse(R"({
    "apiVersion": "events.k8s.io/v1", "kind": "Event",
    "metadata": {"name": "y.1", "namespace": "tidb", "uid": "ev-3",
                 "creationTimestamp": "2024-05-02T09:59:00Z"},
    "regarding": {"kind": "Pod", "namespace": "tidb", "name": "basic-pd-0", "uid": "p1"},
    "reason": "FailedScheduling",
    "note": "0/3 nodes are available: 3 Insufficient cpu.",
    "reportingController": "default-scheduler",
    "deprecatedFirstTimestamp": "2024-05-02T09:59:00Z",
    "deprecatedLastTimestamp": "2024-05-02T10:01:00Z", "deprecatedCount": 2})");
  Result<ParsedEvent> r = ParseEvent(doc);
  ASSERT_TRUE(r.ok() && r->relevant) << r.error;
  EXPECT_EQ(r->event.pod_name, "basic-pd-0");
  EXPECT_EQ(r->event.message, "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_EQ(r->event.source, "default-scheduler");
  EXPECT_EQ(r->event.first, T("2024-05-02T09:59:00Z"));
  EXPECT_EQ(r->event.last, T("2024-05-02T10:01:00Z"));
  EXPECT_EQ(r->event.count, 2);
}

TEST(ParseEvent, IrrelevantReasonsAndKindsAreOkButNotKept) {
  auto pulled = Parse(R"({"metadata":{"uid":"e"},
    "involvedObject":{"kind":"Pod","namespace":"n","name":"p"},"reason":"Pulled"})");
  Result<ParsedEvent> r = ParseEvent(pulled);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r->relevant);
  auto sts = Parse(R"({"metadata":{"uid":"e"},
    "involvedObject":{"kind":"StatefulSet","namespace":"n","name":"s"},"reason":"FailedScheduling"})");
  r = ParseEvent(sts);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r->relevant);
  for (std::string_view reason : kRelevantEventReasons) EXPECT_TRUE(IsRelevantEventReason(reason));
  EXPECT_FALSE(IsRelevantEventReason("BackOff"));
}

TEST(ParseEvent, MalformedEventsAreErrors) {
  for (const char* bad :
       {R"([])", R"({"metadata":{}})", R"({"metadata":{},"involvedObject":{}})",
        R"({"metadata":{},"involvedObject":{"name":"p"},"reason":"Scheduled"})"}) {
    auto doc = Parse(bad);
    Result<ParsedEvent> r = ParseEvent(doc);
    EXPECT_FALSE(r.ok()) << bad;
  }
}

TEST(ParseEvent, MessageIsBoundedAndTimesFallBack) {
  std::string msg(5000, 'm');
  auto doc = Parse(R"({"metadata":{"uid":"e","creationTimestamp":"2024-05-02T10:00:00Z"},
    "involvedObject":{"kind":"Pod","namespace":"n","name":"p"},"reason":"NotTriggerScaleUp",
    "message":")" + msg +
                   R"("})");
  EventParseOptions opts;
  opts.max_message_bytes = 100;
  Result<ParsedEvent> r = ParseEvent(doc, opts);
  ASSERT_TRUE(r.ok() && r->relevant);
  EXPECT_EQ(r->event.message.size(), 100u);
  EXPECT_EQ(r->event.first, T("2024-05-02T10:00:00Z"));
  EXPECT_EQ(r->event.last, r->event.first);
  EXPECT_EQ(r->event.count, 1);
}

// A TriggeredScaleUp dated 2999 kept its pod scale_up forever (it never aged past the scale-up
// timeout); a year-1 time made waits of 6.4e10 s. Times far ahead become "now" (then age), times
// before 2000 are unknown; both are counted.
TEST(ParseEvent, NonsenseTimesAreClampedOrIgnoredAndCounted) {
  std::string text = kCoreTriggeredScaleUp;
  auto set = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  set(R"("lastTimestamp": "2024-05-02T10:03:05Z")", R"("lastTimestamp": "2999-01-01T00:00:00Z")");
  set(R"("firstTimestamp": "2024-05-02T10:00:05Z")", R"("firstTimestamp": "0001-01-01T00:00:00Z")");
  const uint64_t before = ImplausibleTimestamps();
  EventParseOptions opts;
  opts.now = T("2024-05-02T10:05:00Z");
  Result<ParsedEvent> r = ParseEvent(Parse(text), opts);
  ASSERT_TRUE(r.ok() && r->relevant) << r.error;
  EXPECT_EQ(r->event.last, opts.now);
  // firstTimestamp (year 1) is unknown: the creationTimestamp stands in.
  EXPECT_EQ(r->event.first, T("2024-05-02T10:00:05Z"));
  EXPECT_EQ(ImplausibleTimestamps() - before, 2u);

  // Within an hour ahead (clock skew between nodes) a time is kept as it is.
  opts.now = T("2024-05-02T09:30:00Z");
  set(R"("lastTimestamp": "2999-01-01T00:00:00Z")", R"("lastTimestamp": "2024-05-02T10:03:05Z")");
  EXPECT_EQ(ParseEvent(Parse(text), opts)->event.last, T("2024-05-02T10:03:05Z"));
}

TEST(EventSource, AnEventFromTheFarFutureIsStoredAsNow) {
  FakeClock clock(T("2024-05-02T10:10:00Z"));
  EventStore events;
  EventSource source(events, nullptr, clock, "tidb");
  std::string text = kCoreTriggeredScaleUp;
  const std::string last = R"("lastTimestamp": "2024-05-02T10:03:05Z")";
  text.replace(text.find(last), last.size(), R"("lastTimestamp": "2999-12-31T23:59:59Z")");
  EXPECT_TRUE(source.OnEvent(WatchEventType::kAdded, Parse(text)));
  auto stored = events.EventsFor("tidb", "basic-tikv-2");
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].last, T("2024-05-02T10:10:00Z"));
}

rapidjson::Document EventFor(const std::string& pod, const std::string& reason,
                             const std::string& uid, const std::string& last) {
  return Parse(R"({"metadata":{"uid":")" + uid + R"("},
    "involvedObject":{"kind":"Pod","namespace":"tidb","name":")" +
               pod + R"(","uid":"u-)" + pod + R"("},"reason":")" + reason +
               R"(","source":{"component":"default-scheduler"},
    "lastTimestamp":")" +
               last + R"(","firstTimestamp":")" + last + R"("})");
}

TEST(EventSource, ListReplacesAndEventsApplyAndUnknownPodsArePruned) {
  FakeClock clock(T("2024-05-02T10:10:00Z"));
  EventStore events;
  PodStore pods(&events);
  PodRecord known;
  known.uid = "u-known";
  known.namespace_ = "tidb";
  known.name = "known";
  pods.Upsert(known);
  EventSource source(events, &pods, clock, "tidb");

  source.OnListBegin();
  EXPECT_TRUE(
      source.OnListItem(EventFor("known", "FailedScheduling", "e1", "2024-05-02T10:00:00Z")));
  EXPECT_TRUE(source.OnListItem(EventFor("known", "Pulled", "e2", "2024-05-02T10:00:00Z")));
  // An old event about a pod we do not watch: pruned at the end of the list.
  EXPECT_TRUE(
      source.OnListItem(EventFor("stranger", "FailedScheduling", "e3", "2024-05-02T09:00:00Z")));
  // A recent one: kept for the grace period (its pod may still show up).
  EXPECT_TRUE(
      source.OnListItem(EventFor("early", "FailedScheduling", "e4", "2024-05-02T10:09:00Z")));
  source.OnListEnd("100");
  EXPECT_EQ(events.EventsFor("tidb", "known").size(), 1u);
  EXPECT_TRUE(events.EventsFor("tidb", "stranger").empty());
  EXPECT_EQ(events.EventsFor("tidb", "early").size(), 1u);

  EXPECT_TRUE(source.OnEvent(WatchEventType::kAdded,
                             EventFor("known", "TriggeredScaleUp", "e5", "2024-05-02T10:09:30Z")));
  EXPECT_EQ(events.EventsFor("tidb", "known").size(), 2u);
  EXPECT_TRUE(source.OnEvent(WatchEventType::kDeleted,
                             EventFor("known", "FailedScheduling", "e1", "2024-05-02T10:00:00Z")));
  auto left = events.EventsFor("tidb", "known");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].reason, "TriggeredScaleUp");

  // Six minutes later, "early" never appeared: the next event after a minute prunes it.
  clock.Advance(6 * kMinute);
  EXPECT_TRUE(source.OnEvent(WatchEventType::kAdded,
                             EventFor("known", "Scheduled", "e6", "2024-05-02T10:16:00Z")));
  EXPECT_TRUE(events.EventsFor("tidb", "early").empty());
  // Deleting the pod drops its events.
  pods.Delete("u-known", "tidb", "known");
  EXPECT_TRUE(events.EventsFor("tidb", "known").empty());
}

TEST(EventReflectorOptions, FieldSelectorOnPods) {
  Config config;
  auto o = EventReflectorOptions(config);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].path, "/api/v1/events");
  EXPECT_EQ(o[0].field_selector, "involvedObject.kind=Pod");
  EXPECT_EQ(o[0].resource, "events");
}

}  // namespace
}  // namespace podwait
