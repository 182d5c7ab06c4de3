// The volume watch (exporter/sources/volumes.h, exporter/state/volume_store.h): PersistentVolumes
// pinned to one node or not, claims bound or not, and what the store tells the classifier of a
// pod's volumes. Documents: tests/fixtures/made-up/volumes (SOURCES.txt names what each follows).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/json.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/volumes.h"
#include "tests/support/process.h"

namespace podwait {
namespace {

rapidjson::Document Fixture(const std::string& file) {
  auto doc =
      json::Parse(testing::ReadFile(testing::SourcePath("tests/fixtures/made-up/volumes/" + file)));
  EXPECT_TRUE(doc.ok()) << file;
  return std::move(*doc.value);
}

rapidjson::Document Json(const std::string& text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.ok()) << text;
  return std::move(*doc.value);
}

TEST(ParseVolume, ALocalVolumeIsPinnedToItsNode) {
  std::optional<VolumeRecord> v = ParseVolume(Fixture("pv-local.json"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->name, "local-pv-3f1a2b");
  EXPECT_EQ(v->pinned_node, "ip-10-0-3-17.ec2.internal");
  EXPECT_EQ(v->claim_namespace, "tidb");
  EXPECT_EQ(v->claim_name, "tikv-demo-tikv-0");
}

TEST(ParseVolume, AZonalVolumeIsNotPinned) {
  std::optional<VolumeRecord> v = ParseVolume(Fixture("pv-zonal-csi.json"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->pinned_node, "");
  EXPECT_EQ(v->claim_name, "tikv-demo-tikv-1");
}

TEST(ParseVolume, PinnedOnlyWhenEveryTermAllowsTheSameSingleNode) {
  auto pinned = [](const std::string& terms) {
    auto v = ParseVolume(Json(R"({"metadata":{"name":"pv"},"spec":{"nodeAffinity":{"required":)"
                              R"({"nodeSelectorTerms":)" +
                              terms + "}}}}"));
    EXPECT_TRUE(v);
    return v ? v->pinned_node : "?";
  };
  const std::string host_a =
      R"({"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["a"]}]})";
  const std::string host_b =
      R"({"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["b"]}]})";
  const std::string zone =
      R"({"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["z"]}]})";
  EXPECT_EQ(pinned("[" + host_a + "]"), "a");
  EXPECT_EQ(pinned("[" + host_a + "," + host_a + "]"), "a");
  EXPECT_EQ(pinned("[" + host_a + "," + host_b + "]"), "");  // either of two nodes
  EXPECT_EQ(pinned("[" + host_a + "," + zone + "]"), "");    // or any node of a zone
  EXPECT_EQ(pinned("[" + zone + "]"), "");
  EXPECT_EQ(pinned("[]"), "");
  EXPECT_EQ(
      pinned(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}])"),
      "n1");
  EXPECT_EQ(pinned(R"([{"matchExpressions":[{"key":"kubernetes.io/hostname",)"
                   R"("operator":"NotIn","values":["a"]}]}])"),
            "");
  // Malformed pieces are not pinning.
  EXPECT_EQ(pinned(R"([{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In"}]}])"),
            "");
  EXPECT_FALSE(ParseVolume(Json(R"({"metadata":{}})")));
  EXPECT_FALSE(ParseVolume(Json("[]")));
}

TEST(ParseClaim, BoundClaimsNameTheirVolume) {
  rapidjson::Document list = Fixture("pvc-bound.json");
  std::vector<ClaimRecord> claims;
  for (const auto& item : list["items"].GetArray()) {
    auto c = ParseClaim(item);
    ASSERT_TRUE(c);
    claims.push_back(*c);
  }
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_EQ(claims[0].namespace_, "tidb");
  EXPECT_EQ(claims[0].volume, "local-pv-3f1a2b");
  EXPECT_EQ(claims[1].volume, "pvc-5b0c7f2e-8a1d-4e3f-b6a9-1d2c3e4f5a6b");
  EXPECT_EQ(claims[2].volume, "");  // Pending
  EXPECT_FALSE(ParseClaim(Json(R"({"metadata":{"name":"x"}})")));
}

// A store filled from the fixtures through the sources, as the reflectors fill it.
class VolumeStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClaimSource claims(store_, "tidb");
    claims.OnListBegin();
    rapidjson::Document list = Fixture("pvc-bound.json");
    for (const auto& item : list["items"].GetArray()) ASSERT_TRUE(claims.OnListItem(item));
    claims.OnListEnd("1");
    VolumeSource volumes(store_);
    volumes.OnListBegin();
    ASSERT_TRUE(volumes.OnListItem(Fixture("pv-local.json")));
    ASSERT_TRUE(volumes.OnListItem(Fixture("pv-zonal-csi.json")));
    volumes.OnListEnd("1");
  }
  static PodRecord Pod(std::vector<std::string> claims) {
    PodRecord p;
    p.namespace_ = "tidb";
    p.name = "demo-tikv-x";
    p.mutable_detail().claims = std::move(claims);
    return p;
  }
  VolumeStore store_;
};

TEST_F(VolumeStoreTest, FactsOfAPodsClaims) {
  PodVolumeFacts local = store_.FactsFor(Pod({"tikv-demo-tikv-0"}));
  EXPECT_EQ(local.pinning, VolumePinning::kNode);
  EXPECT_EQ(local.volume, "local-pv-3f1a2b");
  EXPECT_EQ(local.node, "ip-10-0-3-17.ec2.internal");
  EXPECT_EQ(store_.FactsFor(Pod({"tikv-demo-tikv-1"})).pinning, VolumePinning::kNotNode);
  EXPECT_EQ(store_.FactsFor(Pod({})).pinning, VolumePinning::kNotNode);
  // Not bound yet, or not known: unknown — unless another claim is pinned.
  EXPECT_EQ(store_.FactsFor(Pod({"tikv-demo-tikv-2"})).pinning, VolumePinning::kUnknown);
  EXPECT_EQ(store_.FactsFor(Pod({"nope"})).pinning, VolumePinning::kUnknown);
  EXPECT_EQ(store_.FactsFor(Pod({"tikv-demo-tikv-1", "nope"})).pinning, VolumePinning::kUnknown);
  EXPECT_EQ(store_.FactsFor(Pod({"nope", "tikv-demo-tikv-0"})).pinning, VolumePinning::kNode);
  EXPECT_EQ(store_.ClaimCount(), 3u);
  EXPECT_EQ(store_.VolumeCount(), 2u);
}

TEST_F(VolumeStoreTest, ChangesAreRememberedByNamespace) {
  uint64_t v = 0;
  EXPECT_THAT(store_.ChangedNamespacesSince(0, &v), ::testing::ElementsAre("tidb"));
  EXPECT_THAT(store_.ChangedNamespacesSince(v, &v), ::testing::IsEmpty());
  // A volume's change reaches the namespace of its claim.
  VolumeRecord gone;
  gone.name = "local-pv-3f1a2b";
  gone.claim_namespace = "tidb";
  store_.RemoveVolume(gone.name);
  EXPECT_THAT(store_.ChangedNamespacesSince(v, &v), ::testing::ElementsAre("tidb"));
  EXPECT_EQ(store_.FactsFor(Pod({"tikv-demo-tikv-0"})).pinning, VolumePinning::kUnknown);
  store_.UpsertClaim(ClaimRecord{"other", "c", ""});
  EXPECT_THAT(store_.ChangedNamespacesSince(v, &v), ::testing::ElementsAre("other"));
  // A relist of one namespace keeps the others.
  store_.ReplaceClaims("other", {});
  EXPECT_EQ(store_.ClaimCount(), 3u);
  store_.RemoveClaim("tidb", "tikv-demo-tikv-1");
  EXPECT_EQ(store_.FactsFor(Pod({"tikv-demo-tikv-1"})).pinning, VolumePinning::kUnknown);
}

TEST(ParsePodClaims, PersistentAndEphemeralClaimsOfSpecVolumes) {
  rapidjson::Document pod = Json(R"({
    "metadata": {"uid": "u", "name": "demo-tikv-0", "namespace": "tidb",
                 "creationTimestamp": "2024-05-02T10:00:00Z"},
    "spec": {"volumes": [
      {"name": "tikv", "persistentVolumeClaim": {"claimName": "tikv-demo-tikv-0"}},
      {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
      {"name": "config", "configMap": {"name": "demo-tikv"}},
      {"name": "bad", "persistentVolumeClaim": {}}]},
    "status": {"phase": "Pending"}})");
  Result<PodRecord> r = ParsePod(pod, PodParseOptions{});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_THAT(r->detail().claims,
              ::testing::ElementsAre("tikv-demo-tikv-0", "demo-tikv-0-scratch"));
}

}  // namespace
}  // namespace podwait
