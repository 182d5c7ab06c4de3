// The exporter's flags mapped onto reflector options.

#include <gtest/gtest.h>

#include "exporter/sources/reflector_options.h"

namespace podwait {
namespace {

TEST(ReflectorOptions, FromConfig) {
  Config config;
  config.kube_page_size = 250;
  config.kube_watch_timeout = 2 * kMinute;
  ReflectorOptions o = ReflectorOptionsFromConfig(config, "pods", "/api/v1/pods");
  EXPECT_EQ(o.page_size, 250);
  EXPECT_EQ(o.watch_timeout, 2 * kMinute);
  EXPECT_EQ(o.path, "/api/v1/pods");
}

TEST(ReflectorOptions, PerNamespace) {
  Config config;
  config.kube_page_size = 100;
  std::vector<ReflectorOptions> all = ReflectorOptionsPerNamespace(config, "pods", "/api/v1");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].path, "/api/v1/pods");
  EXPECT_EQ(all[0].name, "pods");
  EXPECT_EQ(ReflectorNamespace(all[0]), "");
  config.namespaces = {"a", "b"};
  std::vector<ReflectorOptions> each = ReflectorOptionsPerNamespace(config, "pods", "/api/v1");
  ASSERT_EQ(each.size(), 2u);
  EXPECT_EQ(each[1].path, "/api/v1/namespaces/b/pods");
  EXPECT_EQ(each[1].name, "pods/b");
  EXPECT_EQ(each[1].page_size, 100);
  EXPECT_EQ(ReflectorNamespace(each[1]), "b");
}

// Beyond --namespaces.cluster-wide-above namespaces, one reflector over all namespaces that keeps
// the watched ones; up to it (and with 0) one per namespace.
TEST(ReflectorOptions, ClusterWideAboveAFewNamespaces) {
  Config config;
  config.namespaces = {"c", "a", "b"};
  config.namespaces_cluster_wide_above = 3;
  EXPECT_EQ(ReflectorOptionsPerNamespace(config, "pods", "/api/v1").size(), 3u);
  config.namespaces_cluster_wide_above = 2;
  std::vector<ReflectorOptions> one = ReflectorOptionsPerNamespace(config, "pods", "/api/v1");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].path, "/api/v1/pods");
  EXPECT_EQ(one[0].name, "pods");
  EXPECT_EQ(ReflectorNamespace(one[0]), "");
  EXPECT_EQ(one[0].only_namespaces, (std::vector<std::string>{"a", "b", "c"}));
  config.namespaces_cluster_wide_above = 0;
  std::vector<ReflectorOptions> each = ReflectorOptionsPerNamespace(config, "pods", "/api/v1");
  ASSERT_EQ(each.size(), 3u);
  EXPECT_TRUE(each[0].only_namespaces.empty());
}

// The cluster-wide watch only for a resource the account may list and watch everywhere (the
// exporter asks with a SelfSubjectAccessReview): a namespaced install keeps one per namespace.
TEST(ReflectorOptions, ClusterWideOnlyWhereTheAccountMayWatchEverywhere) {
  Config config;
  config.namespaces = {"c", "a", "b"};
  config.namespaces_cluster_wide_above = 2;
  std::vector<std::pair<std::string, std::string>> asked;
  config.may_watch_cluster_wide = [&](std::string_view api_prefix, const std::string& resource) {
    asked.emplace_back(std::string(api_prefix), resource);
    return resource == "pods";
  };
  EXPECT_EQ(ReflectorOptionsPerNamespace(config, "pods", "/api/v1").size(), 1u);
  EXPECT_EQ(ReflectorOptionsPerNamespace(config, "pds", "/apis/core.pingcap.com/v1alpha1").size(),
            3u);
  EXPECT_EQ(asked, (std::vector<std::pair<std::string, std::string>>{
                       {"/api/v1", "pods"}, {"/apis/core.pingcap.com/v1alpha1", "pds"}}));
  // Up to the threshold nothing is asked.
  config.namespaces_cluster_wide_above = 3;
  EXPECT_EQ(ReflectorOptionsPerNamespace(config, "pods", "/api/v1").size(), 3u);
  EXPECT_EQ(asked.size(), 2u);
}

}  // namespace
}  // namespace podwait
