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

}  // namespace
}  // namespace podwait
