// The reflector against a scripted in-process HTTP client: list pagination, watch resume,
// bookmarks, 410 relists with replace semantics, backoff on 429/5xx, 401 token re-read, 404,
// malformed lines, and a prompt stop. Payloads are made up in the shape of kube-apiserver's list
// and watch answers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>

#include "exporter/app/observers.h"
#include "exporter/common/json.h"
#include "exporter/kube/reflector.h"
#include "tests/support/process.h"
#include "tests/support/threaded_async_http.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;
using namespace std::chrono_literals;

// One scripted answer: returns the response, and for a stream feeds on_data.
using Step =
    std::function<HttpResponse(const HttpRequest&, const std::function<bool(std::string_view)>*)>;

// Shared between the test and the fake client (which runs on the reflector's thread).
struct Script {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Step> steps;
  std::vector<std::string> urls;
  std::vector<std::string> auth;  // Authorization header of each request
  std::vector<int64_t> times_ms;  // steady time of each request

  void Push(Step s) {
    std::lock_guard<std::mutex> lock(mu);
    steps.push_back(std::move(s));
    cv.notify_all();
  }
  size_t Requests() {
    std::lock_guard<std::mutex> lock(mu);
    return urls.size();
  }
  std::string Url(size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    return i < urls.size() ? urls[i] : "";
  }
};

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Waits for a scripted step; with none, behaves like an idle connection until cancelled.
class FakeClient final : public HttpClient {
 public:
  explicit FakeClient(Script* script) : script_(script) {}
  HttpResponse Get(const HttpRequest& req, size_t) override { return Next(req, nullptr); }
  HttpResponse Stream(const HttpRequest& req,
                      const std::function<bool(std::string_view)>& on_data) override {
    return Next(req, &on_data);
  }

 private:
  HttpResponse Next(const HttpRequest& req, const std::function<bool(std::string_view)>* on_data) {
    Step step;
    {
      std::unique_lock<std::mutex> lock(script_->mu);
      script_->urls.push_back(req.url);
      std::string auth;
      for (const auto& [k, v] : req.headers) {
        if (k == "Authorization") auth = v;
      }
      script_->auth.push_back(auth);
      script_->times_ms.push_back(SteadyMs());
      while (script_->steps.empty()) {
        if (req.cancel != nullptr && req.cancel->load()) {
          HttpResponse r;
          r.cancelled = true;
          r.error = "cancelled";
          return r;
        }
        script_->cv.wait_for(lock, 10ms);
      }
      step = std::move(script_->steps.front());
      script_->steps.pop_front();
    }
    return step(req, on_data);
  }
  Script* script_;
};

// --- payload helpers -------------------------------------------------------------------------

std::string PodJsonIn(const std::string& ns, const std::string& name, const std::string& rv) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":"uid-)" + name + R"(","resourceVersion":")" + rv +
         R"("},"status":{"phase":"Pending"}})";
}
std::string PodJson(const std::string& name, const std::string& rv) {
  return PodJsonIn("tidb", name, rv);
}

Step ListPage(std::vector<std::string> items, std::string rv, std::string cont = "") {
  return [=](const HttpRequest&, const std::function<bool(std::string_view)>*) {
    HttpResponse r;
    r.status = 200;
    r.body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv + "\"";
    if (!cont.empty()) r.body += R"(,"continue":")" + cont + "\"";
    r.body += R"(},"items":[)";
    for (size_t i = 0; i < items.size(); ++i) r.body += (i ? "," : "") + items[i];
    r.body += "]}";
    return r;
  };
}

std::string Event(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}\n";
}
std::string Bookmark(const std::string& rv) {
  return Event("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                               rv + R"("}})");
}

// A watch answer: the bytes in chunks of `chunk` bytes, then a clean close (or an error).
Step WatchStream(std::string bytes, size_t chunk = 7, std::string end_error = "") {
  return [=](const HttpRequest&, const std::function<bool(std::string_view)>* on_data) {
    HttpResponse r;
    r.status = 200;
    for (size_t i = 0; i < bytes.size(); i += chunk) {
      if (!(*on_data)(std::string_view(bytes).substr(i, chunk))) return r;
    }
    r.error = end_error;
    return r;
  };
}

// A watch answer that delivers `bytes` and then stays open, idle, until the reflector stops.
Step WatchStreamThenIdle(std::string bytes) {
  return [=](const HttpRequest& req, const std::function<bool(std::string_view)>* on_data) {
    HttpResponse r;
    r.status = 200;
    if (!(*on_data)(bytes)) return r;
    while (!req.cancel->load()) std::this_thread::sleep_for(5ms);
    r.cancelled = true;
    r.error = "cancelled";
    return r;
  };
}

Step Status(int code, std::string body = "", int64_t retry_after = -1) {
  return [=](const HttpRequest&, const std::function<bool(std::string_view)>*) {
    HttpResponse r;
    r.status = code;
    r.body = body;
    r.retry_after_s = retry_after;
    return r;
  };
}

Step ConnectionRefused() {
  return [](const HttpRequest&, const std::function<bool(std::string_view)>*) {
    HttpResponse r;
    r.error = "Couldn't connect to server";
    return r;
  };
}

// A handler that keeps name -> resourceVersion with the replace contract, and a call log.
class MapHandler final : public ReflectorHandler {
 public:
  void OnListBegin() override {
    std::lock_guard<std::mutex> lock(mu_);
    staged_.clear();
    log_.push_back("begin");
  }
  bool OnListItem(const rapidjson::Value& o) override {
    auto name = json::Str(json::Object(&o, "metadata"), "name");
    if (name.empty()) return false;
    if (on_list_item_) on_list_item_(std::string(name));
    std::lock_guard<std::mutex> lock(mu_);
    shapes_.push_back(Shape(o));
    staged_[std::string(name)] = std::string(ObjectResourceVersion(o));
    return true;
  }
  void OnListEnd(const std::string& rv) override {
    std::lock_guard<std::mutex> lock(mu_);
    objects_ = std::move(staged_);
    staged_.clear();
    log_.push_back("end@" + rv);
  }
  void OnListAbort() override {
    std::lock_guard<std::mutex> lock(mu_);
    staged_.clear();
    log_.push_back("abort");
  }
  bool OnEvent(WatchEventType type, const rapidjson::Value& o) override {
    auto name = json::Str(json::Object(&o, "metadata"), "name");
    if (name.empty()) return false;
    std::lock_guard<std::mutex> lock(mu_);
    shapes_.push_back(Shape(o));
    if (type == WatchEventType::kDeleted) {
      objects_.erase(std::string(name));
    } else {
      objects_[std::string(name)] = std::string(ObjectResourceVersion(o));
    }
    log_.push_back(std::string(WatchEventTypeName(type)) + ":" + std::string(name));
    return true;
  }
  bool OnNotFound() override {
    not_found_ = true;
    return stop_on_not_found_;
  }
  bool OnForbidden() override {
    forbidden_ = true;
    return stop_on_forbidden_;
  }
  std::optional<size_t> ObjectCount() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_.size();
  }

  std::map<std::string, std::string> objects() const {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_;
  }
  std::vector<std::string> log() const {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  // Of every object handed over: the member names of its metadata and of its spec.
  std::vector<std::string> shapes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return shapes_;
  }
  bool stop_on_not_found_ = true;
  std::atomic<bool> not_found_{false};
  bool stop_on_forbidden_ = false;
  std::atomic<bool> forbidden_{false};
  std::function<void(const std::string& name)>
      on_list_item_;  // runs first, on the reflector thread

 private:
  mutable std::mutex mu_;
  static std::string Shape(const rapidjson::Value& o) {
    std::string out;
    for (const char* part : {"metadata", "spec"}) {
      out += std::string(part) + ":";
      if (const rapidjson::Value* v = json::Object(&o, part)) {
        for (const auto& m : v->GetObject()) out += std::string(m.name.GetString()) + ",";
      }
    }
    return out;
  }

  std::map<std::string, std::string> staged_, objects_;
  std::vector<std::string> log_;
  std::vector<std::string> shapes_;
};

class ReflectorTest : public ::testing::Test {
 protected:
  ReflectorTest() {
    ctx_.endpoint.api_url = "http://api.test";
    ctx_.env.http = [this] { return std::make_unique<FakeClient>(&script_); };
    testing::UseThreadedAsyncHttp(&ctx_.env);
    ctx_.observers = MakeSelfMetricsReflectorObservers(metrics_);
    ctx_.sync = &sync_;
    opts_.resource = "pods";
    opts_.path = "/api/v1/namespaces/tidb/pods";
    opts_.label_selector = "app.kubernetes.io/managed-by=tidb-operator";
    opts_.page_size = 2;
    opts_.backoff_initial_ms = 20;
    opts_.backoff_max_ms = 80;
    opts_.seed = 42;
    opts_.watch_list = false;  // the paged list; the watch-list has its own tests below
  }

  std::unique_ptr<Reflector> StartReflector() {
    auto r = std::make_unique<Reflector>(ctx_, opts_, handler_);
    r->Start();
    return r;
  }
  bool WaitForRequests(size_t n) {
    return testing::WaitFor([&] { return script_.Requests() >= n; }, 5s);
  }
  double Counter(prometheus::Counter& c) { return c.Value(); }

  Script script_;
  SelfMetrics metrics_;
  SyncStatus sync_;
  KubeContext ctx_;
  ReflectorOptions opts_;
  MapHandler handler_;
};

TEST_F(ReflectorTest, ListsAcrossPagesThenWatchesFromTheListVersion) {
  script_.Push(ListPage({PodJson("a", "5"), PodJson("b", "6")}, "10", "tok+1/="));
  script_.Push(ListPage({PodJson("c", "7")}, "10"));
  auto r = std::make_unique<Reflector>(ctx_, opts_, handler_);
  EXPECT_FALSE(sync_.AllSynced());
  r->Start();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_TRUE(r->synced());
  EXPECT_TRUE(sync_.AllSynced());
  EXPECT_THAT(handler_.objects(),
              UnorderedElementsAre(std::pair<const std::string, std::string>("a", "5"),
                                   std::pair<const std::string, std::string>("b", "6"),
                                   std::pair<const std::string, std::string>("c", "7")));
  EXPECT_EQ(script_.Url(0),
            "http://api.test/api/v1/namespaces/tidb/pods?limit=2&labelSelector=app.kubernetes.io%2F"
            "managed-by%3Dtidb-operator");
  EXPECT_THAT(script_.Url(1), HasSubstr("limit=2&continue=tok%2B1%2F%3D"));
  EXPECT_THAT(script_.Url(2), HasSubstr("?watch=true&allowWatchBookmarks=true&timeoutSeconds=300"
                                        "&resourceVersion=10&labelSelector="));
  EXPECT_EQ(metrics_.WatchSynced("pods").Value(), 1);
  EXPECT_EQ(metrics_.Objects("pods").Value(), 3);
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "end@10"}));
  r->Stop();
}

// One watch over all namespaces standing for many (--namespaces.cluster-wide-above): the handler
// sees only the watched namespaces' objects, and the watch resumes past the others' events.
TEST_F(ReflectorTest, AClusterWideReflectorKeepsOnlyTheWatchedNamespaces) {
  opts_.path = "/api/v1/pods";
  opts_.only_namespaces = {"a-ns", "tidb"};
  script_.Push(ListPage({PodJsonIn("tidb", "a", "5"), PodJsonIn("other", "b", "6")}, "10", "t"));
  script_.Push(ListPage({PodJsonIn("a-ns", "c", "7"), R"({"kind":"Pod","metadata":{}})"}, "10"));
  script_.Push(WatchStream(Event("ADDED", PodJsonIn("other", "d", "11")) +
                           Event("ADDED", PodJsonIn("tidb", "e", "12")) +
                           Event("DELETED", PodJsonIn("other", "a", "13"))));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  EXPECT_EQ(script_.Url(0).rfind("http://api.test/api/v1/pods?limit=2", 0), 0u);
  EXPECT_THAT(script_.Url(3), HasSubstr("resourceVersion=13&"));
  EXPECT_EQ(handler_.objects(),
            (std::map<std::string, std::string>{{"a", "5"}, {"c", "7"}, {"e", "12"}}));
  EXPECT_EQ(metrics_.Objects("pods").Value(), 3);
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 0);
  r->Stop();
}

TEST_F(ReflectorTest, AppliesEventsAndResumesFromTheLastVersionIncludingBookmarks) {
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  script_.Push(WatchStream(Event("ADDED", PodJson("b", "11")) +
                           Event("MODIFIED", PodJson("a", "12")) +
                           Event("DELETED", PodJson("b", "13")) + Bookmark("20")));
  // The server ends the watch (timeoutSeconds); the next one must resume at the bookmark.
  script_.Push(WatchStream(Event("ADDED", PodJson("c", "21")), 3, "Connection reset by peer"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  EXPECT_THAT(script_.Url(2), HasSubstr("resourceVersion=20&"));
  // The dropped connection resumes from the last event, without a relist.
  EXPECT_THAT(script_.Url(3), HasSubstr("watch=true"));
  EXPECT_THAT(script_.Url(3), HasSubstr("resourceVersion=21&"));
  EXPECT_EQ(r->lists(), 1u);
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "12"}, {"c", "21"}}));
  EXPECT_EQ(metrics_.WatchEvents("pods", "ADDED").Value(), 2);
  EXPECT_EQ(metrics_.WatchEvents("pods", "BOOKMARK").Value(), 1);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "closed").Value(), 1);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "connection").Value(), 1);
  EXPECT_EQ(metrics_.WatchRelists("pods").Value(), 0);
  EXPECT_GT(metrics_.WatchLastEventTimestamp("pods").Value(), 1e9);
  r->Stop();
}

// A pod as the API server sends it carries managedFields; the handler gets the object without the
// subtrees of skip_fields, from list pages and from watch events alike.
TEST_F(ReflectorTest, ListAndWatchLeaveOutTheSkippedFields) {
  const std::string pod =
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"tidb","uid":"u",)"
      R"("resourceVersion":"5","managedFields":[{"manager":"kubelet","operation":"Update",)"
      R"("fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}},"subresource":"status"}],)"
      R"("labels":{"x":"y"}},"spec":{"containers":[{"name":"tikv","env":[{"name":"TZ"}]}],)"
      R"("initContainers":[{"name":"wait-for-pd"}],"nodeName":"n1"},"status":{"phase":"Running"}})";
  const std::string rv5 = R"("resourceVersion":"5")";
  std::string modified = pod;
  modified.replace(modified.find(rv5), rv5.size(), R"("resourceVersion":"6")");
  opts_.skip_fields = {"metadata.managedFields", "spec.containers"};
  script_.Push(ListPage({pod}, "10"));
  script_.Push(WatchStream(Event("MODIFIED", modified)));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  ASSERT_TRUE(testing::WaitFor([&] { return handler_.shapes().size() >= 2; }, 5s));
  r->Stop();
  EXPECT_THAT(handler_.shapes(),
              ElementsAre("metadata:name,namespace,uid,resourceVersion,labels,spec:initContainers,"
                          "nodeName,",
                          "metadata:name,namespace,uid,resourceVersion,labels,spec:initContainers,"
                          "nodeName,"));
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "6"}}));
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 0);
}

TEST_F(ReflectorTest, ByDefaultOnlyManagedFieldsAreLeftOut) {
  EXPECT_EQ(ReflectorOptions().skip_fields, std::vector<std::string>{"metadata.managedFields"});
  script_.Push(ListPage(
      {R"({"metadata":{"name":"a","managedFields":[{"manager":"m"}],"resourceVersion":"5"},)"
       R"("spec":{"containers":[]}})"},
      "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  r->Stop();
  EXPECT_THAT(handler_.shapes(), ElementsAre("metadata:name,resourceVersion,spec:containers,"));
}

// The next page is asked for before this page's items are handed over (and so before its parse
// is done): the server sends page 2 while the reflector works on page 1.
TEST_F(ReflectorTest, TheNextPageIsRequestedWhileThisOneIsHandled) {
  std::atomic<bool> page2_requested_during_page1{false};
  handler_.on_list_item_ = [&](const std::string& name) {
    if (name == "a") {
      page2_requested_during_page1 = testing::WaitFor([&] { return script_.Requests() >= 2; }, 5s);
    }
  };
  script_.Push(ListPage({PodJson("a", "5"), PodJson("b", "6")}, "10", "tok2"));
  script_.Push(ListPage({PodJson("c", "7"), PodJson("d", "8")}, "10", "tok3"));
  script_.Push(ListPage({PodJson("e", "9")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  EXPECT_TRUE(r->synced());
  r->Stop();
  EXPECT_TRUE(page2_requested_during_page1);
  EXPECT_THAT(script_.Url(1), HasSubstr("&continue=tok2"));
  EXPECT_THAT(script_.Url(2), HasSubstr("&continue=tok3"));
  EXPECT_THAT(script_.Url(3), HasSubstr("watch=true"));
  EXPECT_EQ(handler_.objects().size(), 5u);
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "end@10"}));
}

// A page whose metadata follows its items is parsed first, and the next page asked for after.
TEST_F(ReflectorTest, MetadataAfterTheItemsStillPages) {
  script_.Push([](const HttpRequest&, const std::function<bool(std::string_view)>*) {
    HttpResponse resp;
    resp.status = 200;
    resp.body = R"({"items":[)" + PodJson("a", "5") +
                R"(],"metadata":{"resourceVersion":"10","continue":"t"},"kind":"PodList"})";
    return resp;
  });
  script_.Push(ListPage({PodJson("b", "6")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  r->Stop();
  EXPECT_THAT(script_.Url(1), HasSubstr("&continue=t"));
  EXPECT_EQ(handler_.objects().size(), 2u);
}

// A page that fails to parse drops the page already asked for, and the list starts over.
TEST_F(ReflectorTest, AMalformedPageDropsThePrefetchedOne) {
  script_.Push([](const HttpRequest&, const std::function<bool(std::string_view)>*) {
    HttpResponse resp;
    resp.status = 200;
    resp.body =
        R"({"kind":"PodList","metadata":{"resourceVersion":"10","continue":"t"},"items":[{]})";
    return resp;
  });
  script_.Push(ListPage({PodJson("never", "6")}, "10"));  // the prefetched page 2, dropped
  script_.Push(ListPage({PodJson("a", "5")}, "11"));      // the list again, from the start
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  r->Stop();
  EXPECT_THAT(script_.Url(1), HasSubstr("&continue=t"));
  EXPECT_THAT(script_.Url(2), Not(HasSubstr("continue")));
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "5"}}));
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 1);
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort", "begin", "end@11"}));
}

// Stop() while the prefetched page is still on its way (the server never answers it).
TEST_F(ReflectorTest, StopsPromptlyWhileTheNextPageIsOnItsWay) {
  std::atomic<bool> handed_over{false};
  handler_.on_list_item_ = [&](const std::string&) { handed_over = true; };
  script_.Push(ListPage({PodJson("a", "5")}, "10", "t"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  ASSERT_TRUE(testing::WaitFor([&] { return handed_over.load(); }, 5s));
  const auto t0 = std::chrono::steady_clock::now();
  r->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_THAT(handler_.log(), ElementsAre("begin", "abort"));
  EXPECT_TRUE(handler_.objects().empty());
}

TEST_F(ReflectorTest, ErrorEvent410RelistsAndReplacesTheWholeSet) {
  script_.Push(ListPage({PodJson("a", "5"), PodJson("b", "6")}, "10"));
  script_.Push(WatchStream(
      Event("ADDED", PodJson("c", "11")) +
      Event(
          "ERROR",
          R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (40)","reason":"Expired","code":410})j") +
      Event("ADDED", PodJson("never", "12"))));
  // The relist: b and c are gone on the server, d is new.
  script_.Push(ListPage({PodJson("a", "30")}, "40", "next"));
  script_.Push(ListPage({PodJson("d", "35")}, "40"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(5));
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "30"}, {"d", "35"}}));
  EXPECT_THAT(script_.Url(4), HasSubstr("resourceVersion=40&"));
  EXPECT_EQ(r->lists(), 2u);
  EXPECT_EQ(metrics_.WatchRelists("pods").Value(), 1);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "gone").Value(), 1);
  EXPECT_EQ(metrics_.WatchEvents("pods", "ERROR").Value(), 1);
  EXPECT_THAT(handler_.log(), Not(::testing::Contains("ADDED:never")));
  r->Stop();
}

TEST_F(ReflectorTest, Http410OnTheWatchRelists) {
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  script_.Push(Status(410, R"({"kind":"Status","code":410,"reason":"Gone"})"));
  script_.Push(ListPage({}, "50"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  EXPECT_TRUE(handler_.objects().empty());
  EXPECT_EQ(r->lists(), 2u);
  EXPECT_THAT(script_.Url(3), HasSubstr("resourceVersion=50&"));
  r->Stop();
}

TEST_F(ReflectorTest, ExpiredContinueTokenRestartsTheListFromScratch) {
  script_.Push(ListPage({PodJson("a", "5"), PodJson("b", "6")}, "10", "old-token"));
  script_.Push(Status(410, R"({"kind":"Status","code":410,"reason":"Expired",
    "message":"The provided continue parameter is too old to display a consistent list result."})"));
  script_.Push(ListPage({PodJson("a", "5")}, "60"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  EXPECT_THAT(script_.Url(2), Not(HasSubstr("continue=")));
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "5"}}));
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort", "begin", "end@60"}));
  EXPECT_EQ(metrics_.WatchRestarts("pods", "expired_continue").Value(), 1);
  r->Stop();
}

TEST_F(ReflectorTest, BacksOffOn429HonouringRetryAfterAndOn500) {
  script_.Push(Status(429, R"({"kind":"Status","code":429,"reason":"TooManyRequests"})", 1));
  script_.Push(Status(500, "internal error"));
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));
  EXPECT_TRUE(r->synced());
  std::lock_guard<std::mutex> lock(script_.mu);
  EXPECT_GE(script_.times_ms[1] - script_.times_ms[0], 1000);  // Retry-After: 1
  EXPECT_GE(script_.times_ms[2] - script_.times_ms[1], 20);    // exponential, second step
  EXPECT_EQ(metrics_.WatchRestarts("pods", "throttled").Value(), 1);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "server_error").Value(), 1);
}

TEST_F(ReflectorTest, WatchFailuresBackOffAndKeepTheResourceVersion) {
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  script_.Push(Status(503, "unavailable"));
  script_.Push(ConnectionRefused());
  script_.Push(WatchStream(Event("ADDED", PodJson("b", "11"))));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(5));
  for (int i = 1; i <= 3; ++i) EXPECT_THAT(script_.Url(i), HasSubstr("resourceVersion=10&"));
  EXPECT_THAT(script_.Url(4), HasSubstr("resourceVersion=11&"));
  EXPECT_EQ(r->lists(), 1u);
  EXPECT_EQ(handler_.objects().size(), 2u);
  r->Stop();
}

TEST_F(ReflectorTest, MalformedLinesAndObjectsAreCountedAndSkipped) {
  script_.Push(ListPage({PodJson("a", "5"), R"({"kind":"Pod","metadata":{}})", "17"}, "10"));
  script_.Push(WatchStream("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\n" +
                           Event("ADDED", PodJson("b", "11")) + "garbage\n" +
                           Event("MODIFIED", R"({"metadata":{"resourceVersion":"12"}})") +
                           Event("ADDED", PodJson("c", "13"))));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  ASSERT_TRUE(testing::WaitFor([&] { return handler_.objects().size() == 3; }, 5s));
  // list: one item without a name, one that is not an object; watch: two bad lines, one bad object
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 5);
  EXPECT_EQ(handler_.objects(),
            (std::map<std::string, std::string>{{"a", "5"}, {"b", "11"}, {"c", "13"}}));
  r->Stop();
}

TEST_F(ReflectorTest, OversizedWatchLineIsCountedAndSkipped) {
  opts_.max_line_bytes = 512;
  script_.Push(ListPage({}, "10"));
  std::string big = PodJson("big", "11");
  big.insert(big.size() - 1, R"(,"spec":{"padding":")" + std::string(2000, 'x') + "\"}");
  script_.Push(WatchStreamThenIdle(Event("ADDED", big) + Event("ADDED", PodJson("small", "12"))));
  auto r = StartReflector();
  ASSERT_TRUE(testing::WaitFor([&] { return handler_.objects().count("small") == 1; }, 5s));
  EXPECT_EQ(handler_.objects().count("big"), 0u);
  // Counted while the stream is still open, not when it ends.
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 1);
  r->Stop();
}

TEST_F(ReflectorTest, UnauthorizedRereadsTheTokenFile) {
  const std::string path = testing::MakeTempDir() + "/token";
  { std::ofstream(path) << "expired-token\n"; }
  FakeClock clock;
  TokenSource tokens(path, clock);
  ctx_.tokens = &tokens;
  script_.Push(Status(401, R"({"kind":"Status","code":401,"reason":"Unauthorized"})"));
  script_.Push(ListPage({}, "10"));
  tokens.Token();  // cached before the rotation
  { std::ofstream(path, std::ios::trunc) << "rotated-token\n"; }
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  std::lock_guard<std::mutex> lock(script_.mu);
  EXPECT_EQ(script_.auth[0], "Bearer expired-token");
  EXPECT_EQ(script_.auth[1], "Bearer rotated-token");
  EXPECT_EQ(script_.auth[2], "Bearer rotated-token");
}

TEST_F(ReflectorTest, NotFoundDisablesWhenTheHandlerSaysSo) {
  opts_.resource = "tidbclusters";
  opts_.path = "/apis/pingcap.com/v1alpha1/tidbclusters";
  script_.Push(Status(404, R"({"kind":"Status","code":404,"reason":"NotFound"})"));
  // Registered (not synced) from construction, before the list could answer.
  auto r = std::make_unique<Reflector>(ctx_, opts_, handler_);
  EXPECT_FALSE(sync_.AllSynced());
  r->Start();
  ASSERT_TRUE(testing::WaitFor([&] { return r->disabled(); }, 5s));
  EXPECT_TRUE(handler_.not_found_);
  EXPECT_TRUE(sync_.AllSynced());  // unregistered: /readyz does not wait for a missing CRD
  EXPECT_EQ(script_.Requests(), 1u);
}

// An optional input whose RBAC was not granted (the volume watch in a namespaced install):
// stopped for good with one log line, never holding /readyz.
TEST_F(ReflectorTest, ForbiddenDisablesWhenTheHandlerSaysSo) {
  handler_.stop_on_forbidden_ = true;
  opts_.resource = "persistentvolumes";
  opts_.path = "/api/v1/persistentvolumes";
  script_.Push(Status(403, R"({"kind":"Status","code":403,"reason":"Forbidden"})"));
  auto r = std::make_unique<Reflector>(ctx_, opts_, handler_);
  r->Start();
  ASSERT_TRUE(testing::WaitFor([&] { return r->disabled(); }, 5s));
  EXPECT_TRUE(handler_.forbidden_);
  EXPECT_TRUE(sync_.AllSynced());
  EXPECT_EQ(script_.Requests(), 1u);
}

// Any other input: a 403 is a failed list like any other, retried with backoff.
TEST_F(ReflectorTest, ForbiddenIsAFailedListForOtherHandlers) {
  script_.Push(Status(403, R"({"kind":"Status","code":403,"reason":"Forbidden"})"));
  script_.Push(ListPage({PodJson("a", "1")}, "2"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_TRUE(handler_.forbidden_);
  EXPECT_TRUE(r->synced());
  EXPECT_FALSE(r->disabled());
}

TEST_F(ReflectorTest, NotFoundRetriesWhenTheHandlerWantsTo) {
  handler_.stop_on_not_found_ = false;
  script_.Push(Status(404, ""));
  script_.Push(ListPage({PodJson("a", "1")}, "2"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_TRUE(r->synced());
  EXPECT_FALSE(r->disabled());
}

TEST_F(ReflectorTest, StopsPromptlyDuringAnIdleWatchAndDuringBackoff) {
  script_.Push(ListPage({}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));  // now inside an idle watch
  auto t0 = std::chrono::steady_clock::now();
  r->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);

  opts_.backoff_initial_ms = 60'000;
  opts_.backoff_max_ms = 60'000;
  script_.Push(Status(500, ""));
  auto r2 = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  std::this_thread::sleep_for(50ms);  // now sleeping in a long backoff
  t0 = std::chrono::steady_clock::now();
  r2->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

// --- servers that would make a naive reflector hammer them (issue: hot loops) -----------------

// A watch that answers 200 and closes after bytes that are not a real event: an HTML login page
// from a proxy, one bad line, a lone BOOKMARK. Each is a failure that backs off, never progress.
TEST_F(ReflectorTest, AWatchThatClosesWithoutEventsBacksOff) {
  opts_.backoff_initial_ms = 400;  // steps of 0.2-0.4 s, then 0.4-0.8 s, ...
  opts_.backoff_max_ms = 800;
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  const std::string html = "<!DOCTYPE html><html><body>Sign in</body></html>\n";
  for (int i = 0; i < 20; ++i) {
    script_.Push(WatchStream(i % 3 == 0 ? html : i % 3 == 1 ? "garbage\n" : Bookmark("10")));
  }
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  std::this_thread::sleep_for(1s);
  // Before: all 20 answers were used up within milliseconds (~3,500 watches/s on loopback).
  // Now: a handful of steps fit into a second.
  EXPECT_LT(script_.Requests(), 10u);
  EXPECT_GE(metrics_.WatchRestarts("pods", "short_watch").Value(), 1);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "closed").Value(), 0);
  EXPECT_EQ(r->lists(), 1u);
  r->Stop();
}

// A watch that brings a real event and ends cleanly is resumed at once.
TEST_F(ReflectorTest, AWatchWithRealEventsIsResumedAtOnce) {
  opts_.backoff_initial_ms = 60'000;
  script_.Push(ListPage({}, "10"));
  script_.Push(WatchStream(Event("ADDED", PodJson("a", "11"))));
  script_.Push(WatchStream(Event("ADDED", PodJson("b", "12"))));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(4));  // no 30-60 s backoff between the watches
  EXPECT_EQ(metrics_.WatchRestarts("pods", "closed").Value(), 2);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "short_watch").Value(), 0);
  r->Stop();
}

// ERROR 410 right after every list: the relist is rate-limited by the same backoff.
TEST_F(ReflectorTest, RelistsAfter410AreBackedOff) {
  opts_.backoff_initial_ms = 400;
  opts_.backoff_max_ms = 800;
  const std::string expired =
      Event("ERROR", R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                     R"("message":"too old resource version","reason":"Expired","code":410})");
  for (int i = 0; i < 20; ++i) {
    script_.Push(ListPage({PodJson("a", std::to_string(10 + i))}, std::to_string(10 + i)));
    script_.Push(WatchStream(expired));
  }
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  std::this_thread::sleep_for(1s);
  // Before: ~1,700 full lists a second; all 20 lists would be gone at once.
  EXPECT_LT(r->lists(), 5u);
  EXPECT_GE(metrics_.WatchRelists("pods").Value(), 1);
  r->Stop();
}

// A continue token that comes back is an error, not a list that pages forever.
TEST_F(ReflectorTest, ARepeatedContinueTokenFailsTheList) {
  opts_.backoff_initial_ms = 60'000;
  script_.Push(ListPage({PodJson("a", "5")}, "10", "same"));
  for (int i = 0; i < 5; ++i) script_.Push(ListPage({PodJson("b", "6")}, "10", "same"));
  auto r = StartReflector();
  ASSERT_TRUE(testing::WaitFor(
      [&] { return metrics_.WatchRestarts("pods", "continue_loop").Value() == 1; }, 5s));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(script_.Requests(), 2u);  // the first page and the one that repeated its token
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort"}));
  EXPECT_TRUE(handler_.objects().empty());
  EXPECT_FALSE(r->synced());
  r->Stop();
}

// Tokens that never end: the list stops at max_list_pages.
TEST_F(ReflectorTest, AnEndlessListStopsAtThePageLimit) {
  opts_.backoff_initial_ms = 60'000;
  opts_.max_list_pages = 5;
  for (int i = 0; i < 50; ++i) {
    script_.Push(ListPage({PodJson("p" + std::to_string(i), "5")}, "10", "t" + std::to_string(i)));
  }
  auto r = StartReflector();
  ASSERT_TRUE(testing::WaitFor(
      [&] { return metrics_.WatchRestarts("pods", "too_many_pages").Value() == 1; }, 5s));
  std::this_thread::sleep_for(100ms);
  EXPECT_LE(script_.Requests(), 6u);
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort"}));
  r->Stop();
}

// /readyz and podwait_watch_synced while the watch cannot stay open, and after it can again.
TEST_F(ReflectorTest, ReadinessTellsTheTruthWhileTheWatchCannotStayOpen) {
  opts_.unready_after_failures = 3;
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  EXPECT_TRUE(sync_.AllSynced());
  EXPECT_EQ(metrics_.WatchSynced("pods").Value(), 1);
  for (int i = 0; i < 3; ++i) script_.Push(WatchStream("<html>proxy login</html>\n"));
  ASSERT_TRUE(testing::WaitFor([&] { return !sync_.AllSynced(); }, 5s));
  EXPECT_EQ(metrics_.WatchSynced("pods").Value(), 0);
  EXPECT_TRUE(r->synced());  // it did sync once; it is out of sync now
  script_.Push(WatchStreamThenIdle(Event("ADDED", PodJson("b", "11"))));
  ASSERT_TRUE(testing::WaitFor([&] { return sync_.AllSynced(); }, 5s));
  EXPECT_EQ(metrics_.WatchSynced("pods").Value(), 1);
  r->Stop();
}

// One budget for every reflector of a server: a server that ends each watch after one real event
// (progress, so no backoff) still gets no more than burst + qps * t requests.
TEST_F(ReflectorTest, TheRequestBudgetBoundsEvenWatchesThatMakeProgress) {
  ctx_.budget = std::make_shared<RequestBudget>(/*qps=*/5, /*burst=*/5);
  script_.Push(ListPage({}, "10"));
  for (int i = 0; i < 200; ++i) {
    script_.Push(
        WatchStream(Event("ADDED", PodJson("a" + std::to_string(i), "1" + std::to_string(i)))));
  }
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  std::this_thread::sleep_for(1s);
  EXPECT_LT(script_.Requests(), 30u);  // 5 at once + ~5 a second; before: all 200 at once
  EXPECT_GT(ctx_.budget->delayed(), 0u);
  r->Stop();
}

// A page fetched ahead of need only with a token at hand: when the budget is spent, the page is
// asked for after the wait, and charged once. (Reserving for a prefetch that is then not sent
// charged each throttled page twice.)
TEST_F(ReflectorTest, AThrottledListChargesEachPageOnce) {
  ctx_.budget = std::make_shared<RequestBudget>(/*qps=*/50, /*burst=*/1);
  for (int i = 0; i < 5; ++i) {
    const std::string name = "p" + std::to_string(i);
    script_.Push(ListPage({PodJson(name, "5")}, "10", i < 4 ? "tok" + std::to_string(i) : ""));
  }
  script_.Push(WatchStreamThenIdle(Event("ADDED", PodJson("late", "11"))));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(6));
  ASSERT_TRUE(testing::WaitFor([&] { return handler_.objects().size() == 6; }, 5s));
  // 5 pages and the watch, each charged once, whether its page waited or was fetched ahead.
  EXPECT_EQ(ctx_.budget->requests(), 6u);
  r->Stop();
}

// --- the watch-list (KEP-3157) and its fallback ----------------------------------------------

std::string EndBookmark(const std::string& rv) {
  return Event("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                               rv + R"(","annotations":{"k8s.io/initial-events-end":"true"}}})");
}

// A pod whose spec holds a value nested `depth` arrays deep (past the JSON limit when > 64).
std::string DeepPodJson(const std::string& name, const std::string& rv, int depth) {
  std::string pod = PodJson(name, rv);
  pod.insert(pod.size() - 1,
             R"(,"spec":{"deep":)" + std::string(depth, '[') + std::string(depth, ']') + "}");
  return pod;
}

class WatchListTest : public ReflectorTest {
 protected:
  WatchListTest() { opts_.watch_list = true; }
};

// One request: the initial events are the sync, the end bookmark completes it, and the same
// stream goes on as the watch.
TEST_F(WatchListTest, TheInitialEventsAreTheSyncAndTheStreamGoesOn) {
  script_.Push(WatchStreamThenIdle(Event("ADDED", PodJson("a", "5")) +
                                   Event("ADDED", PodJson("b", "6")) + EndBookmark("10") +
                                   Event("MODIFIED", PodJson("a", "11"))));
  auto r = StartReflector();
  ASSERT_TRUE(testing::WaitFor(
      [&] { return handler_.objects().count("a") == 1 && handler_.objects().at("a") == "11"; },
      5s));
  EXPECT_EQ(script_.Url(0),
            "http://api.test/api/v1/namespaces/tidb/pods?watch=true&sendInitialEvents=true"
            "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=300"
            "&labelSelector=app.kubernetes.io%2Fmanaged-by%3Dtidb-operator");
  EXPECT_EQ(script_.Requests(), 1u);
  EXPECT_TRUE(r->synced());
  EXPECT_TRUE(sync_.AllSynced());
  EXPECT_EQ(r->lists(), 1u);
  EXPECT_EQ(r->resource_version(), "11");
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "end@10", "MODIFIED:a"}));
  EXPECT_EQ(ctx_.watch_list->Get("/api/v1/pods"), WatchListSupport::State::kSupported);
  r->Stop();
}

// After the stream ends, the watch resumes from the last version (no second sync).
TEST_F(WatchListTest, AfterTheSyncTheWatchResumesFromTheLastVersion) {
  script_.Push(WatchStream(Event("ADDED", PodJson("a", "5")) + EndBookmark("10") +
                           Event("ADDED", PodJson("b", "12"))));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  EXPECT_THAT(script_.Url(1), HasSubstr("?watch=true&allowWatchBookmarks=true&timeoutSeconds=300"
                                        "&resourceVersion=12&"));
  EXPECT_EQ(r->lists(), 1u);
  r->Stop();
}

// A server with the WatchList feature off (or older than it) refuses the parameters with 422:
// the sync is a paged list, and every later sync of that collection too, for every reflector.
TEST_F(WatchListTest, ARefusalFallsBackToPagesAndIsRemembered) {
  script_.Push(Status(422,
                      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                      R"("message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: )"
                      R"(Forbidden: sendInitialEvents is forbidden for watch unless the WatchList )"
                      R"(feature gate is enabled","reason":"Invalid","code":422})"));
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_THAT(script_.Url(0), HasSubstr("sendInitialEvents=true"));
  EXPECT_THAT(script_.Url(1), HasSubstr("?limit=2&"));
  EXPECT_THAT(script_.Url(2), HasSubstr("watch=true&allowWatchBookmarks=true"));
  EXPECT_TRUE(r->synced());
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort", "begin", "end@10"}));
  EXPECT_EQ(metrics_.WatchRestarts("pods", "http_error").Value(), 0);  // not a failure
  r->Stop();
  EXPECT_EQ(ctx_.watch_list->Get("/api/v1/pods"), WatchListSupport::State::kUnsupported);

  // Another namespace's reflector of the same resource lists in pages at once.
  opts_.path = "/api/v1/namespaces/other/pods";
  opts_.name = "pods/other";
  MapHandler other;
  script_.Push(ListPage({PodJsonIn("other", "x", "7")}, "20"));
  Reflector second(ctx_, opts_, other);
  second.Start();
  ASSERT_TRUE(WaitForRequests(5));
  EXPECT_THAT(script_.Url(3), HasSubstr("/namespaces/other/pods?limit=2&"));
  second.Stop();
}

// An ERROR event refusing the parameters is a refusal too.
TEST_F(WatchListTest, AnErrorEventRefusingTheParametersFallsBack) {
  script_.Push(WatchStream(
      Event("ERROR",
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"resourceVersionMatch: Forbidden","reason":"BadRequest","code":400})")));
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_THAT(script_.Url(1), HasSubstr("?limit=2&"));
  EXPECT_TRUE(r->synced());
  r->Stop();
}

// A server (or a proxy) that drops the parameters sends a plain watch: the state as ADDED events,
// but never the end bookmark. Quiet for watch_list_idle_ms: the reflector lists in pages, and
// the objects staged from the plain watch are dropped, not applied. Silence is a weak sign (a
// busy server): not remembered for the collection.
TEST_F(WatchListTest, AServerThatIgnoresTheParametersIsDetectedByItsSilence) {
  opts_.watch_list_idle_ms = 200;
  script_.Push(WatchStreamThenIdle(Event("ADDED", PodJson("stale", "5"))));
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  ASSERT_TRUE(testing::WaitFor([&] { return r->synced(); }, 5s));
  EXPECT_THAT(script_.Url(1), HasSubstr("?limit=2&"));
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "5"}}));
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort", "begin", "end@10"}));
  EXPECT_EQ(ctx_.watch_list->Get("/api/v1/pods"), WatchListSupport::State::kUnknown);
  r->Stop();
}

// ... or by a bookmark that is not the end one, or by a clean close before the end.
TEST_F(WatchListTest, ABookmarkOrACloseBeforeTheEndFallsBack) {
  script_.Push(WatchStreamThenIdle(Event("ADDED", PodJson("stale", "5")) + Bookmark("9")));
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_THAT(script_.Url(1), HasSubstr("?limit=2&"));
  r->Stop();

  ctx_.watch_list = std::make_shared<WatchListSupport>();
  MapHandler other;
  script_.Push(WatchStream(Event("ADDED", PodJson("stale", "5"))));
  script_.Push(ListPage({PodJson("a", "5")}, "10"));
  Reflector second(ctx_, opts_, other);
  second.Start();
  ASSERT_TRUE(WaitForRequests(6));
  EXPECT_THAT(script_.Url(3), HasSubstr("sendInitialEvents=true"));
  EXPECT_THAT(script_.Url(4), HasSubstr("?limit=2&"));
  second.Stop();
}

// A watch-list that fails midway (a dropped connection) is a failed sync: backoff, then the
// watch-list again; the handler keeps its state.
TEST_F(WatchListTest, AWatchListThatFailsMidwayIsRetried) {
  script_.Push(WatchStream(Event("ADDED", PodJson("a", "5")), 7, "Connection reset by peer"));
  script_.Push(WatchStreamThenIdle(Event("ADDED", PodJson("a", "6")) + EndBookmark("10")));
  auto r = StartReflector();
  ASSERT_TRUE(testing::WaitFor([&] { return r->synced(); }, 5s));
  EXPECT_THAT(script_.Url(1), HasSubstr("sendInitialEvents=true"));
  EXPECT_EQ(handler_.log(), (std::vector<std::string>{"begin", "abort", "begin", "end@10"}));
  EXPECT_EQ(metrics_.WatchRestarts("pods", "connection").Value(), 1);
  r->Stop();
}

// --- one bad object alone (issue 38) -----------------------------------------------------------

// A pod nested past the JSON limit in a list page is skipped alone: the page's other pods are
// kept and the resource is synced (before: the page failed whole, /readyz 503 and 0 pods).
TEST_F(ReflectorTest, AnObjectNestedTooDeepIsSkippedAloneInAListPage) {
  script_.Push(
      ListPage({PodJson("a", "5"), DeepPodJson("deep", "6", 70), PodJson("c", "7")}, "10"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(2));
  EXPECT_TRUE(r->synced());
  EXPECT_TRUE(sync_.AllSynced());
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "5"}, {"c", "7"}}));
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 1);
  EXPECT_EQ(metrics_.WatchRestarts("pods", "parse").Value(), 0);
  r->Stop();
}

// The same in a watch-list's initial events and in the watch after them.
TEST_F(WatchListTest, AnObjectNestedTooDeepIsSkippedAloneInTheWatch) {
  script_.Push(WatchStreamThenIdle(
      Event("ADDED", PodJson("a", "5")) + Event("ADDED", DeepPodJson("deep", "6", 70)) +
      EndBookmark("10") + Event("ADDED", DeepPodJson("deep2", "11", 70)) +
      Event("ADDED", PodJson("b", "12"))));
  auto r = StartReflector();
  ASSERT_TRUE(testing::WaitFor([&] { return handler_.objects().count("b") == 1; }, 5s));
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "5"}, {"b", "12"}}));
  EXPECT_EQ(metrics_.ParseErrors("pods").Value(), 2);
  EXPECT_TRUE(sync_.AllSynced());
  r->Stop();
}

// A list page is read as it arrives, item by item: a page larger than the limit fails the list
// (and is retried after a backoff step) instead of being held whole.
TEST_F(ReflectorTest, AListPageLargerThanTheLimitFails) {
  opts_.max_page_bytes = 4096;
  std::vector<std::string> items;
  for (int i = 0; i < 40; ++i) items.push_back(PodJson("p" + std::to_string(i), "5"));
  script_.Push(ListPage(items, "10"));
  script_.Push(ListPage({PodJson("a", "5")}, "11"));
  auto r = StartReflector();
  ASSERT_TRUE(WaitForRequests(3));
  EXPECT_EQ(metrics_.WatchRestarts("pods", "too_large").Value(), 1);
  EXPECT_EQ(handler_.objects(), (std::map<std::string, std::string>{{"a", "5"}}));
  r->Stop();
}

TEST(RequestBudget, TryTakeTakesOnlyATokenAtHand) {
  RequestBudget budget(/*qps=*/10, /*burst=*/1);
  EXPECT_TRUE(budget.TryTake(1000));
  EXPECT_FALSE(budget.TryTake(1000));    // none left, and nothing is reserved
  EXPECT_EQ(budget.Reserve(1000), 100);  // so a reservation waits one token's time, not two
  EXPECT_FALSE(budget.TryTake(1100));    // that token is the reservation's
  EXPECT_TRUE(budget.TryTake(1200));
  EXPECT_EQ(budget.requests(), 3u);
  EXPECT_EQ(budget.delayed(), 1u);
}

TEST(RequestBudget, BurstThenQps) {
  RequestBudget budget(/*qps=*/10, /*burst=*/2);
  EXPECT_EQ(budget.Reserve(1000), 0);
  EXPECT_EQ(budget.Reserve(1000), 0);
  EXPECT_EQ(budget.Reserve(1000), 100);  // the third waits one token's time
  EXPECT_EQ(budget.Reserve(1000), 200);  // and the fourth queues behind it
  EXPECT_EQ(budget.Reserve(1300), 0);    // 300 ms later the debt is paid and one token is back
  EXPECT_EQ(budget.Reserve(10'000), 0);  // refills up to the burst only
  EXPECT_EQ(budget.Reserve(10'000), 0);
  EXPECT_EQ(budget.Reserve(10'000), 100);
  EXPECT_EQ(budget.requests(), 8u);
  EXPECT_EQ(budget.delayed(), 3u);
}

// 22 resources failing alike against an unreachable server are one problem: one line per backoff
// step of the server, not one per resource and attempt.
TEST(ApiServerLog, OneLinePerStepForResourcesFailingAlike) {
  ApiServerLog log(/*first_step_ms=*/800, /*max_step_ms=*/30'000);
  const std::string cause = "cannot connect: Connection refused: Failed to connect to 10.0.0.1";
  for (int64_t t = 0; t < 10'000; t += 50) {
    for (int r = 0; r < 22; ++r) {
      log.OnTransportError("pods/ns" + std::to_string(r), "https://10.0.0.1:6443", cause, t);
    }
  }
  // Lines at 0, 0.8, 2.4, 5.6 s (then 12 s): 4 in the first 10 s, instead of 22 x 200.
  EXPECT_EQ(log.lines(), 4u);
  // A different cause is a different problem, reported on its own.
  EXPECT_TRUE(log.OnTransportError("configmaps", "https://10.0.0.1:6443", "timeout", 10'000));
  log.OnAnswer("pods/ns0", "https://10.0.0.1:6443", 11'000);  // "reachable again"
  EXPECT_EQ(log.lines(), 6u);
  log.OnAnswer("pods/ns1", "https://10.0.0.1:6443", 11'000);  // said once
  EXPECT_EQ(log.lines(), 6u);
  // Down again: reported at once.
  EXPECT_TRUE(log.OnTransportError("pods/ns0", "https://10.0.0.1:6443", cause, 12'000));
}

// libcurl names how long each attempt took ("after 18 ms"): attempts that differ only in such
// numbers are one cause, not a new line each.
TEST(ApiServerLog, CausesThatDifferOnlyInNumbersAreOneCause) {
  ApiServerLog log(/*first_step_ms=*/800, /*max_step_ms=*/30'000);
  for (int r = 0; r < 22; ++r) {
    log.OnTransportError("pods/ns" + std::to_string(r), "http://127.0.0.1:1",
                         "cannot connect: Connection refused: Failed to connect to 127.0.0.1 port "
                         "1 after " +
                             std::to_string(r * 7) + " ms",
                         r);
  }
  EXPECT_EQ(log.lines(), 1u);
}

}  // namespace
}  // namespace podwait
