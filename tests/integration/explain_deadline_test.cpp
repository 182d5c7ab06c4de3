// The live CLI (explain --live, `kubectl podwait`) fails fast and holds its deadline, as kubectl
// does: an API server that refuses or does not resolve ends it at once, one that hangs at
// --request-timeout, and a kubeconfig exec plugin that hangs, writes without end or leaves a
// child holding its output at --timeout, with the plugin's process group gone. Exit 2 with a
// message that names what failed. The bounds are generous (the exits are measured in the
// README's figures, not here); what is asserted is the exit code, the message and that nothing
// waits for a default 30 s. The plugins are shell scripts written by the test, standing in for
// aws eks get-token, gke-gcloud-auth-plugin or an SSO helper.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

struct CliRun {
  int code = -1;
  std::string output;
  std::chrono::milliseconds took{0};
};

CliRun Explain(std::vector<std::string> args) {
  std::vector<std::string> argv = {BinaryPath("podwait-exporter"), "explain", "--live"};
  argv.insert(argv.end(), args.begin(), args.end());
  if (std::find(args.begin(), args.end(), "-n") == args.end()) argv.push_back("-A");
  CliRun r;
  const auto start = std::chrono::steady_clock::now();
  r.code = RunCommand(argv, &r.output);
  r.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start);
  return r;
}

// The state and process group of a process from /proc/<pid>/stat; false when it is gone.
bool StatOf(const std::string& pid, char* state, long* pgid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');  // the command may hold spaces
  if (!in.good() && stat.empty()) return false;
  if (paren == std::string::npos) return false;
  std::istringstream rest(stat.substr(paren + 1));
  long ppid = 0;
  return static_cast<bool>(rest >> *state >> ppid >> *pgid);
}

// Whether `pid` is gone or a zombie (killed, waiting for a reaper).
bool Dead(pid_t pid) {
  char state = 0;
  long pgid = 0;
  return !StatOf(std::to_string(pid), &state, &pgid) || state == 'Z';
}

// Whether no live process of group `pgid` is left.
bool GroupGone(pid_t pgid) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    char state = 0;
    long group = 0;
    if (StatOf(name, &state, &group) && group == pgid && state != 'Z') return false;
  }
  return true;
}

pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

TEST(ExplainDeadline, ARefusedApiServerEndsItAtOnce) {
  const RefusingPort refusing;
  const std::string url = "http://127.0.0.1:" + std::to_string(refusing.port());
  for (const std::string& flag : {"--kube.api-url=" + url, "--server=" + url}) {
    const CliRun r = Explain({flag});
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_THAT(r.output, AllOf(HasSubstr("cannot reach the API server " + url),
                                HasSubstr("Connection refused")));
    EXPECT_LT(r.took, 10s) << "not the 30 s of --timeout: " << r.output;
  }
}

TEST(ExplainDeadline, AnUnresolvableApiServerEndsItAtOnce) {
  // .invalid never resolves (RFC 2606).
  const CliRun r = Explain({"-s", "https://podwait-no-such-host.invalid:6443"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("cannot reach the API server https://podwait-no-such-host.invalid:6443"));
  EXPECT_LT(r.took, 20s) << r.output;
}

TEST(ExplainDeadline, AHangingApiServerEndsItAtTheRequestTimeout) {
  const SilentPort silent;
  const std::string url = "http://127.0.0.1:" + std::to_string(silent.port());
  CliRun r = Explain({"-s", url, "--request-timeout=1s"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the API server " + url +
                                  " (--server) did not answer within 1s (--request-timeout)"));
  EXPECT_LT(r.took, 15s) << r.output;
  r = Explain({"-s", url, "--timeout=1s"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did not answer within 1s (--timeout)"));
}

class ExecPluginDeadline : public ::testing::Test {
 protected:
  // A kubeconfig whose user runs `script` as its exec plugin, against `server`.
  std::string Kubeconfig(const std::string& script, const std::string& server) {
    const std::string plugin = dir_ + "/get-token.sh";
    std::ofstream(plugin) << "#!/bin/sh\n" << script;
    chmod(plugin.c_str(), 0755);
    const std::string path = dir_ + "/config";
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                           "clusters: [{name: k, cluster: {server: \""
                        << server
                        << "\"}}]\n"
                           "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
                           "users:\n- name: u\n  user:\n    exec:\n"
                           "      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: ./get-token.sh\n"
                           "      interactiveMode: Never\n"
                           "      env: [{name: DIR, value: \""
                        << dir_ << "\"}]\n";
    return path;
  }
  std::string dir_ = MakeTempDir();
};

// An SSO helper waiting for a browser, with a child of its own: --timeout ends the run, and the
// plugin's whole process group is killed.
TEST_F(ExecPluginDeadline, AHangingPluginEndsAtTheDeadlineWithItsGroupGone) {
  const RefusingPort refusing;
  const std::string config = Kubeconfig(
      "echo $$ > \"$DIR/pid\"\nsleep 300 &\necho $! > \"$DIR/child\"\n"
      "echo 'open https://sso.example/device to log in' >&2\nwait\n",
      "http://127.0.0.1:" + std::to_string(refusing.port()));
  const CliRun r = Explain({"--kubeconfig=" + config, "--timeout=2s"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("exec plugin \"" + dir_ + "/get-token.sh\""),
                              HasSubstr("did not finish within 2s"), HasSubstr("(--timeout)"),
                              HasSubstr("sso.example/device")));
  EXPECT_LT(r.took, 15s) << r.output;
  const pid_t plugin = ReadPid(dir_ + "/pid");
  ASSERT_GT(plugin, 0);
  EXPECT_TRUE(WaitFor([&] { return GroupGone(plugin); }, 5s)) << "the plugin's group lives on";
  EXPECT_TRUE(WaitFor([&] { return Dead(ReadPid(dir_ + "/child")); }, 5s));
}

TEST_F(ExecPluginDeadline, APluginThatWritesWithoutEndEndsAtTheDeadline) {
  const RefusingPort refusing;
  const std::string config = Kubeconfig("echo $$ > \"$DIR/pid\"\nexec yes made-up-token\n",
                                        "http://127.0.0.1:" + std::to_string(refusing.port()));
  const CliRun r = Explain({"--kubeconfig=" + config, "--timeout=2s"});
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 2000);
  EXPECT_THAT(r.output, HasSubstr("exec plugin \"" + dir_ + "/get-token.sh\" did not finish"));
  EXPECT_LT(r.took, 15s);
  EXPECT_TRUE(WaitFor([&] { return GroupGone(ReadPid(dir_ + "/pid")); }, 5s));
}

// A plugin that printed its credential and exited, leaving a helper that holds its stdout: the
// credential is used at once (kubectl would wait for the helper), and the helper is killed.
TEST_F(ExecPluginDeadline, APluginThatLeavesAChildHoldingItsOutputStillGivesItsToken) {
  SimAndExporter sim("tests/scenarios/demo.json", {}, /*start_exporter=*/false);
  const std::string config = Kubeconfig(
      "sleep 300 &\necho $! > \"$DIR/child\"\n"
      "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":"
      "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"made-up\"}}'\n",
      "http://127.0.0.1:" + std::to_string(sim.sim_port()));
  const std::string pd = "--pd.url-template=http://127.0.0.1:" + std::to_string(sim.sim_port()) +
                         "/pd/{namespace}/{cluster}";
  const CliRun r = Explain({"--kubeconfig=" + config, "--timeout=20s", "-n", "shop", pd});
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("shop-tikv-2"));
  EXPECT_LT(r.took, 10s) << "not the 20 s deadline: " << r.output;
  EXPECT_TRUE(WaitFor([&] { return Dead(ReadPid(dir_ + "/child")); }, 5s));
}

}  // namespace
}  // namespace podwait::testing
