// The real podwait-exporter run the way an SRE runs it from a laptop: --kubeconfig (and
// --kube.context) pointing at a kubeconfig whose server is the simulator, which requires a bearer
// token (--token-file). The kubeconfigs are made up; their shape is kubectl's. The exec user's
// plugin is a shell script written by the test, standing in for aws eks get-token and the like.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

// A kubeconfig whose current context points at a cluster nobody listens on, and whose context
// "sim" points at the simulator with the given user.
std::string Kubeconfig(int sim_port, const std::string& user) {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "current-context: unreachable\n"
         "clusters:\n"
         "- name: unreachable\n"
         "  cluster:\n"
         "    server: https://127.0.0.1:1\n"
         "- name: sim\n"
         "  cluster:\n"
         "    server: http://127.0.0.1:" +
         std::to_string(sim_port) +
         "\n"
         "contexts:\n"
         "- name: unreachable\n"
         "  context: {cluster: unreachable, user: sre}\n"
         "- name: sim\n"
         "  context: {cluster: sim, user: sre, namespace: demo}\n"
         "users:\n"
         "- name: sre\n"
         "  user:\n" +
         user;
}

// Waits until the API server has answered 401 to a watch or list of the exporter.
bool Refused(SimAndExporter& stack) {
  std::string metrics;
  const bool refused = stack.ScrapeUntil(
      [](const std::string& m) {
        double total = 0;
        for (const Sample& s :
             FindSamples(m, "podwait_watch_restarts_total", {{"reason", "unauthorized"}})) {
          total += s.value;
        }
        return total > 0;
      },
      60, &metrics);
  EXPECT_TRUE(refused) << metrics;
  return refused;
}

bool Ready(SimAndExporter& stack) {
  return HttpGet(stack.exporter_port(), "/readyz").status == 200;
}

class ExporterKubeconfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    Write(dir_ + "/sim-token", "made-up-sim-token-1\n");
  }
  // The simulator (requiring the token in <dir>/sim-token) and, once the kubeconfig is written by
  // `user`, the exporter with --kubeconfig=<dir>/config --kube.context=sim.
  std::unique_ptr<SimAndExporter> Start(const std::function<std::string()>& user,
                                        std::vector<std::string> flags = {}) {
    flags.push_back("--kubeconfig=" + dir_ + "/config");
    flags.push_back("--kube.context=sim");
    auto stack = std::make_unique<SimAndExporter>(
        "tests/scenarios/demo.json", flags, /*start_exporter=*/false,
        std::vector<std::string>{"--token-file", dir_ + "/sim-token"});
    EXPECT_GT(stack->sim_port(), 0) << stack->sim().ReadLog();
    Write(dir_ + "/config", Kubeconfig(stack->sim_port(), user()));
    stack->StartExporter();
    return stack;
  }
  int PluginRuns() {
    int n = 0;
    std::ifstream(dir_ + "/runs") >> n;
    return n;
  }

  std::string dir_;
};

TEST_F(ExporterKubeconfig, ExecPluginUserReachesReadyAndFollowsATokenRotation) {
  // The plugin hands out whatever token the simulator currently wants, and counts its runs.
  Write(dir_ + "/get-token.sh",
        "#!/bin/sh\n"
        "n=$(($(cat \"$PLUGIN_DIR/runs\" 2>/dev/null || echo 0) + 1)); echo $n > "
        "\"$PLUGIN_DIR/runs\"\n"
        "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
        "\"status\":{\"token\":\"%s\"}}' \"$(cat \"$PLUGIN_DIR/sim-token\")\"\n");
  chmod((dir_ + "/get-token.sh").c_str(), 0755);
  // Short watches, so that every reflector asks again (with a token) every second.
  auto stack = Start(
      [&] {
        return "    exec:\n"
               "      apiVersion: client.authentication.k8s.io/v1\n"
               "      command: ./get-token.sh\n"  // relative to the kubeconfig's directory
               "      interactiveMode: Never\n"
               "      env:\n"
               "      - name: PLUGIN_DIR\n"
               "        value: " +
               dir_ + "\n";
      },
      {"--kube.watch-timeout=1s"});
  ASSERT_TRUE(WaitFor([&] { return Ready(*stack); }, 60s)) << stack->exporter().ReadLog();
  EXPECT_GE(PluginRuns(), 1);
  const std::string log = stack->exporter().ReadLog();
  EXPECT_THAT(log, AllOf(HasSubstr("Kubernetes API from a kubeconfig"),
                         HasSubstr("source=--kubeconfig"), HasSubstr("context=sim"),
                         HasSubstr("server=http://127.0.0.1:" + std::to_string(stack->sim_port())),
                         HasSubstr("exec plugin " + dir_ + "/get-token.sh")));
  EXPECT_THAT(log, Not(HasSubstr("made-up-sim-token")));

  // The simulator now wants another token: the next requests get 401, the plugin runs again, and
  // a pod created afterwards still reaches the exporter.
  const int runs = PluginRuns();
  Write(dir_ + "/sim-token", "made-up-sim-token-2\n");
  EXPECT_TRUE(Refused(*stack));
  EXPECT_TRUE(WaitFor([&] { return PluginRuns() > runs; }, 30s));
  ASSERT_EQ(stack->SimPost(
                "/_sim/apply",
                R"({"pod":{"namespace":"demo","name":"demo-tikv-9","stage":"unschedulable"}})"),
            200);
  EXPECT_TRUE(WaitFor(
      [&] {
        return HttpGet(stack->exporter_port(), "/api/v1/pods?namespace=demo")
                   .body.find("demo-tikv-9") != std::string::npos;
      },
      60s))
      << stack->exporter().ReadLog();
  EXPECT_THAT(stack->exporter().ReadLog(), Not(HasSubstr("made-up-sim-token")));
}

TEST_F(ExporterKubeconfig, StaticTokenUserIsAcceptedOnlyWithTheRightToken) {
  auto stack = Start([] { return std::string("    token: made-up-sim-token-1\n"); });
  ASSERT_TRUE(WaitFor([&] { return Ready(*stack); }, 60s)) << stack->exporter().ReadLog();
  EXPECT_THAT(stack->exporter().ReadLog(), HasSubstr("auth=token"));

  // The same exporter with a token the simulator does not take never syncs.
  auto refused = Start([] { return std::string("    token: made-up-wrong-token\n"); });
  EXPECT_TRUE(Refused(*refused));
  EXPECT_EQ(HttpGet(refused->exporter_port(), "/readyz").status, 503);
}

TEST_F(ExporterKubeconfig, SigtermDuringAHangingPluginStopsPromptly) {
  // An exec plugin waiting for an SSO login nobody completes: SIGTERM still ends the exporter
  // within the grace period, not at the plugin's 30 s timeout.
  Write(dir_ + "/get-token.sh",
        "#!/bin/sh\n"
        "touch \"$PLUGIN_DIR/started\"\n"
        "echo 'open https://sso.example/device to log in' >&2\n"
        "exec sleep 60\n");
  chmod((dir_ + "/get-token.sh").c_str(), 0755);
  auto stack = Start([&] {
    return "    exec:\n"
           "      apiVersion: client.authentication.k8s.io/v1\n"
           "      command: ./get-token.sh\n"
           "      interactiveMode: Never\n"
           "      env:\n"
           "      - name: PLUGIN_DIR\n"
           "        value: " +
           dir_ + "\n";
  });
  ASSERT_TRUE(WaitFor([&] { return std::ifstream(dir_ + "/started").good(); }, 30s))
      << stack->exporter().ReadLog();
  const auto start = std::chrono::steady_clock::now();
  stack->exporter().Signal(SIGTERM);
  EXPECT_EQ(stack->exporter().Wait(10s), 0) << stack->exporter().ReadLog();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << stack->exporter().ReadLog();
}

}  // namespace
}  // namespace podwait::testing
