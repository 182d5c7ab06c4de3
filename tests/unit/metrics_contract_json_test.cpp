// `podwait-exporter contract` prints the v2 kinds and the autoscalers from their tables, with the
// resources they need (the RBAC checks and the simulator's test read these sections).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <string>
#include <vector>

#include "exporter/metrics/contract_json.h"
#include "exporter/model/autoscalers.h"
#include "exporter/model/v2.h"

namespace podwait {
namespace {

rapidjson::Document Contract() {
  const std::string text = RenderContractJson();
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  EXPECT_FALSE(doc.HasParseError());
  return doc;
}

std::vector<std::string> Strings(const rapidjson::Value& array) {
  std::vector<std::string> out;
  for (const auto& v : array.GetArray()) out.emplace_back(v.GetString());
  return out;
}

TEST(ContractJson, ListsEveryV2KindWithItsResource) {
  rapidjson::Document doc = Contract();
  ASSERT_TRUE(doc.HasMember("v2"));
  const auto& v2 = doc["v2"];
  EXPECT_EQ(std::string(v2["apiGroup"].GetString()), "core.pingcap.com");
  EXPECT_THAT(Strings(v2["verbs"]), ::testing::ElementsAre("list", "watch"));
  std::vector<std::string> rows;
  for (const auto& k : v2["kinds"].GetArray()) {
    rows.push_back(std::string(k["kind"].GetString()) + " " + k["resource"].GetString() + " " +
                   k["role"].GetString() + " " + k["component"].GetString());
  }
  ASSERT_EQ(rows.size(), 1 + 2 * v2::Kinds().size());
  EXPECT_EQ(rows[0], "Cluster clusters cluster ");
  EXPECT_EQ(rows[1], "PD pds instance pd");
  EXPECT_EQ(rows[2], "PDGroup pdgroups group pd");
  EXPECT_THAT(rows, ::testing::Contains("SchedulerGroup schedulergroups group scheduler"));
}

// Each instance kind says what its component waits for and how it starts (model/v2.cpp Kinds()).
TEST(ContractJson, EveryV2InstanceKindWithWhatItWaitsFor) {
  rapidjson::Document doc = Contract();
  std::map<std::string, std::string> waits;
  for (const auto& k : doc["v2"]["kinds"].GetArray()) {
    if (std::string(k["role"].GetString()) != "instance") {
      EXPECT_FALSE(k.HasMember("dependencies")) << k["kind"].GetString();
      continue;
    }
    std::string deps;
    for (const auto& d : k["dependencies"].GetArray()) deps += std::string(d.GetString()) + " ";
    waits[k["kind"].GetString()] = deps + k["startUp"].GetString();
  }
  EXPECT_EQ(waits.size(), v2::Kinds().size());
  EXPECT_EQ(waits["PD"], "own_quorum");
  EXPECT_EQ(waits["TiDB"], "pd tso tikv exits");
  EXPECT_EQ(waits["TiCDC"], "pd tso tikv not_ready");
  EXPECT_EQ(waits["TiFlash"], "pd tikv not_ready");
  EXPECT_EQ(waits["TiKVWorker"], "pd exits");
  EXPECT_EQ(waits["ResourceManager"], "pd exits");
  EXPECT_EQ(waits["Router"], "pd exits");
  EXPECT_EQ(waits["TiProxy"], "regardless");
  EXPECT_EQ(waits["DM"], "own_quorum");
  EXPECT_EQ(waits["DMWorker"], "dm-master exits");
}

// Each topology (docs/DESIGN.md §4, "Topologies") says how podwait recognises it, where
// tidb-operator defines it, what is probed and what the dependencies read.
TEST(ContractJson, EveryTopologySaysWhatIsProbedAndRead) {
  const rapidjson::Document doc = Contract();
  ASSERT_TRUE(doc.HasMember("topologies"));
  std::vector<std::string> names;
  for (const auto& t : doc["topologies"].GetArray()) {
    names.emplace_back(t["name"].GetString());
    for (const char* key : {"shape", "source", "pdProbe", "dependencies"}) {
      ASSERT_TRUE(t.HasMember(key)) << names.back() << " " << key;
      EXPECT_GT(t[key].GetStringLength(), 0u) << names.back() << " " << key;
    }
  }
  EXPECT_THAT(names, ::testing::ElementsAre("own_pd", "heterogeneous", "across_kubernetes",
                                            "no_pd_source", "not_a_cluster", "dm_cluster_v1"));
  // PD elsewhere is never a PD outage: the words of the dependency reason say so.
  EXPECT_THAT(std::string(doc["topologies"][2]["dependencies"].GetString()),
              ::testing::HasSubstr("pd_elsewhere"));
}

TEST(ContractJson, ListsEveryAutoscalerWithWhatItReads) {
  rapidjson::Document doc = Contract();
  ASSERT_TRUE(doc.HasMember("autoscalers"));
  const auto& list = doc["autoscalers"];
  ASSERT_EQ(list.Size(), kAutoscalers.size());
  const auto& ca = list[0];
  EXPECT_EQ(std::string(ca["name"].GetString()), "cluster-autoscaler");
  EXPECT_THAT(Strings(ca["verdictReasons"]),
              ::testing::ElementsAre("TriggeredScaleUp", "NotTriggerScaleUp"));
  // The status ConfigMap: one named object, so get as well as list and watch.
  const auto& cm = ca["resources"][1];
  EXPECT_EQ(std::string(cm["resource"].GetString()), "configmaps");
  EXPECT_EQ(std::string(cm["namespace"].GetString()), "kube-system");
  EXPECT_EQ(std::string(cm["name"].GetString()), "cluster-autoscaler-status");
  EXPECT_THAT(Strings(cm["verbs"]), ::testing::ElementsAre("get", "list", "watch"));
  // ProvisioningRequests: namespaced, every one of the watched namespaces.
  ASSERT_EQ(ca["resources"].Size(), 3u);
  const auto& pr = ca["resources"][2];
  EXPECT_EQ(std::string(pr["apiGroup"].GetString()), "autoscaling.x-k8s.io");
  EXPECT_EQ(std::string(pr["resource"].GetString()), "provisioningrequests");
  EXPECT_EQ(std::string(pr["name"].GetString()), "");
  EXPECT_FALSE(pr.HasMember("clusterScoped") && pr["clusterScoped"].GetBool());
  EXPECT_THAT(Strings(pr["verbs"]), ::testing::ElementsAre("list", "watch"));
  const auto& karpenter = list[1];
  EXPECT_EQ(std::string(karpenter["name"].GetString()), "karpenter");
  EXPECT_THAT(Strings(karpenter["eventSourcePrefixes"]), ::testing::ElementsAre("eks-auto-mode"));
  ASSERT_EQ(karpenter["resources"].Size(), 2u);
  EXPECT_EQ(std::string(karpenter["resources"][0]["resource"].GetString()), "events");
  EXPECT_THAT(Strings(karpenter["resources"][0]["verbs"]), ::testing::ElementsAre("list", "watch"));
  EXPECT_EQ(std::string(karpenter["resources"][1]["resource"].GetString()), "nodeclaims");
  EXPECT_TRUE(karpenter["resources"][1]["clusterScoped"].GetBool());
}

// Every label of every family says where its values come from and what bounds them: a set of
// podwait's own, a set values from outside are mapped onto, or the object the series goes with.
TEST(ContractJson, EveryLabelSaysWhereItsValuesComeFromAndWhatBoundsThem) {
  rapidjson::Document doc = Contract();
  std::map<std::string, std::string> bound;  // "family label" -> bound
  for (const auto& m : doc["metrics"].GetArray()) {
    const std::vector<std::string> labels = Strings(m["labels"]);
    const auto& values = m["labelValues"].GetArray();
    ASSERT_EQ(values.Size(), labels.size()) << m["name"].GetString();
    for (rapidjson::SizeType i = 0; i < values.Size(); ++i) {
      EXPECT_EQ(std::string(values[i]["label"].GetString()), labels[i]);
      EXPECT_NE(std::string(values[i]["from"].GetString()), "");
      EXPECT_NE(std::string(values[i]["boundedBy"].GetString()), "");
      bound[std::string(m["name"].GetString()) + " " + labels[i]] = values[i]["bound"].GetString();
    }
  }
  for (const auto& [label, b] : bound) {
    EXPECT_THAT(b, ::testing::AnyOf("fixed", "mapped", "object")) << label;
  }
  // The histograms of completed stages outlive their pods: their component is mapped, and the
  // waiting pods' own series go with the pods.
  EXPECT_EQ(bound["podwait_stage_duration_seconds component"], "mapped");
  EXPECT_EQ(bound["podwait_tikv_stores state"], "mapped");
  EXPECT_EQ(bound["podwait_pod_waiting_seconds component"], "object");
  EXPECT_EQ(bound["podwait_pod_waiting_seconds pod"], "object");
  EXPECT_EQ(bound["podwait_dependency_ready tidb_cluster"], "object");
  EXPECT_EQ(bound["podwait_pod_waiting_seconds class"], "fixed");
  // The sets a mapped value is mapped onto.
  const std::vector<std::string> components = Strings(doc["components"]);
  EXPECT_THAT(components, ::testing::IsSupersetOf({"pd", "tikv", "tidb", "tiflash", "ticdc",
                                                   "tiproxy", "dm-master", "pump", "discovery"}));
  EXPECT_THAT(components, ::testing::Not(::testing::Contains("other")));
  EXPECT_THAT(Strings(doc["storeStates"]), ::testing::Contains("Serving"));
}

}  // namespace
}  // namespace podwait
