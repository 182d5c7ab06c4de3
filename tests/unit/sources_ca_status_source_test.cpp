// The CA status ConfigMap read for the evaluation: the "status" key parsed, again only when the
// ConfigMap changed; an unparsable status counted once, not a crash.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/sources/ca_status_source.h"

namespace podwait {
namespace {

// Made up in the format of cluster-autoscaler >= 1.30's status ConfigMap
// (kubernetes/autoscaler cluster-autoscaler/clusterstate/api/types.go, ClusterAutoscalerStatus).
constexpr const char* kStatus =
    "autoscalerStatus: Running\n"
    "clusterWide:\n  scaleUp:\n    status: InProgress\n"
    "nodeGroups:\n- name: pool-1\n  scaleUp:\n    status: Backoff\n";

TEST(CaStatusData, ParsesTheStatusKey) {
  Result<CaStatus> r = ParseCaStatusData({{"status", kStatus}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->cluster_scale_up, "InProgress");
  ASSERT_EQ(r.value->node_groups.size(), 1u);
  EXPECT_EQ(r.value->node_groups[0].name, "pool-1");
  EXPECT_EQ(ParseCaStatusData({{"other", "x"}}).error, "no \"status\" key");
}

// A ConfigMap as the API server sends it (kubectl get configmap -o json shape).
rapidjson::Document ConfigMap(const std::string& status) {
  rapidjson::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  rapidjson::Value md(rapidjson::kObjectType);
  md.AddMember("name", "cluster-autoscaler-status", a);
  md.AddMember("namespace", "kube-system", a);
  md.AddMember("resourceVersion", "12", a);
  rapidjson::Value data(rapidjson::kObjectType);
  data.AddMember("status", rapidjson::Value(status.c_str(), a), a);
  d.AddMember("kind", "ConfigMap", a);
  d.AddMember("metadata", md, a);
  d.AddMember("data", data, a);
  return d;
}

TEST(CaStatusSource, ReadsWhatTheReflectorDelivered) {
  std::vector<std::string> errors;
  CaStatusSource source("cluster-autoscaler-status",
                        [&errors](const std::string& e) { errors.push_back(e); });
  EXPECT_FALSE(source.Read().configmap_present);

  source.handler().OnListBegin();
  ASSERT_TRUE(source.handler().OnListItem(ConfigMap(kStatus)));
  source.handler().OnListEnd("12");
  CaStatusReading r = source.Read();
  EXPECT_TRUE(r.configmap_present);
  ASSERT_NE(r.status, nullptr);
  EXPECT_EQ(r.status->node_groups.size(), 1u);
  EXPECT_EQ(source.Read().status, r.status) << "unchanged: not parsed again";

  ASSERT_TRUE(source.handler().OnEvent(WatchEventType::kModified, ConfigMap("{[not yaml")));
  r = source.Read();
  EXPECT_TRUE(r.configmap_present);
  EXPECT_EQ(r.status, nullptr);
  source.Read();
  EXPECT_EQ(errors.size(), 1u) << "one change, one error";
}

}  // namespace
}  // namespace podwait
