// The PD targets (docs/DESIGN.md §3): an explicit --pd.url-template wins, else a tidb-operator v2
// Cluster's status.pd, else the template's default; the cluster's TLS directory applies to each.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "exporter/app/options.h"
#include "exporter/config/flags.h"

namespace podwait {
namespace {

TEST(PdTargetsFor, StatusPdUnlessTheTemplateIsExplicit) {
  const ClusterKey v1{"tidb", "basic"};
  const ClusterKey v2{"tidb-v2", "basic"};
  // status.pd as tests/fixtures/v2/objects/cluster-ready.json writes it, and an https one.
  const std::map<ClusterKey, std::string> urls = {{v2, "https://pd-pd.tidb-v2:2379/"}};
  char tmpl[] = "/tmp/podwait-pdtls-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::filesystem::create_directories(dir + "/tidb-v2/basic");
  std::ofstream(dir + "/tidb-v2/basic/ca.crt") << "x";
  Result<ParsedConfig> r = ParseFlags({"--pd.tls.dir=" + dir});
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<PdTarget> t = PdTargetsFor({v1, v2}, r->config, urls);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].base_url, "http://basic-pd.tidb:2379");
  EXPECT_EQ(t[1].base_url, "https://pd-pd.tidb-v2:2379");
  EXPECT_EQ(t[1].tls.ca_file, dir + "/tidb-v2/basic/ca.crt");
  EXPECT_EQ(t[0].tls.ca_file, "");

  r = ParseFlags({"--pd.url-template=http://{cluster}-pd.{namespace}.svc:2379"});
  ASSERT_TRUE(r.ok()) << r.error;
  t = PdTargetsFor({v1, v2}, r->config, urls);
  EXPECT_EQ(t[1].base_url, "http://basic-pd.tidb-v2.svc:2379");
  std::filesystem::remove_all(dir);
}

// A v1 cluster whose PD is not its own (its TidbCluster's spec, model/tidbcluster_status.h): a
// heterogeneous cluster is probed at the referenced cluster's PD, one across Kubernetes at the
// first of spec.pdAddresses (scheme and port added as tidb-operator's start script does), and one
// with nowhere to ask is not probed at all.
TEST(PdTargetsFor, APdThatIsNotTheClustersOwn) {
  const ClusterKey own{"tidb", "basic"};
  const ClusterKey hetero{"tidb", "basic-heterogeneous"};
  const ClusterKey across{"tidb", "edge"};
  const ClusterKey bare{"tidb", "bare"};
  const ClusterKey nowhere{"tidb", "nowhere"};
  std::map<ClusterKey, PdSource> sources;
  sources[hetero].kind = PdSourceKind::kReferenced;
  sources[hetero].referenced = {"tidb-base", "basic"};
  sources[across].kind = PdSourceKind::kExternal;
  sources[across].addresses = {"https://cluster1-pd.pingcap.svc.cluster1.com:2379/", "b:2379"};
  sources[bare].kind = PdSourceKind::kExternal;
  sources[bare].addresses = {"cluster1-pd.pingcap.svc.cluster1.com"};
  sources[nowhere].kind = PdSourceKind::kExternal;  // acrossK8s, no spec.pdAddresses
  Result<ParsedConfig> r = ParseFlags({});
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<PdTarget> t =
      PdTargetsFor({own, hetero, across, bare, nowhere}, r->config, {}, sources);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].base_url, "http://basic-pd.tidb:2379");
  EXPECT_EQ(t[1].cluster, hetero);
  EXPECT_EQ(t[1].base_url, "http://basic-pd.tidb-base:2379");
  EXPECT_EQ(t[2].base_url, "https://cluster1-pd.pingcap.svc.cluster1.com:2379");
  EXPECT_EQ(t[3].base_url, "http://cluster1-pd.pingcap.svc.cluster1.com:2379");
}

}  // namespace
}  // namespace podwait
