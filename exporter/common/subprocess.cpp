#include "exporter/common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "exporter/common/clock.h"

extern char** environ;

namespace podwait {
namespace {

// The process's environment with spec.env laid over it, as "NAME=value" strings.
std::vector<std::string> ChildEnvironment(const SubprocessSpec& spec) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(spec.env.begin(), spec.env.end(),
                                      [&](const auto& kv) { return kv.first == name; });
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [name, value] : spec.env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Owns the spawn attributes and file actions; both are only valid between init and destroy.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attr_);
    posix_spawn_file_actions_init(&actions_);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attr_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  // Returns 0 or an errno value.
  int Prepare(int out_fd, int err_fd) {
    sigset_t empty;
    sigemptyset(&empty);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig :
         {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2}) {
      sigaddset(&defaults, sig);
    }
    int rc = posix_spawnattr_setflags(
        &attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = posix_spawnattr_setpgroup(&attr_, 0);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr_, &empty);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr_, &defaults);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions_, out_fd, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions_, err_fd, 2);
    // Sockets of the exporter (the listener, API connections) must not leak into the plugin.
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions_, 3);
    return rc;
  }

  const posix_spawnattr_t* attr() const { return &attr_; }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }

 private:
  posix_spawnattr_t attr_;
  posix_spawn_file_actions_t actions_;
};

// One output pipe of the child: its read end (closed on destruction) and what is kept of it.
struct Stream {
  int fd = -1;
  std::string* into = nullptr;
  ~Stream() { Close(); }
  bool open() const { return fd >= 0; }
  void Close() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

// Reads what is available on `s`; closes it at end of file or on an error.
void Drain(Stream& s, size_t max_output) {
  char buf[4096];
  const ssize_t n = read(s.fd, buf, sizeof(buf));
  if (n > 0) {
    const size_t room = max_output - std::min(max_output, s.into->size());
    s.into->append(buf, std::min(room, static_cast<size_t>(n)));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    s.Close();
  }
}

void Record(int status, SubprocessResult* result) {
  if (WIFEXITED(status)) result->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result->signal = WTERMSIG(status);
}

// At the deadline: kills the child's process group first, while the unreaped child still holds
// the group id, so whatever it started (a shell's children) goes too and releases the pipes;
// then reaps the child.
void KillAndReap(pid_t pid, bool cancelled, SubprocessResult* result) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  (cancelled ? result->cancelled : result->timed_out) = true;
  Record(status, result);
}

// How long to block in one wait: until the deadline, and at most kCheckMs (the child's exit and
// a cancellation are checked between waits).
constexpr int64_t kCheckMs = 100;
int WaitSliceMs(int64_t deadline, int64_t now) {
  return static_cast<int>(std::clamp<int64_t>(deadline - now, 1, kCheckMs));
}

bool Cancelled(const SubprocessSpec& spec) {
  return spec.cancel != nullptr && spec.cancel->load(std::memory_order_relaxed);
}

// Whether the child has exited, without reaping it: the zombie keeps its pid, and so its process
// group's id, from being reused while the group is killed.
bool ChildExited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

enum class ReadEnd { kClosed, kLeftovers, kStopped };

// Reads both pipes until the child (and whatever it started) closes them (kClosed), until
// exit_grace_ms after the child exited with them still open (kLeftovers), or until the deadline
// or a cancellation (kStopped).
ReadEnd ReadOutput(const SubprocessSpec& spec, pid_t pid, Stream (&streams)[2], int64_t deadline) {
  const Clock& clock = SystemClock::Instance();
  int64_t exited_at = -1;
  while (streams[0].open() || streams[1].open()) {
    const int64_t now = clock.MonotonicMs();
    if (now >= deadline || Cancelled(spec)) return ReadEnd::kStopped;
    if (exited_at < 0 && ChildExited(pid)) exited_at = now;
    if (exited_at >= 0 && now - exited_at >= spec.exit_grace_ms) return ReadEnd::kLeftovers;
    pollfd fds[2];
    nfds_t n = 0;
    Stream* polled[2];
    for (auto& s : streams) {
      if (!s.open()) continue;
      fds[n] = {s.fd, POLLIN, 0};
      polled[n++] = &s;
    }
    const int ready = poll(fds, n, WaitSliceMs(deadline, now));
    if (ready < 0 && errno != EINTR) return ReadEnd::kStopped;
    for (nfds_t i = 0; ready > 0 && i < n; ++i) {
      if (fds[i].revents != 0) Drain(*polled[i], spec.max_output);
    }
  }
  return ReadEnd::kClosed;
}

}  // namespace

SubprocessResult RunSubprocess(const SubprocessSpec& spec) {
  SubprocessResult result;
  const Clock& clock = SystemClock::Instance();
  const int64_t deadline = clock.MonotonicMs() + std::max<int64_t>(0, spec.timeout_ms);

  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.error = std::strerror(errno);
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.error = std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = ChildEnvironment(spec);
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<char*> envp = Pointers(env_strings);

  pid_t pid = -1;
  SpawnSetup setup;
  int rc = setup.Prepare(out_pipe[1], err_pipe[1]);
  if (rc == 0)
    rc = posix_spawnp(&pid, argv[0], setup.actions(), setup.attr(), argv.data(), envp.data());
  close(out_pipe[1]);
  close(err_pipe[1]);
  Stream streams[2] = {{out_pipe[0], &result.out}, {err_pipe[0], &result.err}};
  if (rc != 0) {
    result.error = std::strerror(rc);
    return result;
  }
  result.started = true;

  switch (ReadOutput(spec, pid, streams, deadline)) {
    case ReadEnd::kStopped:
      KillAndReap(pid, Cancelled(spec), &result);
      return result;
    case ReadEnd::kLeftovers: {
      // The child is a zombie (not reaped yet): its group id is still its own.
      kill(-pid, SIGKILL);
      result.leftovers_killed = true;
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      Record(status, &result);
      return result;
    }
    case ReadEnd::kClosed:
      break;
  }
  // Output closed: wait for the exit. A child that closed its output but keeps running is
  // polled, gently, until the deadline.
  int64_t pause_ms = 1;
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      Record(status, &result);
      break;
    }
    if (r < 0 && errno != EINTR) break;  // reaped elsewhere (SIGCHLD ignored): nothing to wait for
    if (clock.MonotonicMs() >= deadline || Cancelled(spec)) {
      KillAndReap(pid, Cancelled(spec), &result);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    pause_ms = std::min<int64_t>(pause_ms * 2, 50);
  }
  return result;
}

}  // namespace podwait
