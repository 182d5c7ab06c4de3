#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/config/flags.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Flags, DefaultsWithoutArguments) {
  Result<ParsedConfig> r = ParseFlags({});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->config.listen_addresses, ElementsAre(":9877"));
  EXPECT_FALSE(r->config.disable_exporter_metrics);
  EXPECT_EQ(r->config.web_max_requests, 40);
  EXPECT_EQ(r->config.telemetry_path, "/metrics");
  EXPECT_EQ(r->config.selector, "app.kubernetes.io/managed-by=tidb-operator");
  EXPECT_EQ(r->config.autoscaler_provision_timeout, 15 * kMinute);
  EXPECT_THAT(r->config.dependency_init_containers, ElementsAre("wait-for-pd"));
}

TEST(Flags, V2SourcesSecondSelectorAndAnExplicitPdTemplate) {
  Result<ParsedConfig> r = ParseFlags({});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->config.v2_enabled);
  EXPECT_EQ(r->config.selector_v2,
            "pingcap.com/managed-by=tidb-operator,!app.kubernetes.io/managed-by");
  EXPECT_FALSE(r->config.pd_url_template_explicit);
  r = ParseFlags({"--v2.enabled=false", "--selector.v2=", "--pd.url-template",
                  "http://{cluster}-pd.{namespace}:2379"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r->config.v2_enabled);
  EXPECT_EQ(r->config.selector_v2, "");
  // Given explicitly, even with the default's value: it wins over a v2 Cluster's status.pd.
  EXPECT_TRUE(r->config.pd_url_template_explicit);
  EXPECT_EQ(r->config.pd_url_template, "http://{cluster}-pd.{namespace}:2379");
  EXPECT_FALSE(ParseFlags({"--no-v2.enabled"})->config.v2_enabled);
}

TEST(Flags, EqualsAndSpaceSeparatedValues) {
  Result<ParsedConfig> r =
      ParseFlags({"--web.listen-address=127.0.0.1:1234", "--web.telemetry-path", "/m",
                  "--log.level=debug", "--log.format", "json"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_THAT(r->config.listen_addresses, ElementsAre("127.0.0.1:1234"));
  EXPECT_EQ(r->config.telemetry_path, "/m");
  EXPECT_EQ(r->config.log_level, LogLevel::kDebug);
  EXPECT_EQ(r->config.log_format, LogFormat::kJson);
}

// As exporter-toolkit's: --web.listen-address repeats, and each one is served (the first one
// given replaces the default).
TEST(Flags, ListenAddressRepeats) {
  Result<ParsedConfig> r = ParseFlags({"--web.listen-address=:9877", "--web.listen-address",
                                       "[::1]:9878", "--web.listen-address=:9877"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_THAT(r->config.listen_addresses, ElementsAre(":9877", "[::1]:9878"));
  r = ParseFlags({"--web.disable-exporter-metrics", "--web.max-requests=0"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r->config.disable_exporter_metrics);
  EXPECT_EQ(r->config.web_max_requests, 0);
  EXPECT_FALSE(ParseFlags({"--web.max-requests=-1"}).ok());
}

TEST(Flags, GoDurations) {
  Result<ParsedConfig> r =
      ParseFlags({"--autoscaler.decision-grace=90s", "--autoscaler.provision-timeout=1h30m",
                  "--pd.timeout=250ms"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.autoscaler_decision_grace, 90 * kSecond);
  EXPECT_EQ(r->config.autoscaler_provision_timeout, 90 * kMinute);
  EXPECT_EQ(r->config.pd_timeout, 250);
}

// --pd.via and --pd.idle-interval: auto and one minute by default.
TEST(Flags, PdViaAndIdleInterval) {
  Result<ParsedConfig> r = ParseFlags({});
  EXPECT_EQ(r->config.pd_via, PdVia::kAuto);
  EXPECT_EQ(r->config.pd_idle_interval, kMinute);
  r = ParseFlags({"--pd.via=apiserver", "--pd.idle-interval=5m"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.pd_via, PdVia::kApiServer);
  EXPECT_EQ(r->config.pd_idle_interval, 5 * kMinute);
  EXPECT_EQ(ParseFlags({"--pd.via=direct"})->config.pd_via, PdVia::kDirect);
}

// --pd.bootstrap-grace: minutes, never under 3 (PD members wait for peers that may wait for
// nodes).
TEST(Flags, PdBootstrapGrace) {
  EXPECT_EQ(ParseFlags({})->config.pd_bootstrap_grace, 5 * kMinute);
  Result<ParsedConfig> r = ParseFlags({"--pd.bootstrap-grace=3m"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.pd_bootstrap_grace, 3 * kMinute);
  r = ParseFlags({"--pd.bootstrap-grace=2m59s"});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.error, HasSubstr("at least 3m"));
}

// The graces of tidb-operator v2's planned waits (classify/README.md, "Planned waits").
TEST(Flags, PlannedWaitGraces) {
  const Config defaults = ParseFlags({})->config;
  EXPECT_EQ(defaults.mode_switch_grace, 30 * kMinute);
  EXPECT_EQ(defaults.leader_eviction_grace, 15 * kMinute);
  EXPECT_EQ(defaults.store_offline_grace, 120 * kMinute);
  Result<ParsedConfig> r =
      ParseFlags({"--v2.mode-switch-grace=1h", "--v2.leader-eviction-grace=20m",
                  "--v2.store-offline-grace=6h"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.mode_switch_grace, 60 * kMinute);
  EXPECT_EQ(r->config.leader_eviction_grace, 20 * kMinute);
  EXPECT_EQ(r->config.store_offline_grace, 360 * kMinute);
  r = ParseFlags({"--v2.leader-eviction-grace=0s"});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.error, HasSubstr("--v2.leader-eviction-grace expects a duration above 0"));
}

TEST(Flags, EventsAreWrittenOnlyWhenAskedFor) {
  EXPECT_FALSE(ParseFlags({})->config.events_write);
  EXPECT_TRUE(ParseFlags({"--events.write"})->config.events_write);
  EXPECT_FALSE(ParseFlags({"--events.write=false"})->config.events_write);
}

TEST(Flags, BooleansInAllSpellings) {
  EXPECT_FALSE(ParseFlags({"--no-metrics.pod-series"})->config.metrics_pod_series);
  EXPECT_FALSE(ParseFlags({"--metrics.pod-series=false"})->config.metrics_pod_series);
  EXPECT_TRUE(
      ParseFlags({"--kube.insecure-skip-tls-verify"})->config.kube_insecure_skip_tls_verify);
}

TEST(Flags, KubeconfigAndContext) {
  Result<ParsedConfig> r =
      ParseFlags({"--kubeconfig", "/home/sre/.kube/config", "--kube.context=prod"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.kubeconfig, "/home/sre/.kube/config");
  EXPECT_EQ(r->config.kube_context, "prod");
  EXPECT_EQ(ParseFlags({})->config.kubeconfig, "");
  EXPECT_THAT(FlagUsage(), HasSubstr("--kubeconfig=VALUE"));
  EXPECT_THAT(FlagUsage(), HasSubstr("--kube.context=VALUE"));
}

TEST(Flags, ListsAndDependencyMap) {
  Result<ParsedConfig> r =
      ParseFlags({"--namespaces=a, b,c", "--dependency.map=tikv=pd,tidb=pd+tikv"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_THAT(r->config.namespaces, ElementsAre("a", "b", "c"));
  ASSERT_EQ(r->config.dependency_map.size(), 2u);
  EXPECT_THAT(r->config.dependency_map["tidb"], ElementsAre(Dependency::kPd, Dependency::kTikv));
}

TEST(Flags, HelpAndVersion) {
  EXPECT_EQ(ParseFlags({"--help"})->action, FlagAction::kHelp);
  EXPECT_EQ(ParseFlags({"-h"})->action, FlagAction::kHelp);
  EXPECT_EQ(ParseFlags({"--version"})->action, FlagAction::kVersion);
  EXPECT_THAT(FlagUsage(), HasSubstr("--web.listen-address"));
  EXPECT_THAT(FlagUsage(), HasSubstr("(default: \":9877\")"));
}

// --help in groups, in the table's order, and no default where there is none.
TEST(Flags, HelpIsGroupedWithoutEmptyDefaults) {
  const std::string usage = FlagUsage();
  EXPECT_THAT(usage, Not(HasSubstr("(default: \"\")")));
  EXPECT_THAT(usage, Not(HasSubstr("(default: \"false\")")));
  EXPECT_THAT(usage, HasSubstr("--metrics.pod-series\n          Publish one "
                               "podwait_pod_waiting_seconds series per pod. (default: true)"));
  size_t at = 0;
  for (const char* group :
       {"\nWeb:\n", "\nLogging:\n", "\nKubernetes API:\n", "\nWhat to watch:\n", "\nPD:\n",
        "\nClassification:\n", "\nMetrics and Events:\n", "\nSharding:\n"}) {
    const size_t found = usage.find(group, at);
    ASSERT_NE(found, std::string::npos) << group << " after offset " << at;
    at = found;
  }
  // Every flag is under a heading (the Kubernetes API rows together).
  const size_t kube = usage.find("\nKubernetes API:\n");
  const size_t watch = usage.find("\nWhat to watch:\n");
  for (const char* flag :
       {"--kube.api-url", "--kube.page-size", "--kube.api-qps", "--kube.watch-timeout"}) {
    const size_t f = usage.find(flag);
    EXPECT_TRUE(f > kube && f < watch) << flag;
  }
}

struct BadFlag {
  std::vector<std::string> args;
  std::string message;
};

class FlagErrors : public ::testing::TestWithParam<BadFlag> {};

TEST_P(FlagErrors, AreClear) {
  Result<ParsedConfig> r = ParseFlags(GetParam().args);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.error, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, FlagErrors,
    ::testing::Values(BadFlag{{"--nope"}, "unknown flag --nope"},
                      BadFlag{{"-x"}, "unknown short flag -x"},
                      BadFlag{{"--log.level=loud"}, "flag --log.level: expects one of"},
                      BadFlag{{"--log.format=xml"}, "expects logfmt or json"},
                      BadFlag{{"--pd.timeout=3"}, "expects a duration"},
                      BadFlag{{"--pd.concurrency=0"}, "expects an integer >= 1"},
                      BadFlag{{"--pd.concurrency=ten"}, "expects an integer"},
                      BadFlag{{"--pd.via=proxy"}, "expects auto, direct or apiserver"},
                      BadFlag{{"--metrics.pod-series=maybe"}, "expects true or false"},
                      BadFlag{{"--autoscaler=gke"}, "expects auto, cluster-autoscaler"},
                      BadFlag{{"--dependency.map=tidb=pd+etcd"}, "unknown dependency \"etcd\""},
                      BadFlag{{"--dependency.map=tidb"}, "expects component=dep"},
                      BadFlag{{"--web.listen-address"}, "needs a value"},
                      BadFlag{{"--shard=2", "--total-shards=2"}, "--shard must be below"},
                      BadFlag{{"--web.telemetry-path=metrics"}, "must start with /"},
                      BadFlag{{"--web.external-url=podwait.example.com/x"}, "absolute http"},
                      BadFlag{{"--web.external-url=ftp://h/"}, "absolute http"},
                      BadFlag{{"--web.external-url=https:///x"}, "no host"},
                      BadFlag{{"--web.external-url=https://h/x?a=b"}, "no query"}));

// As Prometheus: the route prefix defaults to the external URL's path; trailing slashes go.
TEST(Flags, RoutePrefixDefaultsToTheExternalUrlsPath) {
  Result<ParsedConfig> r = ParseFlags({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->config.external_url, "");
  EXPECT_EQ(r->config.route_prefix, "");
  r = ParseFlags({"--web.external-url=https://ops.example.com/podwait/"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.external_url, "https://ops.example.com/podwait");
  EXPECT_EQ(r->config.route_prefix, "/podwait");
  r = ParseFlags({"--web.external-url=https://ops.example.com/podwait", "--web.route-prefix=/"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.route_prefix, "");
  r = ParseFlags({"--web.external-url=http://127.0.0.1:9877", "--web.route-prefix=x/y/"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->config.route_prefix, "/x/y");
  EXPECT_EQ(ParseFlags({"--web.external-url=https://h:8443"})->config.route_prefix, "");
}

// --namespaces went into URL paths unchecked ("x/../../y").
TEST(ParseFlags, NamespacesMustBeDns1123Labels) {
  for (const char* bad : {"x/../../y", "Tidb", "-a", "a-", "a_b", "a.b", "%2e%2e"}) {
    Result<ParsedConfig> r = ParseFlags({std::string("--namespaces=ok,") + bad});
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.error, HasSubstr("is not a namespace name")) << bad;
  }
  EXPECT_FALSE(ParseFlags({"--namespaces=" + std::string(64, 'a')}).ok());
  Result<ParsedConfig> ok = ParseFlags({"--namespaces=tidb-prod,a,0x," + std::string(63, 'a')});
  EXPECT_TRUE(ok.ok()) << ok.error;
}

}  // namespace
}  // namespace podwait
