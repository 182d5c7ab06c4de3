// The simulator's load generation: real-shaped pods (managedFields, containers with env, mounts,
// resources and probes, volumes, tolerations, affinity) in the v1 and v2 shapes, whose
// classification-relevant content (status, the labels, init container names) is what the plain
// shorthand gives.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "exporter/common/clock.h"
#include "tests/sim/shorthand.h"
#include "tests/sim/simulator.h"

namespace podwait::sim {
namespace {

using ::testing::ElementsAre;

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text.substr(0, 200);
  return d;
}

std::vector<std::string> Managers(const rapidjson::Value& pod) {
  std::vector<std::string> out;
  for (const auto& m : pod["metadata"]["managedFields"].GetArray()) {
    std::string s = m["manager"].GetString();
    s += std::string("/") + m["operation"].GetString();
    if (m.HasMember("subresource")) s += std::string("/") + m["subresource"].GetString();
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> Names(const rapidjson::Value& list) {
  std::vector<std::string> out;
  for (const auto& c : list.GetArray()) out.push_back(c["name"].GetString());
  return out;
}

// The names of a pod spec's init containers; none when the spec has no such list.
std::vector<std::string> InitNames(const rapidjson::Value& spec) {
  auto it = spec.FindMember("initContainers");
  return it == spec.MemberEnd() ? std::vector<std::string>() : Names(it->value);
}

class SimGenerate : public ::testing::Test {
 protected:
  // All pods of `--generate-clusters 3 --pods-per-cluster 10` by name.
  std::map<std::string, rapidjson::Document> Pods(Simulator::Shape shape) {
    std::string error;
    EXPECT_TRUE(sim_.Generate(3, 10, &error, shape)) << error;
    std::map<std::string, rapidjson::Document> out;
    for (const auto& o : sim_.store().Snapshot(Resource::kPods)) out[o->name] = ParseJson(o->json);
    return out;
  }
  Simulator sim_{SimOptions{}, SystemClock::Instance()};
};

TEST_F(SimGenerate, V1PodsLookLikeWhatTheApiServerReturns) {
  auto pods = Pods(Simulator::Shape::kV1);
  ASSERT_EQ(pods.size(), 30u);
  // A healthy TiDB pod of cluster 1: created by the StatefulSet controller, labelled by
  // tidb-operator, status from the kubelet.
  const rapidjson::Value& tidb = pods.at("tc-0001-tidb-0");
  EXPECT_THAT(Managers(tidb),
              ElementsAre("kube-controller-manager/Update", "tidb-controller-manager/Update",
                          "kubelet/Update/status"));
  EXPECT_STREQ(tidb["metadata"]["ownerReferences"][0]["kind"].GetString(), "StatefulSet");
  const rapidjson::Value& spec = tidb["spec"];
  EXPECT_THAT(Names(spec["containers"]), ElementsAre("tidb", "slowlog"));
  EXPECT_THAT(Names(spec["initContainers"]), ElementsAre("wait-for-pd"));
  const rapidjson::Value& main = spec["containers"][0];
  EXPECT_GE(main["env"].Size(), 4u);
  EXPECT_GE(main["volumeMounts"].Size(), 4u);
  EXPECT_EQ(main["readinessProbe"]["tcpSocket"]["port"].GetInt(), 4000);
  EXPECT_STREQ(main["resources"]["limits"]["memory"].GetString(), "8Gi");
  EXPECT_EQ(spec["tolerations"].Size(), 2u);
  EXPECT_TRUE(spec["affinity"]["podAntiAffinity"].IsObject());
  EXPECT_GE(spec["volumes"].Size(), 4u);
  // Every mount names a volume of the pod.
  std::set<std::string> volumes;
  for (const auto& v : spec["volumes"].GetArray()) volumes.insert(v["name"].GetString());
  for (const auto* list : {&spec["containers"], &spec["initContainers"]}) {
    for (const auto& c : list->GetArray()) {
      for (const auto& m : c["volumeMounts"].GetArray()) {
        EXPECT_TRUE(volumes.count(m["name"].GetString())) << m["name"].GetString();
      }
    }
  }
  // The kubelet owns what it wrote (the status; its set abbreviated below the top level), the
  // controller the spec (containers keyed by name, as the API server keys them).
  const auto& fields = tidb["metadata"]["managedFields"];
  const auto& kubelet = fields[2]["fieldsV1"]["f:status"];
  for (const char* f :
       {"f:conditions", "f:containerStatuses", "f:initContainerStatuses", "f:phase", "f:podIP"}) {
    EXPECT_TRUE(kubelet.HasMember(f)) << f;
  }
  EXPECT_FALSE(fields[0]["fieldsV1"]["f:spec"].HasMember("f:nodeName"));  // the binding's
  EXPECT_TRUE(
      fields[0]["fieldsV1"]["f:spec"]["f:containers"].HasMember("k:{\"name\":\"slowlog\"}"));
  EXPECT_TRUE(
      fields[1]["fieldsV1"]["f:metadata"]["f:labels"].HasMember("f:tidb.pingcap.com/cluster-id"));
  // An unschedulable TiKV pod (cluster 1: a node is being added) was never bound: no kubelet.
  EXPECT_THAT(Managers(pods.at("tc-0001-tikv-3")),
              ElementsAre("kube-controller-manager/Update", "kube-scheduler/Update/status"));
}

// The generator's pods classify as the plain shorthand's did: same status (the TiDB slow-log
// sidecar adds its own container status), labels and init containers.
TEST_F(SimGenerate, FullPodsKeepTheClassificationRelevantContent) {
  const Timestamp now = 1'714'600'000'000;
  for (const char* shorthand :
       {R"({"namespace":"n","name":"tc-tikv-3","waitForPd":true,"stage":"init","created":"-30m"})",
        R"({"namespace":"n","name":"tc-pd-0","stage":"running","created":"-30m"})",
        R"({"namespace":"n","name":"tc-tikv-4","waitForPd":true,"stage":"unschedulable",
            "since":"-3m","created":"-30m"})",
        R"({"namespace":"n","name":"tc-tidb-1","waitForPd":true,"created":"-30m"})",
        R"({"namespace":"n","name":"tidb-tidb-a1b2c3","operator":"v2","cluster":"tc",
            "stage":"waiting","reason":"CrashLoopBackOff","restarts":4,"created":"-30m"})"}) {
    SCOPED_TRACE(shorthand);
    rapidjson::Document plain_spec = ParseJson(shorthand);
    rapidjson::Document full_spec = ParseJson(shorthand);
    full_spec.AddMember("full", true, full_spec.GetAllocator());
    rapidjson::Document plain, full;
    std::string error;
    ASSERT_TRUE(ExpandPod(plain_spec, now, &plain, &error)) << error;
    ASSERT_TRUE(ExpandPod(full_spec, now, &full, &error)) << error;
    EXPECT_EQ(InitNames(full["spec"]), InitNames(plain["spec"]));
    for (const auto& l : plain["metadata"]["labels"].GetObject()) {
      ASSERT_TRUE(full["metadata"]["labels"].HasMember(l.name));
      EXPECT_EQ(full["metadata"]["labels"][l.name], l.value);
    }
    rapidjson::Value& status = full["status"];
    if (std::string(plain["metadata"]["name"].GetString()) == "tc-tidb-1") {
      // Drop the sidecar's status; the rest is the same.
      ASSERT_EQ(status["containerStatuses"].Size(), 2u);
      EXPECT_STREQ(status["containerStatuses"][1]["name"].GetString(), "slowlog");
      status["containerStatuses"].PopBack();
    }
    EXPECT_TRUE(status == plain["status"]);
    EXPECT_GE(full["metadata"]["managedFields"].Size(), 2u);
  }
}

TEST_F(SimGenerate, V2PodsBelongToTheirInstancesAndTheirCluster) {
  auto pods = Pods(Simulator::Shape::kV2);
  ASSERT_EQ(pods.size(), 30u);
  EXPECT_EQ(sim_.store().Count(Resource::kTidbClusters), 0u);
  size_t checked = 0;
  for (const auto& [name, pod] : pods) {
    SCOPED_TRACE(name);
    const auto& labels = pod["metadata"]["labels"];
    const std::string component = labels["pingcap.com/component"].GetString();
    const std::string instance = labels["pingcap.com/instance"].GetString();
    // <group>-<component>-<suffix>, owned by the instance CR <group>-<suffix>.
    EXPECT_EQ(name, component + "-" + component + "-" + instance.substr(component.size() + 1));
    const auto& owner = pod["metadata"]["ownerReferences"][0];
    EXPECT_STREQ(owner["apiVersion"].GetString(), "core.pingcap.com/v1alpha1");
    EXPECT_EQ(owner["name"].GetString(), instance);
    EXPECT_EQ(Managers(pod)[0], "tidb-operator/Apply");
    EXPECT_FALSE(pod["metadata"].HasMember("generateName"));
    ++checked;
  }
  EXPECT_EQ(checked, 30u);
  // A v2 TiKV pod has no readiness probe; cluster 0 waits on PD, its TiKV crash-loops.
  for (const auto& [name, pod] : pods) {
    if (std::string(pod["metadata"]["namespace"].GetString()) != "load-0000") continue;
    if (std::string(pod["metadata"]["labels"]["pingcap.com/component"].GetString()) != "tikv") {
      continue;
    }
    EXPECT_FALSE(pod["spec"]["containers"][0].HasMember("readinessProbe"));
    EXPECT_STREQ(pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"].GetString(),
                 "CrashLoopBackOff");
  }
}

}  // namespace
}  // namespace podwait::sim
