#pragma once

// Runs a program to completion without a shell, with its output captured and a deadline: what
// the exporter needs to call a kubeconfig's exec credential plugin from a watch thread without
// ever hanging it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace podwait {

struct SubprocessSpec {
  // argv[0] is looked up in PATH when it has no '/'. REQUIRES: not empty.
  std::vector<std::string> argv;
  // Set on top of this process's environment (a name given here replaces the inherited value).
  std::vector<std::pair<std::string, std::string>> env;
  // The child and everything it started (its process group) is killed with SIGKILL when it has
  // not exited and closed its output by then.
  int64_t timeout_ms = 30'000;
  // Bytes kept of each of stdout and stderr; the rest is read and dropped.
  size_t max_output = 1 << 20;
  // Optional: when it turns true the child is killed as at the deadline, within ~100 ms (the
  // exporter is shutting down and must not wait for a hanging credential plugin).
  const std::atomic<bool>* cancel = nullptr;
  // Once the child has exited, how long what it started (its process group) may keep stdout or
  // stderr open; then the group is killed and the child's own result stands (a plugin that
  // printed its credential and left a helper behind holding the pipe).
  int64_t exit_grace_ms = 500;
};

struct SubprocessResult {
  bool started = false;    // false: the program could not be started; `error` says why
  std::string error;       // e.g. "No such file or directory"
  bool timed_out = false;  // killed at the deadline
  bool cancelled = false;  // killed because spec.cancel turned true
  // The child exited but what it started held its output past exit_grace_ms and was killed.
  bool leftovers_killed = false;
  int exit_code = -1;  // the exit status when it exited normally, else -1
  int signal = 0;      // the signal that ended it, else 0
  std::string out;     // stdout, at most max_output bytes
  std::string err;     // stderr, at most max_output bytes
  bool exited_ok() const { return started && !timed_out && exit_code == 0; }
};

// Starts spec.argv with stdin from /dev/null, in a new process group, with no inherited file
// descriptors but 0-2, default signal dispositions and an empty signal mask (the exporter blocks
// SIGTERM/SIGINT and ignores SIGPIPE; a child must not inherit that). Blocks the calling thread
// until the child has exited and its output is closed (or exit_grace_ms after its exit), or the
// deadline passed; at the deadline the whole process group is killed. Thread-safe: several threads
// may run subprocesses at once.
SubprocessResult RunSubprocess(const SubprocessSpec& spec);

}  // namespace podwait
