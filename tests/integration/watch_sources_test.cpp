// The event and ConfigMap sources behind real reflectors against podwait-sim on loopback: events
// land in the EventStore (only the reasons classification uses), the cluster-autoscaler status
// ConfigMap is followed through create, update and delete.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>

#include "exporter/app/observers.h"
#include "exporter/app/options.h"
#include "exporter/kube/reflector.h"
#include "exporter/sources/configmap.h"
#include "exporter/sources/events.h"
#include "exporter/sources/pods.h"
#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"
#include "tests/support/process.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class SimProcess {
 public:
  SimProcess() {
    const std::string port_file = MakeTempDir() + "/port";
    process_ = std::make_unique<Subprocess>(std::vector<std::string>{
        BinaryPath("podwait-sim"), "--listen", "127.0.0.1:0", "--port-file", port_file,
        "--bookmark-interval", "1s", "--log-level", "warn", "--generate-clusters", "1",
        "--pods-per-cluster", "3"});
    WaitFor(
        [&] {
          std::ifstream in(port_file);
          return static_cast<bool>(in >> port_);
        },
        60s);
    if (port_ == 0) ADD_FAILURE() << "podwait-sim did not start:\n" << process_->ReadLog();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool Apply(const std::string& body) {
    std::string out;
    const int rc = RunCommand(
        {"curl", "-sS", "-f", "-X", "POST", "--data-binary", body, url() + "/_sim/apply"}, &out);
    EXPECT_EQ(rc, 0) << body << ": " << out;
    return rc == 0;
  }

 private:
  int port_ = 0;
  std::unique_ptr<Subprocess> process_;
};

class WatchSources : public ::testing::Test {
 protected:
  WatchSources() {
    config_.kube_api_url = sim_.url();
    ctx_.endpoint = *ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(config_), ProcessEnv());
    ctx_.observers = MakeSelfMetricsReflectorObservers(metrics_);
    ctx_.sync = &sync_;
  }
  Config config_;
  SimProcess sim_;
  SelfMetrics metrics_;
  SyncStatus sync_;
  KubeContext ctx_;
};

TEST_F(WatchSources, PodEventsReachTheEventStore) {
  EventStore events;
  PodStore pods(&events);
  PodSource pod_source(pods, PodParseOptions::FromConfig(config_));
  EventSource event_source(events, &pods, SystemClock::Instance());
  Reflector pod_reflector(ctx_, PodReflectorOptions(config_)[0], pod_source);
  Reflector event_reflector(ctx_, EventReflectorOptions(config_)[0], event_source);
  pod_reflector.Start();
  event_reflector.Start();
  ASSERT_TRUE(WaitFor([&] { return sync_.AllSynced(); }, 20s));
  ASSERT_TRUE(sim_.Apply(R"([
    {"pod":{"namespace":"tidb","name":"basic-tikv-4","cluster":"basic","component":"tikv","stage":"unschedulable"}},
    {"event":{"namespace":"tidb","pod":"basic-tikv-4","reason":"FailedScheduling","source":"default-scheduler",
              "message":"0/3 nodes are available: 3 Insufficient cpu."}},
    {"event":{"namespace":"tidb","pod":"basic-tikv-4","reason":"TriggeredScaleUp","source":"cluster-autoscaler",
              "message":"pod triggered scale-up: [{grp 3->4 (max: 10)}]"}},
    {"event":{"namespace":"tidb","pod":"basic-tikv-4","reason":"Pulling","source":"kubelet","message":"x"}}])"));
  // The pod and its events come on two watches: either may arrive first.
  ASSERT_TRUE(WaitFor(
      [&] {
        return events.EventsFor("tidb", "basic-tikv-4").size() == 2 &&
               pods.Get("tidb", "basic-tikv-4") != nullptr;
      },
      10s));
  PodPtr pod = pods.Get("tidb", "basic-tikv-4");
  ASSERT_NE(pod, nullptr);
  auto evs = events.EventsFor("tidb", "basic-tikv-4", pod->uid);
  ASSERT_EQ(evs.size(), 2u);
  std::set<std::string> reasons = {evs[0].reason, evs[1].reason};
  EXPECT_EQ(reasons, (std::set<std::string>{"FailedScheduling", "TriggeredScaleUp"}));
  for (const auto& e : evs) {
    EXPECT_EQ(e.pod_uid, pod->uid);
    EXPECT_GT(e.last, 0);
    if (e.reason == "TriggeredScaleUp") {
      EXPECT_EQ(e.source, "cluster-autoscaler");
      EXPECT_THAT(e.message, HasSubstr("3->4"));
    } else {
      EXPECT_EQ(e.source, "default-scheduler");
    }
  }
  // The kubelet's event (not kept) may arrive after the two kept ones.
  EXPECT_TRUE(WaitFor([&] { return metrics_.WatchEvents("events", "ADDED").Value() >= 3; }, 10s))
      << metrics_.WatchEvents("events", "ADDED").Value();
  // The pod goes away: its events go with it.
  ASSERT_TRUE(sim_.Apply(R"({"delete":{"namespace":"tidb","name":"basic-tikv-4"}})"));
  ASSERT_TRUE(WaitFor([&] { return events.EventsFor("tidb", "basic-tikv-4").empty(); }, 10s));
  EXPECT_EQ(metrics_.ParseErrors("events").Value(), 0);
}

TEST_F(WatchSources, AutoscalerStatusConfigMapIsFollowed) {
  ConfigMapSource source(config_.ca_status_name);
  Reflector reflector(ctx_, ConfigMapReflectorOptions(config_), source);
  reflector.Start();
  ASSERT_TRUE(WaitFor([&] { return reflector.synced(); }, 20s));
  EXPECT_FALSE(source.Get().present);
  const uint64_t v0 = source.Version();
  ASSERT_TRUE(
      sim_.Apply(R"({"configmap":{"namespace":"kube-system","name":"cluster-autoscaler-status",
      "data":{"status":"Cluster-autoscaler status at 2024-05-02 10:00:00\nHealth: Healthy"}}})"));
  ASSERT_TRUE(sim_.Apply(R"({"configmap":{"namespace":"kube-system","name":"some-other-configmap",
      "data":{"status":"not this one"}}})"));
  ASSERT_TRUE(WaitFor([&] { return source.Get().present; }, 10s));
  ConfigMapData d = source.Get();
  EXPECT_GT(d.version, v0);
  EXPECT_THAT(d.data["status"], HasSubstr("Health: Healthy"));
  ASSERT_TRUE(
      sim_.Apply(R"({"configmap":{"namespace":"kube-system","name":"cluster-autoscaler-status",
      "data":{"status":"ScaleUp: InProgress"}}})"));
  ASSERT_TRUE(WaitFor([&] { return source.Get().data["status"] == "ScaleUp: InProgress"; }, 10s));
  ASSERT_TRUE(sim_.Apply(
      R"({"delete":{"kind":"ConfigMap","namespace":"kube-system","name":"cluster-autoscaler-status"}})"));
  ASSERT_TRUE(WaitFor([&] { return !source.Get().present; }, 10s));
  EXPECT_EQ(source.ObjectCount(), 0u);
  // The gauge is set just after the handler has run.
  EXPECT_TRUE(WaitFor([&] { return metrics_.Objects("configmaps").Value() == 0; }, 10s));
}

// ConfigMapSource's handler contract on literal documents (made up, ConfigMap shape).
TEST(ConfigMapSource, ListReplacesAndIgnoresOtherNames) {
  ConfigMapSource source("cluster-autoscaler-status");
  rapidjson::Document ours, other, bad;
  ours.Parse(R"({"kind":"ConfigMap","metadata":{"name":"cluster-autoscaler-status",
    "namespace":"kube-system","resourceVersion":"7"},"data":{"status":"a","n":1}})");
  other.Parse(R"({"kind":"ConfigMap","metadata":{"name":"x"},"data":{"status":"b"}})");
  bad.Parse(R"({"kind":"ConfigMap","metadata":{"name":"cluster-autoscaler-status"},"data":[1]})");
  source.OnListBegin();
  EXPECT_TRUE(source.OnListItem(other));
  EXPECT_TRUE(source.OnListItem(ours));
  source.OnListEnd("7");
  ConfigMapData d = source.Get();
  EXPECT_TRUE(d.present);
  EXPECT_EQ(d.data, (std::map<std::string, std::string>{{"status", "a"}}));
  EXPECT_EQ(d.resource_version, "7");
  EXPECT_EQ(d.version, 1u);
  EXPECT_FALSE(source.OnEvent(WatchEventType::kModified, bad));
  EXPECT_TRUE(source.Get().present);
  source.OnListBegin();
  source.OnListEnd("8");  // the ConfigMap is gone
  EXPECT_FALSE(source.Get().present);
  EXPECT_EQ(source.Version(), 2u);
}

}  // namespace
}  // namespace podwait::testing
