// The exporter's inputs table: which rows are read under which flags, and each row's handler
// writing the Pipeline's stores.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "exporter/app/inputs.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/metrics/contract.h"
#include "tests/support/threaded_async_http.h"

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
  EXPECT_THAT(Enabled(config),
              ElementsAre("pods", "events", "tidbclusters", "<v2 resources>", "configmaps",
                          "persistentvolumeclaims", "persistentvolumes", "nodeclaims", "events",
                          "provisioningrequests", "dmclusters"));
  config.tidbcluster_enabled = false;
  config.v2_enabled = false;
  config.volumes_enabled = false;
  config.autoscaler = "karpenter";  // Karpenter writes no status ConfigMap
  EXPECT_THAT(Enabled(config), ElementsAre("pods", "events", "nodeclaims", "events"));
  config.autoscaler = "cluster-autoscaler";  // no NodeClaims
  EXPECT_THAT(Enabled(config), ElementsAre("pods", "events", "configmaps", "provisioningrequests"));
  // NodeClaims are cluster-scoped: not read when only some namespaces are watched.
  config.autoscaler = "auto";
  config.namespaces = {"a"};
  EXPECT_THAT(Enabled(config), ElementsAre("pods", "events", "configmaps", "provisioningrequests"));
  config.autoscaler = "none";
  EXPECT_THAT(Enabled(config), ElementsAre("pods", "events"));
}

// The NodeClaim rows write the Pipeline's NodeClaim store: the NodeClaims and the launch
// failures of the events of NodeClaims.
TEST(Inputs, NodeClaimRowsWriteThePipelinesNodeClaimStore) {
  Config config;
  FakeClock clock(1'700'000'000'000);
  Pipeline pipeline(config, clock);
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  InputContext ctx{config, pipeline, clock, handlers, ca_status, {}};
  const InputSource& claims = InputSources()[7];
  ASSERT_EQ(claims.resource, "nodeclaims");
  ReflectorHandler& h = claims.handler(ctx, claims.reflectors(config)[0]);
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"default-x9q2w"},"status":{"conditions":[
      {"type":"Launched","status":"True"}]}})");
  h.OnListBegin();
  ASSERT_TRUE(h.OnListItem(doc));
  h.OnListEnd("1");
  EXPECT_NE(pipeline.nodeclaims().View()->Find("default-x9q2w"), nullptr);

  const InputSource& events = InputSources()[8];
  ASSERT_EQ(events.reflectors(config)[0].field_selector, "involvedObject.kind=NodeClaim");
  ReflectorHandler& e = events.handler(ctx, events.reflectors(config)[0]);
  doc.Parse(R"({"metadata":{"name":"x","namespace":"default"},
      "involvedObject":{"kind":"NodeClaim","name":"default-x9q2w"},
      "reason":"InsufficientCapacityError","message":"NodeClaim default-x9q2w event: no capacity",
      "lastTimestamp":"2025-06-03T09:00:08Z"})");
  ASSERT_TRUE(e.OnEvent(WatchEventType::kAdded, doc));
  ASSERT_NE(pipeline.nodeclaims().View()->FailureOf("default-x9q2w"), nullptr);
  EXPECT_EQ(pipeline.nodeclaims().View()->FailureOf("default-x9q2w")->message, "no capacity");
}

// A Pipeline and the context the input rows' handlers write it through.
struct Wired {
  explicit Wired(Config c) : config(std::move(c)) {}
  Config config;
  FakeClock clock{1'700'000'000'000};
  Pipeline pipeline{config, clock};
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  InputContext ctx{config, pipeline, clock, handlers, ca_status, {}};
};

// The ProvisioningRequest row: one reflector per watched namespace, each writing its namespace
// of the Pipeline's store; a 404 or a 403 disables it.
TEST(Inputs, ProvisioningRequestRowFollowsTheNamespacesAndWritesThePipeline) {
  Config config;
  config.namespaces = {"a", "tidb"};
  Wired w(config);
  const InputSource& row = InputSources()[9];
  ASSERT_EQ(row.resource, "provisioningrequests");
  std::vector<ReflectorOptions> options = row.reflectors(w.config);
  ASSERT_EQ(options.size(), 2u);
  EXPECT_EQ(options[1].path, "/apis/autoscaling.x-k8s.io/v1/namespaces/tidb/provisioningrequests");
  ReflectorHandler& h = row.handler(w.ctx, options[1]);
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"demo-tikv-scale","namespace":"tidb"},"status":{
      "conditions":[{"type":"Failed","status":"True","reason":"CapacityIsNotFound"}]}})");
  h.OnListBegin();
  ASSERT_TRUE(h.OnListItem(doc));
  h.OnListEnd("1");
  const ProvisioningRequestFacts* pr =
      w.pipeline.provisioning_requests().View()->Find("tidb", "demo-tikv-scale");
  ASSERT_NE(pr, nullptr);
  EXPECT_EQ(pr->Condition(ProvReqCondition::kFailed).reason, "CapacityIsNotFound");
  EXPECT_TRUE(h.OnNotFound()) << "the CRD not installed disables the input";
  EXPECT_TRUE(h.OnForbidden()) << "no RBAC for it disables the input";
}

// tidb-operator v1's DMClusters follow --tidbcluster.enabled and the watched namespaces, and write
// the Pipeline's DMCluster store (whose dm-master the dependency state shows).
TEST(Inputs, TheDmClusterRowWritesThePipelinesDmClusterStore) {
  Config config;
  config.namespaces = {"a", "b"};
  FakeClock clock(1'700'000'000'000);
  Pipeline pipeline(config, clock);
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  InputContext ctx{config, pipeline, clock, handlers, ca_status, {}};
  const InputSource& row = InputSources().back();
  ASSERT_EQ(row.resource, "dmclusters");
  EXPECT_EQ(row.api, "/apis/pingcap.com/v1alpha1");
  std::vector<ReflectorOptions> options = row.reflectors(config);
  ASSERT_EQ(options.size(), 2u);  // one per watched namespace
  ReflectorHandler& handler = row.handler(ctx, options[0]);
  rapidjson::Document doc;
  doc.Parse(R"({"metadata": {"name": "dm", "namespace": "a"},
                "spec": {"master": {"replicas": 1}},
                "status": {"master": {"members": {"dm-dm-master-0": {"health": true}}}}})");
  handler.OnListBegin();
  EXPECT_TRUE(handler.OnListItem(doc));
  handler.OnListEnd("1");
  EXPECT_EQ(pipeline.dmclusters().Size(), 1u);
  EXPECT_EQ(pipeline.dependencies().Get({"a", "dm"})->dm_master.readiness, Readiness::kReady);
  config.tidbcluster_enabled = false;
  EXPECT_FALSE(row.enabled(ctx));
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

// The optional inputs are the rows with an input name, and they are the values the contract
// gives podwait_input_enabled{input}.
TEST(OptionalInputs, TheRowsNameTheContractsInputs) {
  std::string names;
  for (const InputSource& input : InputSources()) {
    if (input.input.empty() || names.find(input.input) != std::string::npos) continue;
    names += (names.empty() ? "" : ", ") + std::string(input.input);
  }
  EXPECT_EQ(names, metric::kInputEnabledSources[0].bounded_by);
}

// Inputs the configuration turns off are off from the start, with no reflector to wait for.
TEST(OptionalInputs, OffByConfiguration) {
  Config config;
  config.tidbcluster_enabled = false;
  config.v2_enabled = false;
  config.volumes_enabled = false;
  config.autoscaler = "none";
  FakeClock clock(1'700'000'000'000);
  Pipeline pipeline(config, clock);
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  InputContext ctx{config, pipeline, clock, handlers, ca_status, {}};
  SyncStatus sync;
  KubeContext kube;
  kube.endpoint.api_url = "http://api.test";
  testing::UseThreadedAsyncHttp(&kube.env);
  kube.sync = &sync;
  OptionalInputs optional;
  auto reflectors = BuildInputReflectors(ctx, kube, &optional);
  for (const auto& r : reflectors) {
    EXPECT_THAT(r->options().resource, ::testing::AnyOf("pods", "events")) << r->options().name;
  }
  EXPECT_TRUE(optional.Settled());
  std::vector<OptionalInputs::State> states = optional.States();
  ASSERT_EQ(states.size(), 7u);
  for (const auto& s : states) {
    EXPECT_EQ(s.off, OptionalInputs::Off::kConfigured) << s.input;
  }
  EXPECT_EQ(DescribeOff(states),
            "tidbclusters (off by configuration), v2 (off by configuration), ca_status (off by "
            "configuration), volumes (off by configuration), nodeclaims (off by configuration), "
            "provisioningrequests (off by configuration), dmclusters (off by configuration)");
}

TEST(OptionalInputs, DescribeOffNamesEachWhy) {
  using Off = OptionalInputs::Off;
  std::vector<OptionalInputs::State> states = {{"tidbclusters", Off::kOn, {}},
                                               {"v2", Off::kOn, {"routergroups", "routers"}},
                                               {"volumes", Off::kForbidden, {}},
                                               {"nodeclaims", Off::kNotServed, {}}};
  EXPECT_EQ(
      DescribeOff(states),
      "v2 (in part: routergroups, routers off), volumes (forbidden), nodeclaims (not served)");
  states.resize(1);
  EXPECT_EQ(DescribeOff(states), "") << "every input on: nothing to say";
}

}  // namespace
}  // namespace podwait
