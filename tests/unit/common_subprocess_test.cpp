// RunSubprocess: output, exit status, environment, what the child does not inherit, and the
// deadline (the child and what it started are killed).

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "exporter/common/subprocess.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

SubprocessResult Shell(const std::string& script, int64_t timeout_ms = 10'000) {
  SubprocessSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.timeout_ms = timeout_ms;
  return RunSubprocess(spec);
}

// Whether `pid` is gone or only a zombie (killed, waiting for its reaper).
bool Dead(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string field;
  for (int i = 0; i < 3 && in >> field; ++i) {
  }
  return !in || field == "Z";
}

TEST(Subprocess, CapturesOutputAndExitStatus) {
  SubprocessResult r = Shell("echo out; echo err >&2; exit 3");
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.exited_ok());
  EXPECT_TRUE(Shell("true").exited_ok());
}

TEST(Subprocess, PassesArgumentsWithoutAShell) {
  SubprocessSpec spec;
  spec.argv = {"printf", "%s|", "two words", "$HOME", "*"};
  SubprocessResult r = RunSubprocess(spec);
  EXPECT_TRUE(r.exited_ok()) << r.error << r.err;
  EXPECT_EQ(r.out, "two words|$HOME|*|");
}

TEST(Subprocess, EnvironmentIsInheritedWithOverrides) {
  SubprocessSpec spec;
  spec.argv = {"sh", "-c", "printf '%s;%s' \"$PODWAIT_TEST_VALUE\" \"$HOME\"; test -n \"$PATH\""};
  spec.env = {{"PODWAIT_TEST_VALUE", "a b"}, {"HOME", "/nowhere"}};
  SubprocessResult r = RunSubprocess(spec);
  EXPECT_TRUE(r.exited_ok()) << r.err;
  EXPECT_EQ(r.out, "a b;/nowhere");
}

TEST(Subprocess, AMissingProgramIsNotStarted) {
  SubprocessSpec spec;
  spec.argv = {"podwait-no-such-program"};
  SubprocessResult r = RunSubprocess(spec);
  EXPECT_FALSE(r.started);
  EXPECT_THAT(r.error, HasSubstr("No such file"));
  spec.argv = {"/nonexistent/podwait-no-such-program"};
  EXPECT_FALSE(RunSubprocess(spec).started);
}

TEST(Subprocess, StdinIsEmptyAndNoDescriptorLeaks) {
  // A descriptor the exporter has open without O_CLOEXEC (a socket, say) must not reach the child.
  // (A high number: listing the directory takes the lowest free one for a moment.)
  const int opened = open("/dev/null", O_RDONLY);
  ASSERT_GE(opened, 3);
  const int leak = dup2(opened, 57);
  close(opened);
  ASSERT_EQ(leak, 57);
  SubprocessResult r = Shell("cat; for f in /proc/$$/fd/*; do echo \"${f##*/}\"; done");
  close(leak);
  EXPECT_TRUE(r.exited_ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0\n1\n2\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("\n" + std::to_string(leak) + "\n")));
}

// The mask in /proc/<pid>/status of the line starting with `field` ("SigBlk:"), as a number.
uint64_t SignalMask(const std::string& status, const std::string& field) {
  const size_t at = status.find(field);
  if (at == std::string::npos) return ~0ull;
  return std::stoull(status.substr(at + field.size()), nullptr, 16);
}

TEST(Subprocess, SignalsAreNeitherBlockedNorIgnoredInTheChild) {
  // The exporter blocks SIGTERM in every thread and ignores SIGPIPE; a plugin must not inherit
  // either (grep reads its own status: no shell in between that could reset them).
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigset_t old_mask;
  pthread_sigmask(SIG_BLOCK, &term, &old_mask);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_pipe = {};
  sigaction(SIGPIPE, &ignore, &old_pipe);
  SubprocessSpec spec;
  spec.argv = {"grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"};
  SubprocessResult r = RunSubprocess(spec);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ASSERT_TRUE(r.exited_ok()) << r.error << r.err;
  EXPECT_EQ(SignalMask(r.out, "SigBlk:"), 0u) << r.out;
  EXPECT_EQ(SignalMask(r.out, "SigIgn:") & (1ull << (SIGPIPE - 1)), 0u) << r.out;
}

TEST(Subprocess, KeepsAtMostMaxOutputBytes) {
  SubprocessSpec spec;
  spec.argv = {"sh", "-c", "head -c 100000 /dev/zero; echo tail >&2"};
  spec.max_output = 1000;
  SubprocessResult r = RunSubprocess(spec);
  EXPECT_TRUE(r.exited_ok());
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_EQ(r.err, "tail\n");
}

TEST(Subprocess, TheDeadlineKillsTheChildAndWhatItStarted) {
  const auto start = std::chrono::steady_clock::now();
  // The background sleep holds stdout open: only killing the process group ends the read.
  SubprocessResult r = Shell("sleep 30 & echo $!; wait", 300);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(took, 5s);
  ASSERT_FALSE(r.out.empty());
  const std::string sleeper = r.out.substr(0, r.out.find('\n'));
  EXPECT_TRUE(testing::WaitFor([&] { return Dead(sleeper); }, 5s)) << "sleep " << sleeper;
}

TEST(Subprocess, TheDeadlineAlsoHoldsWhenTheChildClosesItsOutput) {
  SubprocessResult r = Shell("exec >&- 2>&-; sleep 30", 300);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
}

// A child that printed its answer and exited, leaving a helper behind that holds its stdout: the
// answer stands, the helper is killed exit_grace_ms later, not at the deadline.
TEST(Subprocess, WhatTheChildLeftHoldingItsOutputIsKilledAfterTheGrace) {
  const auto start = std::chrono::steady_clock::now();
  SubprocessSpec spec;
  spec.argv = {"sh", "-c", "sleep 30 & echo $!; echo done; exit 3"};
  spec.timeout_ms = 20'000;
  spec.exit_grace_ms = 200;
  SubprocessResult r = RunSubprocess(spec);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "not the 20 s deadline";
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.leftovers_killed);
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_THAT(r.out, HasSubstr("done\n"));
  const std::string helper = r.out.substr(0, r.out.find('\n'));
  EXPECT_TRUE(testing::WaitFor([&] { return Dead(helper); }, 5s)) << "sleep " << helper;
}

// A child that writes without end is held to the deadline (and to max_output in memory).
TEST(Subprocess, AnEndlessWriterEndsAtTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  SubprocessSpec spec;
  spec.argv = {"yes", "made-up-token"};
  spec.timeout_ms = 300;
  spec.max_output = 4096;
  SubprocessResult r = RunSubprocess(spec);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.out.size(), 4096u);
}

TEST(Subprocess, CancelKillsTheChildPromptly) {
  std::atomic<bool> cancel{false};
  SubprocessSpec spec;
  spec.argv = {"sh", "-c", "echo started; exec sleep 30"};
  spec.timeout_ms = 30'000;
  spec.cancel = &cancel;
  SubprocessResult r;
  std::thread run([&] { r = RunSubprocess(spec); });
  std::this_thread::sleep_for(200ms);  // let it start (the kill works either way)
  const auto start = std::chrono::steady_clock::now();
  cancel = true;
  run.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << "not the 30 s deadline";
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.exited_ok());
}

TEST(Subprocess, SeveralThreadsAtOnce) {
  std::vector<std::string> outs(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < outs.size(); ++i) {
    threads.emplace_back([&outs, i] { outs[i] = Shell("echo " + std::to_string(i)).out; });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outs[i], std::to_string(i) + "\n");
}

}  // namespace
}  // namespace podwait
