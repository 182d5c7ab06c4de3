#include "tests/support/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "exporter/net/http_client.h"

#ifndef PODWAIT_SOURCE_DIR
#define PODWAIT_SOURCE_DIR "."
#endif
#ifndef PODWAIT_BINARY_DIR
#define PODWAIT_BINARY_DIR "."
#endif

namespace podwait::testing {

namespace {

// The directories this test process made; removed when it exits normally (a forked child leaves
// by _exit or exec, so it never removes them), unless PODWAIT_KEEP_TEST_DIRS is set.
class TempDirs {
 public:
  ~TempDirs() {
    if (std::getenv("PODWAIT_KEEP_TEST_DIRS") != nullptr) return;
    std::error_code ignored;
    for (const std::string& dir : dirs_) std::filesystem::remove_all(dir, ignored);
  }
  void Add(std::string dir) {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.push_back(std::move(dir));
  }

 private:
  std::mutex mu_;
  std::vector<std::string> dirs_;
};

}  // namespace

std::string MakeTempDir() {
  static TempDirs made;
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/podwait-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* dir = mkdtemp(buf.data());
  if (dir == nullptr) return "/tmp";
  made.Add(dir);
  return dir;
}

Subprocess::Subprocess(std::vector<std::string> argv,
                       std::map<std::string, std::string> extra_env) {
  log_path_ = MakeTempDir() + "/output.log";
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    for (const auto& [k, v] : extra_env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
  }
}

std::string Subprocess::ReadLog() const { return ReadFile(log_path_); }

void Subprocess::Signal(int sig) {
  if (pid_ > 0 && !reaped_) kill(pid_, sig);
}

int Subprocess::Wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reaped_) {
    pid_t r = waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return -1;
}

bool Subprocess::Running() {
  if (reaped_) return false;
  pid_t r = waitpid(pid_, &status_, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    return false;
  }
  return true;
}

int RunCommand(const std::vector<std::string>& argv, std::string* output,
               const std::string& stdin_data) {
  int out_pipe[2];
  int in_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(in_pipe) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(out_pipe[1], STDERR_FILENO);
    dup2(in_pipe[0], STDIN_FILENO);
    close(out_pipe[0]);
    close(out_pipe[1]);
    close(in_pipe[0]);
    close(in_pipe[1]);
    std::vector<std::string> copy = argv;
    std::vector<char*> args;
    for (auto& a : copy) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(in_pipe[0]);
  std::thread writer([fd = in_pipe[1], &stdin_data] {
    size_t off = 0;
    while (off < stdin_data.size()) {
      ssize_t n = write(fd, stdin_data.data() + off, stdin_data.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fd);
  });
  std::string collected;
  char buf[4096];
  ssize_t n;
  while ((n = read(out_pipe[0], buf, sizeof(buf))) > 0)
    collected.append(buf, static_cast<size_t>(n));
  close(out_pipe[0]);
  writer.join();
  int status = 0;
  waitpid(pid, &status, 0);
  if (output) *output = collected;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

namespace {

// A socket bound to a free port of 127.0.0.1 (no SO_REUSEADDR: while it holds the port, no other
// socket can bind it), listening when `listening`; aborts when that fails. Sets *port.
int BindLoopback(bool listening, int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (listening && listen(fd, 64) != 0)) {
    std::perror("BindLoopback");
    std::abort();
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

RefusingPort::RefusingPort() { fd_ = BindLoopback(false, &port_); }

RefusingPort::~RefusingPort() {
  if (fd_ >= 0) close(fd_);
}

SilentPort::SilentPort() { fd_ = BindLoopback(true, &port_); }

SilentPort::~SilentPort() {
  if (fd_ >= 0) close(fd_);
}

bool WaitFor(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

HttpResult HttpGet(int port, const std::string& path,
                   std::vector<std::pair<std::string, std::string>> headers) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + path;
  req.timeout_ms = 10000;
  req.headers = std::move(headers);
  HttpResponse resp = client->Get(req);
  return {resp.error.empty() ? resp.status : 0, resp.body, resp.content_type};
}

int ConnectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int HttpPost(int port, const std::string& path, const std::string& body) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return 0;
  const std::string request = "POST " + path +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                              "Content-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, 0);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) response.append(buf, static_cast<size_t>(n));
  ::close(fd);
  int status = 0;
  std::sscanf(response.c_str(), "HTTP/1.%*d %d", &status);
  return status;
}

std::string SourcePath(const std::string& relative) {
  return std::string(PODWAIT_SOURCE_DIR) + "/" + relative;
}
std::string BinaryPath(const std::string& relative) {
  return std::string(PODWAIT_BINARY_DIR) + "/" + relative;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> OpensslReq(std::vector<std::string> args) {
  std::vector<std::string> argv = {
      "openssl", "req",   "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
      "-nodes",  "-days", "1"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::vector<std::string>> TestCaCommands(const std::string& dir) {
  return {OpensslReq({"-keyout", dir + "/ca.key", "-out", dir + "/ca.crt", "-subj",
                      "/CN=podwait-test-ca"}),
          OpensslReq({"-keyout", dir + "/other-ca.key", "-out", dir + "/other-ca.crt", "-subj",
                      "/CN=podwait-test-other-ca"})};
}

}  // namespace podwait::testing
