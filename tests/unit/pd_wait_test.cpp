// wait-for-pd's waiting logic with a scripted PD and a fake clock: it returns once the goal is
// met, logs one line per state change, falls back to the leader on PD < 3.0 and gives up at the
// deadline with a reason.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "exporter/common/log.h"
#include "exporter/pd/wait.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

// Answers by path with a script that may change per try.
class ScriptedPd final : public HttpClient {
 public:
  std::function<HttpResponse(const std::string& path)> answer;
  std::map<std::string, int> count;
  HttpResponse Get(const HttpRequest& request, size_t) override {
    const std::string path = request.url.substr(request.url.find("/pd/"));
    ++count[path];
    return answer(path);
  }
  HttpResponse Stream(const HttpRequest& r, const std::function<bool(std::string_view)>&) override {
    return Get(r, 0);
  }
};

HttpResponse Body(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}
HttpResponse Refused() {
  HttpResponse r;
  r.error = "Couldn't connect to server";
  return r;
}

constexpr const char* kLeader = R"({"name":"pd-1","member_id":2548954049902922308})";

class PdWaitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = std::tmpfile();
    ConfigureLogging(LogLevel::kInfo, LogFormat::kLogfmt, log_);
    options_.client.base_url = "http://demo-pd.ns:2379";
    options_.interval_ms = 1000;
  }
  void TearDown() override {
    ConfigureLogging(LogLevel::kInfo, LogFormat::kLogfmt, stderr);
    std::fclose(log_);
  }
  PdWaitResult Run() {
    return WaitForPd(http_, options_, clock_, nullptr, [&](int64_t ms) { clock_.Advance(ms); });
  }
  std::string Log() {
    std::fflush(log_);
    std::rewind(log_);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), log_)) > 0) out.append(buf, n);
    return out;
  }
  int Lines(const std::string& needle) {
    const std::string log = Log();
    int n = 0;
    for (size_t pos = log.find(needle); pos != std::string::npos; pos = log.find(needle, pos + 1))
      ++n;
    return n;
  }
  std::FILE* log_ = nullptr;
  ScriptedPd http_;
  FakeClock clock_;
  PdWaitOptions options_;
};

TEST_F(PdWaitTest, LeaderAppearsLate) {
  const Timestamp start = clock_.MonotonicMs();
  http_.answer = [&](const std::string& path) {
    const int64_t t = clock_.MonotonicMs() - start;
    if (t < 5000) return Refused();           // PD not started
    if (t < 10000) return Body(200, "null");  // PD up, no leader
    if (path == "/pd/api/v1/leader") return Body(200, kLeader);
    return Body(404, "404 page not found");
  };
  PdWaitResult r = Run();
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.last_state, "leader");
  EXPECT_EQ(r.tries, 11);
  // One line per state change: unreachable, no_leader, ready.
  EXPECT_EQ(Lines("PD not ready yet"), 2);
  EXPECT_EQ(Lines("state=unreachable"), 1);
  EXPECT_EQ(Lines("state=no_leader"), 1);
  EXPECT_EQ(Lines("PD is ready"), 1);
  EXPECT_THAT(Log(), HasSubstr("leader=pd-1"));
}

TEST_F(PdWaitTest, NeverInitializedGivesUpAtTheDeadline) {
  options_.mode = PdWaitMode::kInitialized;
  options_.deadline_ms = 10'000;
  http_.answer = [](const std::string&) {
    return Body(200, R"({"raft_bootstrap_time":"0001-01-01T00:00:00Z","is_initialized":false})");
  };
  const Timestamp start = clock_.MonotonicMs();
  PdWaitResult r = Run();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(clock_.MonotonicMs() - start, 10'000);
  EXPECT_THAT(r.reason, HasSubstr("gave up after 10.0s (--timeout 10s)"));
  EXPECT_THAT(r.reason, HasSubstr("not initialized"));
  EXPECT_THAT(r.reason, HasSubstr("not_initialized"));
  EXPECT_EQ(Lines("PD not ready yet"), 1);
}

// Each try takes a moment, as real requests do: the wait still lasts until the deadline (the
// last pause is cut short to end there) and the reason gives the time really waited.
TEST_F(PdWaitTest, SlowTriesStillWaitUntilTheDeadline) {
  options_.deadline_ms = 3000;
  http_.answer = [&](const std::string&) {
    clock_.Advance(10);
    return Refused();
  };
  const Timestamp start = clock_.MonotonicMs();
  PdWaitResult r = Run();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(clock_.MonotonicMs() - start, 3000);
  EXPECT_EQ(r.tries, 3);  // at 0, 1.01 s and 2.02 s; the pause after the third ends at 3 s
  EXPECT_THAT(r.reason, HasSubstr("gave up after 3.0s (--timeout 3s)"));
  EXPECT_THAT(r.reason, HasSubstr("unreachable"));
}

// The pause before the last try ends a millisecond short of the deadline (clocks round), so the
// last try gets 1 ms and times out: the reason still tells what PD answered before that.
TEST_F(PdWaitTest, ALastTryCutShortByTheDeadlineKeepsWhatPdSaidBefore) {
  options_.deadline_ms = 3000;
  http_.answer = [&](const std::string&) {
    return Body(200, std::string(100, '[') + std::string(100, ']'));
  };
  ScriptedPd* pd = &http_;
  struct CutShort final : HttpClient {
    ScriptedPd* pd;
    FakeClock* clock;
    HttpResponse Get(const HttpRequest& request, size_t limit) override {
      if (request.timeout_ms > 50) return pd->Get(request, limit);
      clock->Advance(request.timeout_ms);
      HttpResponse r;
      r.error = "Operation timed out after 1 milliseconds with 0 bytes received";
      r.timed_out = true;
      return r;
    }
    HttpResponse Stream(const HttpRequest& r,
                        const std::function<bool(std::string_view)>&) override {
      return Get(r, 0);
    }
  } http;
  http.pd = pd;
  http.clock = &clock_;
  PdWaitResult r = WaitForPd(http, options_, clock_, nullptr,
                             [&](int64_t ms) { clock_.Advance(std::max<int64_t>(ms - 1, 0)); });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.tries, 4);  // at 0, ~1 s, ~2 s, and the cut one at 2.999 s
  EXPECT_EQ(r.last_state, "bad_answer");
  EXPECT_THAT(r.reason, HasSubstr("nesting deeper than 64 levels"));
  EXPECT_THAT(r.reason, ::testing::Not(HasSubstr("timed out")));
}

TEST_F(PdWaitTest, OldPdWithoutIsInitializedFallsBackToLeader) {
  options_.mode = PdWaitMode::kInitialized;
  http_.answer = [](const std::string& path) {
    if (path == "/pd/api/v1/cluster/status") {
      return Body(200, R"({"raft_bootstrap_time":"2019-01-02T03:04:05Z"})");
    }
    if (path == "/pd/api/v1/leader") return Body(200, kLeader);
    return Body(404, "");
  };
  PdWaitResult r = Run();
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.last_state, "leader");
  EXPECT_THAT(Log(), HasSubstr("does not report is_initialized"));
  EXPECT_THAT(Log(), HasSubstr("level=warn"));
}

TEST_F(PdWaitTest, InitializedWhenPdSaysSo) {
  options_.mode = PdWaitMode::kInitialized;
  int tries = 0;
  http_.answer = [&](const std::string&) {
    ++tries;
    return Body(200, tries < 3 ? R"({"is_initialized":false})" : R"({"is_initialized":true})");
  };
  PdWaitResult r = Run();
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.last_state, "initialized");
  EXPECT_EQ(http_.count["/pd/api/v1/leader"], 0);  // the leader is not asked
}

TEST_F(PdWaitTest, GarbageIsNeverSuccess) {
  options_.deadline_ms = 3000;
  http_.answer = [](const std::string&) { return Body(200, "\x01\x02{\"members\": [tru"); };
  PdWaitResult r = Run();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.last_state, "bad_answer");
  EXPECT_THAT(r.reason, HasSubstr("invalid JSON"));
}

TEST_F(PdWaitTest, StopFlagEndsTheWait) {
  std::atomic<bool> stop{false};
  http_.answer = [&](const std::string&) {
    stop = true;
    return Refused();
  };
  PdWaitResult r =
      WaitForPd(http_, options_, clock_, &stop, [&](int64_t ms) { clock_.Advance(ms); });
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.reason, HasSubstr("interrupted"));
}

}  // namespace
}  // namespace podwait
