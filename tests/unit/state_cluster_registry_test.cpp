// Cluster discovery from pods and TidbClusters, removal, sharding and the listener.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/shard.h"
#include "exporter/state/cluster_registry.h"
#include "exporter/state/pod_store.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

PodRecord Pod(const std::string& ns, const std::string& cluster, const std::string& component,
              bool ready) {
  PodRecord p;
  p.namespace_ = ns;
  p.name = cluster + "-" + component;
  p.cluster = cluster;
  p.component = component;
  PodCondition c;
  c.type = "Ready";
  c.status = ready ? ConditionStatus::kTrue : ConditionStatus::kFalse;
  p.mutable_detail().conditions.push_back(c);
  return p;
}

TEST(ClusterRegistryTest, DiscoversFromPodsAndTidbClusters) {
  Config config;
  ClusterRegistry reg(config);
  std::vector<std::map<ClusterKey, ClusterInfo>> seen;
  reg.SetListener([&](const auto& m) { seen.push_back(m); });

  PodRecord no_label = Pod("ns", "", "tidb", false);
  PodRecord deleting = Pod("ns", "a", "pd", true);
  deleting.deleted = 5;
  // The clusters as the pod store keeps them (Ready PD pods counted as pods come and go).
  PodStore pods;
  int n = 0;
  for (PodRecord p : {Pod("ns", "a", "pd", true), Pod("ns", "a", "pd", false),
                      Pod("ns", "a", "tikv", true), deleting, no_label}) {
    p.uid = "uid-" + std::to_string(++n);
    p.name += "-" + std::to_string(n);
    pods.Upsert(std::move(p));
  }
  reg.SetPodClusters(pods.Clusters());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].at(ClusterKey{"ns", "a"}).ready_pd_pods, 1);
  EXPECT_TRUE(seen[0].at(ClusterKey{"ns", "a"}).from_pods);

  reg.UpsertTidbCluster(ClusterKey{"ns", "b"});
  EXPECT_THAT(reg.Clusters(), ElementsAre(ClusterKey{"ns", "a"}, ClusterKey{"ns", "b"}));
  EXPECT_TRUE(reg.Snapshot().at(ClusterKey{"ns", "b"}).from_tidbcluster);

  // The same input again changes nothing: no notification.
  reg.UpsertTidbCluster(ClusterKey{"ns", "b"});
  EXPECT_EQ(seen.size(), 2u);

  // The pods of "a" go away: "a" disappears; "b" stays while its TidbCluster exists.
  reg.SetPodClusters({}, {});
  EXPECT_THAT(reg.Clusters(), ElementsAre(ClusterKey{"ns", "b"}));
  reg.RemoveTidbCluster(ClusterKey{"ns", "b"});
  EXPECT_THAT(reg.Clusters(), IsEmpty());
  EXPECT_THAT(seen.back(), IsEmpty());
}

TEST(ClusterRegistryTest, ShardsByFnvOfNamespaceAndName) {
  std::vector<ClusterKey> all;
  for (int i = 0; i < 200; ++i)
    all.push_back(ClusterKey{"ns" + std::to_string(i % 7), "c" + std::to_string(i)});
  size_t total = 0;
  for (int shard = 0; shard < 3; ++shard) {
    Config config;
    config.shard = shard;
    config.total_shards = 3;
    ClusterRegistry reg(config);
    reg.SetPodClusters(all, {});
    for (const auto& c : reg.Clusters()) {
      EXPECT_EQ(ShardOf(c.namespace_, c.name, 3), shard);
    }
    EXPECT_GT(reg.Clusters().size(), 30u);  // roughly even
    total += reg.Clusters().size();
  }
  EXPECT_EQ(total, all.size());  // every cluster is owned by exactly one shard
}

TEST(ClusterRegistryTest, ReadyPdPodsFromTheLeadsCounts) {
  Config config;
  ClusterRegistry reg(config);
  reg.SetPodClusters({ClusterKey{"ns", "a"}}, {{ClusterKey{"ns", "a"}, 2}});
  EXPECT_EQ(reg.Snapshot().at(ClusterKey{"ns", "a"}).ready_pd_pods, 2);
}

}  // namespace
}  // namespace podwait
