// The simulator serves the tidb-operator v2 kinds podwait reads, no more and no fewer: its
// resource table (tests/sim/store.cpp) against the v2 kinds of mixin/contract.json, which the
// contract docs check holds equal to `podwait-exporter contract` (exporter/model/v2.cpp Kinds()).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <set>
#include <string>
#include <tuple>

#include "tests/sim/store.h"
#include "tests/support/process.h"

namespace podwait::sim {
namespace {

// (kind, plural, role): role is the discovery category the simulator gives v2 instances and
// groups ("instance", "group"), "cluster" for the Cluster.
using Row = std::tuple<std::string, std::string, std::string>;

std::set<Row> ContractKinds(std::string* api_version) {
  const std::string text =
      testing::ReadFile(std::string(PODWAIT_SOURCE_DIR) + "/mixin/contract.json");
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  std::set<Row> out;
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("v2")) return out;
  const auto& v2 = doc["v2"];
  *api_version = v2["apiVersion"].GetString();
  for (const auto& k : v2["kinds"].GetArray()) {
    out.emplace(k["kind"].GetString(), k["resource"].GetString(), k["role"].GetString());
  }
  return out;
}

TEST(SimV2Kinds, MatchTheContract) {
  std::string api_version;
  const std::set<Row> contract = ContractKinds(&api_version);
  ASSERT_FALSE(contract.empty()) << "mixin/contract.json has no v2 kinds";
  std::set<Row> sim;
  for (Resource r : ResourcesOf(api_version)) {
    const ResourceInfo& info = Info(r);
    const std::string categories = info.categories;
    sim.emplace(info.kind, info.plural, categories.empty() ? "cluster" : categories);
  }
  EXPECT_EQ(sim, contract) << "the simulator's v2 resources (tests/sim/store.cpp) differ from "
                              "the contract's (exporter/model/v2.cpp)";
}

}  // namespace
}  // namespace podwait::sim
