#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <thread>

#include "exporter/kube/event_writer.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

PodEventNote Note(const std::string& pod, const std::string& key,
                  const std::string& type = "Normal") {
  PodEventNote n;
  n.namespace_ = "demo";
  n.pod = pod;
  n.pod_uid = "uid-" + pod;
  n.type = type;
  n.reason = type == "Normal" ? "PodwaitScaleUp" : "PodwaitCapacity";
  n.note = key + " (expected wait): pod triggered scale-up";
  n.series_key = key;
  return n;
}

EventWriterOptions Options() {
  EventWriterOptions o;
  o.reporting_instance = "podwait-exporter-7d9f-x2x4";
  return o;
}

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

std::string Str(const rapidjson::Value& v, const char* key) {
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

// --- the planner: what is written -------------------------------------------------------------

TEST(EventPlanner, FirstVerdictIsANewEventsV1EventWithTheApiServersConventions) {
  EventPlanner planner(Options());
  const Timestamp now = 1'764'633'763'123;  // 2025-12-02T00:02:43.123Z
  std::optional<EventWrite> w = planner.Plan(Note("demo-tikv-0", "scale_up"), now, 5000, nullptr);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->create);
  EXPECT_EQ(w->namespace_, "demo");
  // client-go's name: the object's name, a dot, the time in hexadecimal nanoseconds.
  EXPECT_TRUE(std::regex_match(w->name, std::regex("demo-tikv-0\\.[0-9a-f]{10,16}"))) << w->name;
  rapidjson::Document e = Parse(w->event_json);
  EXPECT_EQ(Str(e, "apiVersion"), "events.k8s.io/v1");
  EXPECT_EQ(Str(e, "kind"), "Event");
  EXPECT_EQ(Str(e["metadata"], "name"), w->name);
  EXPECT_EQ(Str(e["metadata"], "namespace"), "demo");
  EXPECT_EQ(Str(e, "eventTime"), "2025-12-02T00:02:43.123000Z");  // MicroTime: six digits
  EXPECT_EQ(Str(e, "reportingController"), "podwait.pingcap.com/exporter");
  EXPECT_EQ(Str(e, "reportingInstance"), "podwait-exporter-7d9f-x2x4");
  EXPECT_EQ(Str(e, "action"), "Classified");
  EXPECT_EQ(Str(e, "reason"), "PodwaitScaleUp");
  EXPECT_EQ(Str(e, "type"), "Normal");
  EXPECT_EQ(Str(e, "note"), "scale_up (expected wait): pod triggered scale-up");
  EXPECT_EQ(Str(e["regarding"], "kind"), "Pod");
  EXPECT_EQ(Str(e["regarding"], "apiVersion"), "v1");
  EXPECT_EQ(Str(e["regarding"], "name"), "demo-tikv-0");
  EXPECT_EQ(Str(e["regarding"], "uid"), "uid-demo-tikv-0");
  EXPECT_FALSE(e.HasMember("series"));  // a first occurrence has none
}

TEST(EventPlanner, TheSameKeyAgainIsASeriesUpdateOfTheSameEvent) {
  EventPlanner planner(Options());
  const Timestamp t0 = 1'764'633'763'000;
  auto first = planner.Plan(Note("p", "scale_up"), t0, 0, nullptr);
  auto second = planner.Plan(Note("p", "scale_up"), t0 + 40'000, 40'000, nullptr);
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(second->create);
  EXPECT_EQ(second->name, first->name);
  rapidjson::Document patch = Parse(second->patch_json);
  EXPECT_EQ(patch["series"]["count"].GetInt(), 2);
  EXPECT_EQ(Str(patch["series"], "lastObservedTime"), "2025-12-02T00:03:23.000000Z");
  // The whole Event (re-created when the PATCH finds it gone) carries the series too.
  rapidjson::Document whole = Parse(second->event_json);
  EXPECT_EQ(whole["series"]["count"].GetInt(), 2);
  EXPECT_EQ(Str(whole, "eventTime"), "2025-12-02T00:02:43.000000Z");  // the first occurrence
}

TEST(EventPlanner, ABackAndForthPatchesEachSeriesAndAFinishedSeriesStartsANewEvent) {
  EventWriterOptions o = Options();
  o.pod_burst = 100;  // rate limits are another test's
  EventPlanner planner(o);
  const Timestamp t0 = 1'764'633'763'000;
  auto a1 = planner.Plan(Note("p", "scale_up"), t0, 0, nullptr);
  auto b1 = planner.Plan(Note("p", "capacity", "Warning"), t0 + 1000, 1000, nullptr);
  auto a2 = planner.Plan(Note("p", "scale_up"), t0 + 2000, 2000, nullptr);
  ASSERT_TRUE(a1 && b1 && a2);
  EXPECT_TRUE(b1->create);
  EXPECT_NE(b1->name, a1->name);
  EXPECT_FALSE(a2->create);
  EXPECT_EQ(a2->name, a1->name);
  // Another pod with the same key is another Event.
  auto other = planner.Plan(Note("q", "scale_up"), t0 + 2000, 2000, nullptr);
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->create);
  // Seven minutes later the series is finished (client-go: six): a new Event.
  auto a3 = planner.Plan(Note("p", "scale_up"), t0 + 7 * kMinute, 2000 + 7 * kMinute, nullptr);
  ASSERT_TRUE(a3);
  EXPECT_TRUE(a3->create);
  EXPECT_NE(a3->name, a1->name);
  // A recreated pod (same name, new uid) is a new Event as well.
  PodEventNote recreated = Note("p", "scale_up");
  recreated.pod_uid = "uid-2";
  auto r = planner.Plan(recreated, t0 + 7 * kMinute + 1, 2001 + 7 * kMinute, nullptr);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->create);
}

TEST(EventPlanner, AFlappingPodGetsAFewWritesAMinuteWhateverItDoes) {
  EventPlanner planner(Options());
  const Timestamp t0 = 1'764'633'763'000;
  // Ten changes a second for ten minutes, between two classes and a third now and then.
  std::vector<int64_t> writes;
  int drops = 0;
  for (int64_t ms = 0; ms < 10 * kMinute; ms += 100) {
    const std::string key = (ms / 100) % 7 == 0 ? "not_ready" : ((ms / 100) % 2 ? "a" : "b");
    EventDropReason why = EventDropReason::kQueueFull;
    if (planner.Plan(Note("flappy", key), t0 + ms, ms, &why)) {
      writes.push_back(ms);
    } else {
      EXPECT_EQ(why, EventDropReason::kPodRateLimited);
      ++drops;
    }
  }
  // Burst 2, then one every 30 s: at most 4 in any minute, 2 + 20 over ten minutes.
  for (size_t i = 0; i < writes.size(); ++i) {
    size_t in_minute = 0;
    for (size_t j = i; j < writes.size() && writes[j] - writes[i] < kMinute; ++j) ++in_minute;
    EXPECT_LE(in_minute, 4u) << "from " << writes[i] << " ms";
  }
  EXPECT_LE(writes.size(), 22u);
  EXPECT_GE(writes.size(), 20u);  // and it is not silenced either
  EXPECT_EQ(drops + static_cast<int>(writes.size()), 6000);
  // A quiet pod next to it is not affected.
  EXPECT_TRUE(planner.Plan(Note("quiet", "scale_up"), t0 + 10 * kMinute, 10 * kMinute, nullptr));
}

TEST(EventPlanner, OccurrencesDroppedByTheRateLimitAreCountedInTheNextWrite) {
  EventPlanner planner(Options());
  const Timestamp t0 = 1'764'633'763'000;
  ASSERT_TRUE(planner.Plan(Note("p", "a"), t0, 0, nullptr));
  ASSERT_TRUE(planner.Plan(Note("p", "a"), t0 + 1, 1, nullptr));  // count 2
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(planner.Plan(Note("p", "a"), t0 + 2 + i, 2 + i, nullptr));  // 3..7, dropped
  }
  auto w = planner.Plan(Note("p", "a"), t0 + 31'000, 31'000, nullptr);
  ASSERT_TRUE(w);
  EXPECT_EQ(Parse(w->patch_json)["series"]["count"].GetInt(), 8);
}

TEST(EventPlanner, MemoryIsBoundedByPodsAndForgottenAfterTheWindow) {
  EventWriterOptions o = Options();
  o.max_pods = 100;
  EventPlanner planner(o);
  for (int i = 0; i < 1000; ++i) {
    planner.Plan(Note("p" + std::to_string(i), "a"), 1'764'633'763'000 + i, i, nullptr);
  }
  EXPECT_LE(planner.pods(), 100u);
  planner.Plan(Note("late", "a"), 1'764'633'763'000 + 20 * kMinute, 20 * kMinute, nullptr);
  EXPECT_EQ(planner.pods(), 1u);  // every other series finished and every bucket is full again
}

TEST(EventPlanner, TheNoteIsCutToTheApiServersLimitOnACharacterBoundary) {
  EventPlanner planner(Options());
  PodEventNote n = Note("p", "a");
  n.note.clear();
  for (int i = 0; i < 600; ++i) n.note += "\xc3\xa9";  // é, 1200 bytes
  n.note += "\xff";                                    // and a byte that is not UTF-8
  auto w = planner.Plan(n, 1'764'633'763'000, 0, nullptr);
  ASSERT_TRUE(w);
  const std::string note = Str(Parse(w->event_json), "note");
  EXPECT_LE(note.size(), kMaxEventNoteBytes);
  EXPECT_GT(note.size(), kMaxEventNoteBytes - 8);
  EXPECT_EQ(note.substr(note.size() - 5), "\xc3\xa9...");
}

// A pod name may be 253 characters (a DNS subdomain), and so may an Event's: client-go's
// "<pod>.<hex nanoseconds>" is refused (422) for a pod name over 236 characters.
TEST(EventPlanner, AnEventNameForALongPodNameIsCutWithAHashAndStaysADnsSubdomain) {
  const std::regex subdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  const uint64_t unique = 0x18ad2f3c4b5e6f70;  // 16 hex digits, as nanoseconds since 2001 are
  EXPECT_EQ(EventName("demo-tikv-0", unique), "demo-tikv-0.18ad2f3c4b5e6f70");
  const std::string fits(236, 'a');
  EXPECT_EQ(EventName(fits, unique), fits + ".18ad2f3c4b5e6f70");
  // 237 and 253 characters; one whose cut ends in '.' and '-' (a label may not end so).
  std::string dotted = std::string(216, 'b') + "-.-" + std::string(34, 'c');  // cut at 219
  for (const std::string& pod :
       {std::string(237, 'a'), std::string(253, 'a'), dotted, std::string(252, 'a') + "b"}) {
    const std::string name = EventName(pod, unique);
    EXPECT_LE(name.size(), kMaxEventNameBytes) << pod;
    EXPECT_TRUE(std::regex_match(name, subdomain)) << name;
    EXPECT_EQ(name.substr(name.size() - 17), ".18ad2f3c4b5e6f70");
    EXPECT_EQ(name.substr(0, 150), pod.substr(0, 150));  // still reads as the pod's
  }
  // Two pods that differ only past the cut get different names.
  EXPECT_NE(EventName(std::string(253, 'a'), unique),
            EventName(std::string(252, 'a') + "b", unique));
  // The planner names its Events so.
  EventPlanner planner(Options());
  std::optional<EventWrite> w =
      planner.Plan(Note(std::string(253, 'p'), "a"), 1'764'633'763'123, 0, nullptr);
  ASSERT_TRUE(w);
  EXPECT_LE(w->name.size(), kMaxEventNameBytes);
  EXPECT_EQ(Str(Parse(w->event_json)["metadata"], "name"), w->name);
  EXPECT_EQ(Str(Parse(w->event_json)["regarding"], "name"), std::string(253, 'p'));
}

// --- the writer: queue, requests, failures ----------------------------------------------------

struct Sent {
  std::string method, url, body, content_type, auth;
  std::chrono::steady_clock::time_point at;
};

// Answers writes from a script (201 when it runs out); `hold` makes it wait until released.
class FakeApi final : public HttpClient {
 public:
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Sent> sent;
    std::deque<int> statuses;
    bool hold = false;
  };
  explicit FakeApi(Shared* s) : s_(s) {}
  HttpResponse Get(const HttpRequest&, size_t) override { return {}; }
  HttpResponse Stream(const HttpRequest&, const std::function<bool(std::string_view)>&) override {
    return {};
  }
  HttpResponse Write(const HttpRequest& req, size_t) override {
    std::unique_lock<std::mutex> lock(s_->mu);
    Sent sent{req.method, req.url, req.body, "", "", std::chrono::steady_clock::now()};
    for (const auto& [k, v] : req.headers) {
      if (k == "Content-Type") sent.content_type = v;
      if (k == "Authorization") sent.auth = v;
    }
    s_->sent.push_back(sent);
    s_->cv.notify_all();
    while (s_->hold && !(req.cancel && req.cancel->load())) {
      s_->cv.wait_for(lock, std::chrono::milliseconds(10));
    }
    HttpResponse r;
    if (req.cancel && req.cancel->load()) {
      r.cancelled = true;
      r.error = "cancelled";
      return r;
    }
    r.status = 201;
    if (!s_->statuses.empty()) {
      r.status = s_->statuses.front();
      s_->statuses.pop_front();
    }
    r.body = "{}";
    return r;
  }

 private:
  Shared* s_;
};

class CountingObserver final : public EventWriterObserver {
 public:
  void OnWritten(EventWriteResult r) override {
    std::lock_guard<std::mutex> lock(mu);
    ++written[EventWriteResultName(r)];
  }
  void OnDropped(EventDropReason r) override {
    std::lock_guard<std::mutex> lock(mu);
    ++dropped[EventDropReasonName(r)];
  }
  int Written(const std::string& k) {
    std::lock_guard<std::mutex> lock(mu);
    return written[k];
  }
  int Dropped(const std::string& k) {
    std::lock_guard<std::mutex> lock(mu);
    return dropped[k];
  }
  std::mutex mu;
  std::map<std::string, int> written, dropped;
};

class EventWriterTest : public ::testing::Test {
 protected:
  EventWriterTest() {
    ctx_.endpoint.api_url = "https://10.0.0.1:6443";
    ctx_.env.clock = &clock_;
    ctx_.env.http = [this] { return std::make_unique<FakeApi>(&api_); };
    ctx_.sync = &sync_;
  }
  std::vector<Sent> SentCopy() {
    std::lock_guard<std::mutex> lock(api_.mu);
    return api_.sent;
  }

  FakeClock clock_{1'764'633'763'000};
  FakeApi::Shared api_;
  SyncStatus sync_;
  KubeContext ctx_;
  CountingObserver observer_;
};

TEST_F(EventWriterTest, CreatesThenPatchesThroughTheEventsApiAndTheRequestBudget) {
  EventWriter writer(ctx_, Options(), &observer_);
  writer.Start();
  writer.Record(Note("demo-tikv-0", "scale_up"));
  ASSERT_TRUE(writer.WaitIdle(5000));
  clock_.Advance(1000);
  writer.Record(Note("demo-tikv-0", "scale_up"));
  ASSERT_TRUE(writer.WaitIdle(5000));
  std::vector<Sent> sent = SentCopy();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].url, "https://10.0.0.1:6443/apis/events.k8s.io/v1/namespaces/demo/events");
  EXPECT_EQ(sent[0].content_type, "application/json");
  const std::string name = Str(Parse(sent[0].body)["metadata"], "name");
  EXPECT_EQ(sent[1].method, "PATCH");
  EXPECT_EQ(sent[1].url,
            "https://10.0.0.1:6443/apis/events.k8s.io/v1/namespaces/demo/events/" + name);
  EXPECT_EQ(sent[1].content_type, "application/strategic-merge-patch+json");
  EXPECT_THAT(sent[1].body, HasSubstr("\"count\":2"));
  EXPECT_EQ(observer_.Written("created"), 1);
  EXPECT_EQ(observer_.Written("series_updated"), 1);
  EXPECT_EQ(ctx_.budget->requests(), 2u);  // the API server's shared budget
}

TEST_F(EventWriterTest, APatchOfAnEventThatIsGoneCreatesItAgain) {
  EventWriter writer(ctx_, Options(), &observer_);
  writer.Start();
  writer.Record(Note("p", "a"));
  ASSERT_TRUE(writer.WaitIdle(5000));
  {
    std::lock_guard<std::mutex> lock(api_.mu);
    api_.statuses = {404, 201};
  }
  writer.Record(Note("p", "a"));
  ASSERT_TRUE(writer.WaitIdle(5000));
  std::vector<Sent> sent = SentCopy();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[1].method, "PATCH");
  EXPECT_EQ(sent[2].method, "POST");
  EXPECT_EQ(Parse(sent[2].body)["series"]["count"].GetInt(), 2);
  EXPECT_EQ(observer_.Written("created"), 2);
}

TEST_F(EventWriterTest, RecordNeverWaitsForTheServerAndAFullQueueIsCounted) {
  EventWriterOptions o = Options();
  o.queue_size = 4;
  {
    std::lock_guard<std::mutex> lock(api_.mu);
    api_.hold = true;  // the server does not answer
  }
  EventWriter writer(ctx_, o, &observer_);
  writer.Start();
  // The server holds the first write: every Record still returns.
  for (int i = 0; i < 50; ++i) writer.Record(Note("p" + std::to_string(i), "a"));
  {
    std::unique_lock<std::mutex> lock(api_.mu);
    api_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return !api_.sent.empty(); });
  }
  // One in flight, four queued, the rest dropped (46 when the first was still queued when the
  // queue filled).
  EXPECT_GE(observer_.Dropped("queue_full"), 45);
  EXPECT_LE(observer_.Dropped("queue_full"), 46);
  writer.Stop();  // cancels the held request
  EXPECT_EQ(SentCopy().size(), 1u);
}

TEST_F(EventWriterTest, AServerErrorIsCountedAndBacksOffThenWritesResume) {
  EventWriterOptions o = Options();
  o.backoff_initial_ms = 40;
  EventWriter writer(ctx_, o, &observer_);
  {
    std::lock_guard<std::mutex> lock(api_.mu);
    api_.statuses = {500, 403};
  }
  writer.Start();
  writer.Record(Note("a", "x"));
  writer.Record(Note("b", "x"));
  writer.Record(Note("c", "x"));
  ASSERT_TRUE(writer.WaitIdle(5000));
  EXPECT_EQ(observer_.Written("failed"), 2);
  EXPECT_EQ(observer_.Written("created"), 1);
  EXPECT_EQ(SentCopy().size(), 3u);
}

// A server that refuses writes (409: the name is taken; 422: the Event is invalid) is not written
// to at the global bucket's rate either: each refusal is one backoff step before the next write.
// The global bucket (burst 20) would send all three at once.
TEST_F(EventWriterTest, ConflictAndInvalidAnswersBackOffLikeOtherErrors) {
  EventWriterOptions o = Options();
  o.backoff_initial_ms = 200;  // the first step waits 100-200 ms, the second 200-400 ms
  EventWriter writer(ctx_, o, &observer_);
  {
    std::lock_guard<std::mutex> lock(api_.mu);
    api_.statuses = {409, 422};
  }
  writer.Start();
  writer.Record(Note("a", "x"));
  writer.Record(Note("b", "x"));
  writer.Record(Note("c", "x"));
  ASSERT_TRUE(writer.WaitIdle(10000));
  EXPECT_EQ(observer_.Written("failed"), 2);
  EXPECT_EQ(observer_.Written("created"), 1);
  const std::vector<Sent> sent = SentCopy();
  ASSERT_EQ(sent.size(), 3u);
  using std::chrono::milliseconds;
  EXPECT_GE(sent[1].at - sent[0].at, milliseconds(100));
  EXPECT_GE(sent[2].at - sent[1].at, milliseconds(200));
}

TEST_F(EventWriterTest, StopCancelsTheWriteInFlightAndLeavesTheQueue) {
  {
    std::lock_guard<std::mutex> lock(api_.mu);
    api_.hold = true;
  }
  EventWriter writer(ctx_, Options(), &observer_);
  writer.Start();
  for (int i = 0; i < 10; ++i) writer.Record(Note("p" + std::to_string(i), "a"));
  {
    std::unique_lock<std::mutex> lock(api_.mu);
    api_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return !api_.sent.empty(); });
  }
  writer.Stop();
  EXPECT_EQ(SentCopy().size(), 1u);
  EXPECT_EQ(observer_.Written("failed"), 0);  // a cancelled write is not a failure
}

}  // namespace
}  // namespace podwait
