// `kubectl podwait` (explain --live) and the exporter against the same simulated cluster: the
// live read uses the exporter's reflectors and PD prober, so every pod gets the same verdict
// (stage, class, reason) as the exporter's /api/v1/pods gives it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>
#include <tuple>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using Verdicts =
    std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>>;

// (namespace, pod, stage, class, reason) of every pod of a /api/v1/pods answer.
Verdicts VerdictsOf(const std::string& text) {
  Verdicts v;
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("pods")) return v;
  for (const auto& p : d["pods"].GetArray()) {
    v.insert({p["namespace"].GetString(), p["pod"].GetString(), p["stage"].GetString(),
              p["class"].GetString(), p["reason"].GetString()});
  }
  return v;
}

std::string JsonPart(const std::string& output) {
  const size_t brace = output.find('{');
  return brace == std::string::npos ? "" : output.substr(brace);
}

class ExplainLive : public ::testing::Test {
 protected:
  void SetUp() override {
    // Pods, events, the CA ConfigMap and PD probes arrive on their own schedules: wait until the
    // exporter has seen each (as the scenario test does).
    ASSERT_TRUE(stack_.ScrapeUntil(
        [](const std::string& t) {
          return FindSamples(t, "podwait_pod_waiting_seconds",
                             {{"namespace", "demo"}, {"component", "tidb"}})
                         .size() == 5 &&
                 !FindSamples(t, "podwait_pod_waiting_seconds",
                              {{"pod", "demo-tikv-0"}, {"class", "scale_up"}})
                      .empty() &&
                 !FindSamples(t, "podwait_pod_waiting_seconds",
                              {{"namespace", "shop"}, {"class", "capacity"}})
                      .empty() &&
                 // Every cluster probed at least once (a verdict before its first probe
                 // reads PD from the pods alone).
                 !FindSamples(t, "podwait_pd_probe_success", {{"namespace", "demo"}}).empty() &&
                 !FindSamples(t, "podwait_pd_probe_success", {{"namespace", "shop"}}).empty() &&
                 !FindSamples(t, "podwait_pd_probe_success", {{"namespace", "tidb-v2"}}).empty();
        },
        30))
        << stack_.exporter().ReadLog();
    // One more evaluation after the last probe's answer.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }

  // explain --live with the exporter's flags for the simulator, and `extra`.
  int Live(std::vector<std::string> extra, std::string* output) {
    const std::string sim = "http://127.0.0.1:" + std::to_string(stack_.sim_port());
    std::vector<std::string> argv = {BinaryPath("podwait-exporter"), "explain", "--live",
                                     "--kube.api-url=" + sim,
                                     "--pd.url-template=" + sim + "/pd/{namespace}/{cluster}"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, output);
  }

  std::string Exporter(const std::string& query = "") {
    return HttpGet(stack_.exporter_port(), "/api/v1/pods" + query).body;
  }

  SimAndExporter stack_{"tests/scenarios/demo.json"};
};

TEST_F(ExplainLive, EveryPodHasTheExportersVerdict) {
  std::string out;
  const int code = Live({"-A", "-o", "json"}, &out);
  const Verdicts live = VerdictsOf(JsonPart(out));
  const Verdicts exporter = VerdictsOf(Exporter());
  ASSERT_FALSE(exporter.empty());
  EXPECT_EQ(live, exporter) << out;
  // shop-tikv-2 cannot get a node (max node group size): a real problem, exit 1.
  EXPECT_EQ(code, 1) << out;
}

TEST_F(ExplainLive, OneNamespaceAndItsExitCode) {
  std::string shop, demo;
  EXPECT_EQ(Live({"-n", "shop", "-o", "json"}, &shop), 1) << shop;
  EXPECT_EQ(VerdictsOf(JsonPart(shop)), VerdictsOf(Exporter("?namespace=shop")));
  // Everything of demo waits as designed (PD forming, a node coming, TiDB and TiKV behind PD).
  EXPECT_EQ(Live({"-n", "demo"}, &demo), 0) << demo;
  EXPECT_THAT(demo, ::testing::HasSubstr("demo-tikv-0   yes        scale_up"));
  EXPECT_THAT(demo, ::testing::HasSubstr("in namespace demo"));
}

// The kubeconfig's context namespace is kubectl's default namespace.
TEST_F(ExplainLive, DefaultNamespaceIsTheContexts) {
  const std::string dir = MakeTempDir();
  std::ofstream(dir + "/kubeconfig")
      << "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: "
         "http://127.0.0.1:"
      << stack_.sim_port()
      << "\ncontexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\n    namespace: "
         "shop\ncurrent-context: sim\nusers:\n- name: sim\n  user: {}\n";
  std::string out;
  const std::string sim = "http://127.0.0.1:" + std::to_string(stack_.sim_port());
  const int code = RunCommand(
      {BinaryPath("podwait-exporter"), "explain", "--live", "--kubeconfig=" + dir + "/kubeconfig",
       "--pd.url-template=" + sim + "/pd/{namespace}/{cluster}"},
      &out);
  EXPECT_EQ(code, 1) << out;
  EXPECT_THAT(out, ::testing::HasSubstr("shop-tikv-2"));
  EXPECT_THAT(out, ::testing::Not(::testing::HasSubstr("demo-")));
}

// An API server that refuses is an input error (exit 2) that says so at once.
TEST_F(ExplainLive, UnreachableServerExitsTwo) {
  std::string out;
  const RefusingPort refusing;
  const int code = RunCommand(
      {BinaryPath("podwait-exporter"), "explain", "--live",
       "--kube.api-url=http://127.0.0.1:" + std::to_string(refusing.port()), "-A", "--timeout=2s"},
      &out);
  EXPECT_EQ(code, 2) << out;
  EXPECT_THAT(out, ::testing::HasSubstr("cannot reach the API server http://127.0.0.1:"));
  EXPECT_THAT(out, ::testing::HasSubstr("Connection refused"));
}

}  // namespace
}  // namespace podwait::testing
