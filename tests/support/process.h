#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace podwait::testing {

// A child process started with fork/exec; its stdout and stderr go to a log file that tests can
// read. The destructor kills (SIGKILL) and reaps it if it is still running.
class Subprocess {
 public:
  Subprocess(std::vector<std::string> argv, std::map<std::string, std::string> extra_env = {});
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  std::string ReadLog() const;
  // Sends a signal.
  void Signal(int sig);
  // Waits up to `timeout` for exit; returns the exit status (WEXITSTATUS, or 128+signal), or -1 on
  // timeout.
  int Wait(std::chrono::milliseconds timeout);
  bool Running();

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  bool reaped_ = false;
  std::string log_path_;
};

// Runs a command to completion; returns its exit code, with stdout+stderr in *output.
int RunCommand(const std::vector<std::string>& argv, std::string* output,
               const std::string& stdin_data = "");

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreePort();

// A TCP port on 127.0.0.1 that refuses every connection for as long as this object lives: the
// port is bound but never listened on, so no other test running in parallel can take it (a port
// from FreePort() can be taken, and an "unreachable" server then answers).
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};
// A TCP port on 127.0.0.1 that accepts connections (the kernel completes them; nobody calls
// accept) and never answers, for as long as this object lives: a server that hangs.
class SilentPort {
 public:
  SilentPort();
  ~SilentPort();
  SilentPort(const SilentPort&) = delete;
  SilentPort& operator=(const SilentPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A TCP connection to 127.0.0.1:port (a socket the caller closes), or -1.
int ConnectLoopback(int port);

// Polls `pred` every 50 ms until it returns true or `timeout` passes.
bool WaitFor(const std::function<bool()>& pred, std::chrono::milliseconds timeout);

// GET http://127.0.0.1:<port><path>; returns status (0 on transport error) and body.
struct HttpResult {
  int status = 0;
  std::string body;
  std::string content_type;
};
HttpResult HttpGet(int port, const std::string& path,
                   std::vector<std::pair<std::string, std::string>> headers = {});

// POST body (JSON) to http://127.0.0.1:<port><path>; returns the HTTP status (0 on transport
// error).
int HttpPost(int port, const std::string& path, const std::string& body);

// Path of a file in the source tree / build tree.
std::string SourcePath(const std::string& relative);
std::string BinaryPath(const std::string& relative);
std::string ReadFile(const std::string& path);
// A fresh temporary directory, removed with its contents when the test process exits
// (kept when PODWAIT_KEEP_TEST_DIRS is set, to look at what a failed test left).
std::string MakeTempDir();

// The argv of `openssl req -x509` making a P-256 key and a one-day certificate, then `args`
// (e.g. -keyout, -out, -subj; -CA and -CAkey to sign by a CA instead of self-signing).
std::vector<std::string> OpensslReq(std::vector<std::string> args);
// The OpensslReq commands of the TLS tests' two CAs in `dir`: ca.{key,crt} (CN podwait-test-ca),
// which signs what the test trusts, and other-ca.{key,crt}, a CA nobody trusts.
std::vector<std::vector<std::string>> TestCaCommands(const std::string& dir);

}  // namespace podwait::testing
