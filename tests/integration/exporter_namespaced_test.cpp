// The namespaced install watching many namespaces, from the user's seat: the exporter process
// against the simulator whose account may read only the watched namespaces (its Roles, no
// ClusterRole: every cluster-wide request is 403). The exporter asks first (a
// SelfSubjectAccessReview), watches per namespace, never requests what discovery says is not
// served, and becomes ready; with a ClusterRole the same flags give one watch over all namespaces.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

constexpr int kNamespaces = 12;  // more than --namespaces.cluster-wide-above (8)

std::string Namespaces() {
  std::string out;
  for (int i = 0; i < kNamespaces; ++i) {
    char ns[16];
    std::snprintf(ns, sizeof(ns), "load-%04d", i);
    out += (i ? "," : "") + std::string(ns);
  }
  return out;
}

bool Ready(SimAndExporter& stack) {
  return HttpGet(stack.exporter_port(), "/readyz").status == 200;
}

TEST(ExporterNamespaced, WithoutAClusterRoleEachNamespaceIsWatchedAndTheExporterIsReady) {
  SimAndExporter stack(
      "tests/scenarios/empty.json", {"--namespaces=" + Namespaces(), "--volumes.enabled=false"},
      true,
      {"--generate-clusters", std::to_string(kNamespaces), "--pods-per-cluster", "3",
       // kube-system: the base's Role for the cluster-autoscaler status
       "--rbac-namespaces=" + Namespaces() + ",kube-system"});
  ASSERT_TRUE(WaitFor([&] { return Ready(stack); }, 60s)) << stack.exporter().ReadLog();
  const std::string log = stack.exporter().ReadLog();
  EXPECT_THAT(log, HasSubstr("watching per namespace: the account may not list and watch"));
  EXPECT_THAT(log, Not(HasSubstr("watching over all namespaces")));
  // Not served (no CRD): learned from discovery, never asked for in any namespace.
  EXPECT_THAT(log, HasSubstr("not served by the API server (discovery)"));
  EXPECT_THAT(log, Not(HasSubstr("is forbidden")));
  const std::string metrics = stack.Scrape();
  double pods = 0;
  for (const Sample& s : FindSamples(metrics, "podwait_objects", {{"resource", "pods"}})) {
    pods += s.value;
  }
  EXPECT_GT(pods, 0);
}

TEST(ExporterNamespaced, WithAClusterRoleTheSameFlagsWatchOnceOverAllNamespaces) {
  SimAndExporter stack(
      "tests/scenarios/empty.json", {"--namespaces=" + Namespaces(), "--volumes.enabled=false"},
      true, {"--generate-clusters", std::to_string(kNamespaces + 3), "--pods-per-cluster", "3"});
  ASSERT_TRUE(WaitFor([&] { return Ready(stack); }, 60s)) << stack.exporter().ReadLog();
  const std::string log = stack.exporter().ReadLog();
  EXPECT_THAT(log, HasSubstr("watching over all namespaces: the account may list and watch"));
  EXPECT_THAT(log, Not(HasSubstr("watching per namespace")));
}

}  // namespace
}  // namespace podwait::testing
