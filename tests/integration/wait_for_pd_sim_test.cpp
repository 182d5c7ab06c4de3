// The wait-for-pd binary against the simulator's fake PD: a leader that appears late, a cluster
// that never initializes (deadline), an old PD without is_initialized, a PD returning garbage,
// the address from NAMESPACE/CLUSTER_NAME, and bad flags.

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

class WaitForPdSim : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    const std::string port_file = dir_ + "/port";
    sim_ = std::make_unique<Subprocess>(
        std::vector<std::string>{BinaryPath("podwait-sim"), "--listen", "127.0.0.1:0",
                                 "--port-file", port_file, "--manual"});
    ASSERT_TRUE(WaitFor(
        [&] {
          port_ = std::atoi(ReadFile(port_file).c_str());
          return port_ > 0;
        },
        60s))
        << sim_->ReadLog();
  }
  void Pd(const std::string& spec) {
    const std::string body = R"({"pd":{"namespace":"ns","cluster":"demo",)" + spec + "}}";
    ASSERT_EQ(HttpPost(port_, "/_sim/apply", body), 200) << body << sim_->ReadLog();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/pd/ns/demo"; }
  std::string TerminationLog() const { return dir_ + "/termination-log"; }
  std::vector<std::string> Cmd(std::vector<std::string> extra) const {
    std::vector<std::string> argv = {BinaryPath("wait-for-pd"), "--pd.interval=200ms",
                                     "--termination-log=" + TerminationLog()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }
  static int Count(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
    return n;
  }

  std::string dir_;
  int port_ = 0;
  std::unique_ptr<Subprocess> sim_;
};

TEST_F(WaitForPdSim, LeaderAppearsLate) {
  Pd(R"("members":3,"state":"no_leader")");
  Subprocess wait(Cmd({"--leader", "--pd.url=" + Url()}));
  std::this_thread::sleep_for(1500ms);  // about seven tries without a leader
  EXPECT_TRUE(wait.Running()) << wait.ReadLog();
  Pd(R"("state":"leader")");
  EXPECT_EQ(wait.Wait(10s), 0) << wait.ReadLog();
  const std::string log = wait.ReadLog();
  EXPECT_EQ(Count(log, "PD not ready yet"), 1) << log;  // one line per state change
  EXPECT_THAT(log, HasSubstr("state=no_leader"));
  EXPECT_THAT(log, HasSubstr("PD is ready"));
  EXPECT_THAT(log, HasSubstr("leader=demo-pd-"));
  EXPECT_EQ(ReadFile(TerminationLog()), "");
}

TEST_F(WaitForPdSim, NeverInitializedHitsTheDeadline) {
  Pd(R"("state":"bootstrapped","stores":[{"state":"Up"}],"initialized":false)");
  const auto start = std::chrono::steady_clock::now();
  std::string out;
  EXPECT_EQ(RunCommand(Cmd({"--initialized", "--timeout=2s", "--pd.url=" + Url()}), &out), 1);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 1800ms);
  EXPECT_LT(took, 5s);
  EXPECT_THAT(out, HasSubstr("giving up"));
  EXPECT_THAT(out, HasSubstr("state=not_initialized"));
  const std::string reason = ReadFile(TerminationLog());
  EXPECT_THAT(reason, HasSubstr("(--timeout 2s)"));
  EXPECT_THAT(reason, HasSubstr("not initialized"));
}

// --timeout=3s with tries a second apart: it keeps trying until 3 s have passed (it used to stop
// at 2 s, when the next pause would have ended past the deadline) and says how long it waited.
TEST_F(WaitForPdSim, TimeoutLastsUntilTheDeadlineAndReportsTheRealTime) {
  Pd(R"("members":3,"state":"no_leader")");
  const auto start = std::chrono::steady_clock::now();
  std::string out;
  EXPECT_EQ(RunCommand({BinaryPath("wait-for-pd"), "--pd.interval=1s", "--timeout=3s", "--leader",
                        "--termination-log=" + TerminationLog(), "--pd.url=" + Url()},
                       &out),
            1)
      << out;
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(took, 3.0) << out;
  const std::string reason = ReadFile(TerminationLog());
  const std::string marker = "gave up after ";
  const size_t at = reason.find(marker);
  ASSERT_NE(at, std::string::npos) << reason;
  const double reported = std::atof(reason.c_str() + at + marker.size());
  EXPECT_GE(reported, 3.0) << reason;
  EXPECT_LE(reported, took + 0.05) << reason;
  EXPECT_THAT(reason, HasSubstr("(--timeout 3s)"));
  EXPECT_THAT(reason, HasSubstr("no_leader"));
}

TEST_F(WaitForPdSim, InitializedClusterReturnsAtOnce) {
  Pd(R"("state":"initialized","stores":[{"state":"Up"}])");
  std::string out;
  EXPECT_EQ(RunCommand(Cmd({"--initialized", "--timeout=5s", "--pd.url=" + Url()}), &out), 0)
      << out;
  EXPECT_THAT(out, HasSubstr("state=initialized"));
  EXPECT_THAT(out, Not(HasSubstr("not ready")));
}

TEST_F(WaitForPdSim, OldPdWithoutIsInitializedFallsBackToLeader) {
  Pd(R"("state":"initialized","clusterStatus":"legacy","stores":[{"state":"Up"}])");
  std::string out;
  EXPECT_EQ(RunCommand(Cmd({"--initialized", "--timeout=5s", "--pd.url=" + Url()}), &out), 0)
      << out;
  EXPECT_THAT(out, HasSubstr("level=warn"));
  EXPECT_THAT(out, HasSubstr("does not report is_initialized"));
  EXPECT_THAT(out, HasSubstr("state=leader"));
}

TEST_F(WaitForPdSim, GarbageNeverCountsAsReady) {
  Pd(R"("state":"garbage")");
  std::string out;
  EXPECT_EQ(RunCommand(Cmd({"--leader", "--timeout=2s", "--pd.url=" + Url()}), &out), 1) << out;
  EXPECT_THAT(out, HasSubstr("state=bad_answer"));
  EXPECT_THAT(ReadFile(TerminationLog()), HasSubstr("bad_answer"));

  Pd(R"("state":"html")");
  EXPECT_EQ(RunCommand(Cmd({"--initialized", "--timeout=1s", "--pd.url=" + Url()}), &out), 1)
      << out;
  EXPECT_THAT(ReadFile(TerminationLog()), HasSubstr("HTML"));
}

TEST_F(WaitForPdSim, AddressFromTheEnvironment) {
  // The in-cluster service name does not resolve here: the message names the derived address.
  std::string out;
  Subprocess wait(Cmd({"--leader", "--timeout=1s", "--pd.timeout=500ms"}),
                  {{"NAMESPACE", "tidb-prod"}, {"CLUSTER_NAME", "basic"}});
  EXPECT_EQ(wait.Wait(10s), 1);
  EXPECT_THAT(wait.ReadLog(), HasSubstr("pd=http://basic-pd.tidb-prod:2379"));
  EXPECT_THAT(ReadFile(TerminationLog()), HasSubstr("http://basic-pd.tidb-prod:2379"));
}

// The flags are named as the exporter's (--pd.url, --pd.timeout, --pd.interval); the spellings of
// before still work and each says once that it is deprecated.
TEST_F(WaitForPdSim, OldFlagSpellingsStillWorkWithOneWarningEach) {
  Pd(R"("members":3,"state":"leader")");
  std::string out;
  EXPECT_EQ(RunCommand(
                {BinaryPath("wait-for-pd"), "--leader", "--interval=200ms", "--request-timeout=2s",
                 "--pd-url=" + Url(), "--pd-url=" + Url(), "--termination-log=" + TerminationLog()},
                &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("PD is ready"));
  EXPECT_EQ(Count(out, "flag --pd-url is deprecated: use --pd.url"), 1) << out;
  EXPECT_EQ(Count(out, "flag --interval is deprecated: use --pd.interval"), 1) << out;
  EXPECT_EQ(Count(out, "flag --request-timeout is deprecated: use --pd.timeout"), 1) << out;
  EXPECT_EQ(RunCommand(Cmd({"--leader", "--pd.url=" + Url()}), &out), 0) << out;
  EXPECT_THAT(out, Not(HasSubstr("deprecated")));
  EXPECT_EQ(RunCommand({BinaryPath("wait-for-pd"), "--help"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("--pd.url URL"));
  EXPECT_THAT(out, Not(HasSubstr("--pd-url URL")));
}

TEST_F(WaitForPdSim, BadFlagsAndHelp) {
  std::string out;
  EXPECT_EQ(RunCommand({BinaryPath("wait-for-pd"), "--pd.url=http://x"}, &out), 2);
  EXPECT_THAT(out, HasSubstr("--leader or --initialized"));
  EXPECT_EQ(
      RunCommand({BinaryPath("wait-for-pd"), "--leader", "--timeout=soon", "--pd.url=x"}, &out), 2);
  EXPECT_THAT(out, HasSubstr("--timeout"));
  EXPECT_EQ(RunCommand({BinaryPath("wait-for-pd"), "--help"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("--initialized"));
}

// --pd.interval=0 spun against PD; only a sane minimum is accepted.
TEST_F(WaitForPdSim, AnIntervalBelowTheMinimumIsRefused) {
  std::string out;
  for (const char* interval : {"--pd.interval=0", "--pd.interval=0s", "--pd.interval=10ms"}) {
    EXPECT_EQ(
        RunCommand({BinaryPath("wait-for-pd"), "--leader", interval, "--pd.url=http://x"}, &out), 2)
        << interval;
    EXPECT_THAT(out, HasSubstr("--pd.interval must be at least 100ms")) << interval;
  }
}

// file://, gopher:// ... never reach libcurl: a clear error naming the scheme, exit 2.
TEST_F(WaitForPdSim, APdUrlOfAnotherSchemeIsRefused) {
  std::string out;
  for (const std::string url : {"file:///etc/passwd", "gopher://127.0.0.1:6379/_x",
                                "dict://127.0.0.1:11211/stats", "basic-pd:2379"}) {
    EXPECT_EQ(RunCommand({BinaryPath("wait-for-pd"), "--leader", "--pd.url=" + url}, &out), 2)
        << url;
    EXPECT_THAT(out, HasSubstr("only http and https")) << url << out;
  }
  EXPECT_THAT(out, HasSubstr("without an http:// or https:// scheme"));
  RunCommand({BinaryPath("wait-for-pd"), "--leader", "--pd.url=gopher://h:1/"}, &out);
  EXPECT_THAT(out, HasSubstr("\"gopher\""));
}

TEST_F(WaitForPdSim, VersionIsPrinted) {
  std::string out;
  EXPECT_EQ(RunCommand({BinaryPath("wait-for-pd"), "--version"}, &out), 0);
  EXPECT_THAT(out, ::testing::StartsWith("wait-for-pd, version "));
  EXPECT_THAT(out, HasSubstr("revision: "));
}

}  // namespace
}  // namespace podwait::testing
