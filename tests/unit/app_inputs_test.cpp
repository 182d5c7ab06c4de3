// The exporter's inputs table: which rows are read under which flags, and each row's handler
// writing the Pipeline's stores.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/app/inputs.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Enabled(const Config& config) {
  FakeClock clock(1'700'000'000'000);
  Pipeline pipeline(config, clock);
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  InputContext ctx{config, pipeline, clock, handlers, ca_status, {}};
  std::vector<std::string> out;
  for (const InputSource& input : InputSources()) {
    if (input.enabled(ctx)) out.emplace_back(input.resource);
  }
  return out;
}

TEST(Inputs, RowsFollowTheFlags) {
  Config config;
  config.tidbcluster_enabled = true;
  config.v2_enabled = true;
  config.ca_status_enabled = true;
  config.autoscaler = "auto";
  EXPECT_THAT(Enabled(config), ElementsAre("pods", "events", "tidbclusters", "<v2 resources>",
                                           "configmaps"));
  config.tidbcluster_enabled = false;
  config.v2_enabled = false;
  config.autoscaler = "karpenter";  // Karpenter writes no status ConfigMap
  EXPECT_THAT(Enabled(config), ElementsAre("pods", "events"));
}

TEST(Inputs, OneHandlerPerReflectorWritingThePipeline) {
  Config config;
  config.namespaces = {"a", "b"};
  config.v2_enabled = true;
  FakeClock clock(1'700'000'000'000);
  Pipeline pipeline(config, clock);
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  InputContext ctx{config, pipeline, clock, handlers, ca_status, {}};
  const InputSource& v2 = InputSources()[3];
  ASSERT_EQ(v2.resource, "<v2 resources>");
  std::vector<ReflectorOptions> options = v2.reflectors(config);
  ASSERT_FALSE(options.empty());
  EXPECT_EQ(options.size() % 2, 0u) << "one per resource and watched namespace";
  for (const ReflectorOptions& o : options) v2.handler(ctx, o);
  EXPECT_EQ(handlers.size(), options.size());

  const InputSource& ca = InputSources()[4];
  ca.handler(ctx, ca.reflectors(config)[0]);
  EXPECT_NE(ca_status, nullptr);
}

}  // namespace
}  // namespace podwait
