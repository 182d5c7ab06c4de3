// The components tidb-operator defines (model/types.h Components()): one table, from which the
// default dependency map and the mapped component label both come.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "exporter/model/types.h"
#include "exporter/model/v2.h"
#include "exporter/model/waiting.h"

namespace podwait {
namespace {

TEST(Components, EveryV2KindThenV1sOwnOnce) {
  std::set<std::string_view> names;
  for (const ComponentInfo& c : Components()) {
    EXPECT_TRUE(names.insert(c.name).second) << "twice: " << c.name;
  }
  for (const v2::Kind& k : v2::Kinds()) EXPECT_TRUE(names.count(k.component)) << k.component;
  for (std::string_view v1 :
       {"pump", "discovery", "monitor", "ng-monitoring", "tidb-dashboard", "initializer"}) {
    EXPECT_TRUE(names.count(v1)) << v1;
  }
  EXPECT_FALSE(names.count(kOtherComponent));
}

TEST(Components, TheDefaultDependencyMapIsTheirNeeds) {
  const DependencyMap& map = DefaultDependencyMap();
  EXPECT_EQ(map.at("pump"), std::vector<Dependency>{Dependency::kPd});
  // tso applies only in PD microservices mode (the pod rules drop it elsewhere).
  EXPECT_EQ(map.at("tidb"),
            (std::vector<Dependency>{Dependency::kPd, Dependency::kTso, Dependency::kTikv}));
  EXPECT_EQ(map.at("ticdc"),
            (std::vector<Dependency>{Dependency::kPd, Dependency::kTso, Dependency::kTikv}));
  EXPECT_EQ(map.at("tiflash"), (std::vector<Dependency>{Dependency::kPd, Dependency::kTikv}));
  EXPECT_EQ(map.count("pd"), 0u);  // waits for nothing
  EXPECT_EQ(map.count("discovery"), 0u);
}

TEST(ComponentLabel, KnownComponentsAreKeptEverythingElseIsOther) {
  for (const ComponentInfo& c : Components()) EXPECT_EQ(ComponentLabel(c.name), c.name);
  EXPECT_EQ(ComponentLabel(""), "");
  EXPECT_EQ(ComponentLabel("TiKV"), kOtherComponent);  // label values are case-sensitive
  EXPECT_EQ(ComponentLabel("tikv "), kOtherComponent);
  EXPECT_EQ(ComponentLabel("made-up-4000"), kOtherComponent);
  EXPECT_EQ(ComponentLabel(std::string(10000, 'x')), kOtherComponent);
}

// A stage histogram's key holds the mapped component: 4,000 made-up components are one key.
TEST(ComponentLabel, StageHistogramKeysAreBounded) {
  std::set<StageHistogramKey> keys;
  for (int i = 0; i < 4000; ++i) {
    keys.insert(StageHistogramKey("made-up-" + std::to_string(i), Stage::kUnscheduled,
                                  WaitClass::kCapacity));
  }
  keys.insert(StageHistogramKey("tikv", Stage::kUnscheduled, WaitClass::kCapacity));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys.begin()->component, "other");
  EXPECT_EQ(std::next(keys.begin())->component, "tikv");
}

}  // namespace
}  // namespace podwait
