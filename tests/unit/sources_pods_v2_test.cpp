// ParsePod on tidb-operator v2 pods (tests/fixtures/v2/pods/, made up in the shape the v2 source
// writes them; see tests/fixtures/v2/README.md): cluster and component come from the pingcap.com/*
// labels when the deprecated app.kubernetes.io/* copies are absent, and a pod with both sets is
// one pod with the same cluster.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "exporter/common/file.h"
#include "exporter/config/flags.h"
#include "exporter/model/v2.h"
#include "exporter/sources/pods.h"

namespace podwait {
namespace {

constexpr const char* kPods[] = {
    "pd-running-not-ready-no-leader.json", "tikv-crashloop-no-pd-leader.json",
    "tidb-crashloop-no-pd-leader.json",    "tidb-running-not-ready.json",
    "tikv-ready-instance-not-ready.json",
};

rapidjson::Document LoadPod(const std::string& file) {
  const std::string path = std::string(PODWAIT_SOURCE_DIR) + "/tests/fixtures/v2/pods/" + file;
  Result<std::string> read = ReadWholeFile(path);
  EXPECT_TRUE(read.ok()) << path << ": " << read.error;
  const std::string text = read.value.value_or("");
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << file;
  return doc;
}

std::string Label(const rapidjson::Document& doc, const char* key) {
  const auto& labels = doc["metadata"]["labels"];
  auto it = labels.FindMember(key);
  return it == labels.MemberEnd() ? "" : it->value.GetString();
}

// Removes every app.kubernetes.io/* label: a v2 pod once the deprecated copies are gone.
void DropLegacyLabels(rapidjson::Document& doc) {
  auto& labels = doc["metadata"]["labels"];
  for (const char* key : {"app.kubernetes.io/component", "app.kubernetes.io/instance",
                          "app.kubernetes.io/managed-by", "app.kubernetes.io/name"}) {
    labels.RemoveMember(key);
  }
}

TEST(ParsePodV2, BothLabelSetsNameTheSameClusterAndComponent) {
  for (const char* file : kPods) {
    rapidjson::Document doc = LoadPod(file);
    ASSERT_FALSE(Label(doc, "app.kubernetes.io/instance").empty()) << file;
    Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
    ASSERT_TRUE(r.ok()) << file << ": " << r.error;
    EXPECT_EQ(r->cluster, "basic") << file;
    EXPECT_EQ(r->component, Label(doc, "pingcap.com/component")) << file;
    EXPECT_TRUE(r->v2_instance) << file;
    EXPECT_EQ(ClusterKey({r->namespace_, r->cluster}).TidbClusterLabel(), "tidb-v2-basic");
  }
}

TEST(ParsePodV2, PingcapLabelsAloneAreEnough) {
  for (const char* file : kPods) {
    rapidjson::Document doc = LoadPod(file);
    DropLegacyLabels(doc);
    ASSERT_TRUE(Label(doc, "app.kubernetes.io/component").empty());
    Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
    ASSERT_TRUE(r.ok()) << file << ": " << r.error;
    EXPECT_EQ(r->cluster, "basic") << file;
    EXPECT_EQ(r->component, Label(doc, "pingcap.com/component")) << file;
    EXPECT_FALSE(r->component.empty()) << file;
    // The instance the pod belongs to follows from its name and component.
    EXPECT_EQ(v2::InstanceNameOfPod(r->name, r->component), Label(doc, "pingcap.com/instance"))
        << file;
  }
}

TEST(ParsePodV2, TheV1LabelWinsWhenBothArePresent) {
  rapidjson::Document doc = LoadPod("tikv-crashloop-no-pd-leader.json");
  auto& a = doc.GetAllocator();
  doc["metadata"]["labels"]["app.kubernetes.io/instance"].SetString("legacy-name", a);
  Result<PodRecord> r = ParsePod(doc, PodParseOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cluster, "legacy-name");
  // An empty v1 label reads as absent.
  doc["metadata"]["labels"]["app.kubernetes.io/instance"].SetString("", a);
  EXPECT_EQ(ParsePod(doc, PodParseOptions{})->cluster, "basic");
}

TEST(ParsePodV2, FallbackKeysComeFromTheFlagsAndCanBeTurnedOff) {
  rapidjson::Document doc = LoadPod("tidb-running-not-ready.json");
  DropLegacyLabels(doc);
  Result<ParsedConfig> off =
      ParseFlags({"--label.v2-cluster=", "--label.v2-component=", "--label.v2-instance="});
  ASSERT_TRUE(off.ok()) << off.error;
  Result<PodRecord> r = ParsePod(doc, PodParseOptions::FromConfig(off->config));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cluster, "");
  EXPECT_EQ(r->component, "");
  EXPECT_FALSE(r->v2_instance);

  Result<ParsedConfig> other = ParseFlags(
      {"--label.v2-cluster=pingcap.com/group", "--label.v2-component=pingcap.com/managed-by"});
  ASSERT_TRUE(other.ok()) << other.error;
  r = ParsePod(doc, PodParseOptions::FromConfig(other->config));
  EXPECT_EQ(r->cluster, "tidb");
  EXPECT_EQ(r->component, "tidb-operator");
}

TEST(ParsePodV2, APodWithBothLabelSetsIsOnePod) {
  PodStore store;
  PodSource source(store, PodParseOptions{});
  rapidjson::Document doc = LoadPod("tikv-ready-instance-not-ready.json");
  source.OnListBegin();
  EXPECT_TRUE(source.OnListItem(doc));
  source.OnListEnd("1");
  EXPECT_EQ(store.Size(), 1u);
  // The same pod again, now without the legacy labels (v2 dropped them): still the one pod.
  DropLegacyLabels(doc);
  EXPECT_TRUE(source.OnEvent(WatchEventType::kModified, doc));
  EXPECT_EQ(store.Size(), 1u);
  EXPECT_TRUE(store.Contains("tidb-v2", "tikv-tikv-m3p8zc"));
}

TEST(ParsePodV2, AReadyV2TikvPodIsKeptCompactWithItsInstanceFlag) {
  Result<PodRecord> r = ParsePod(LoadPod("tikv-ready-instance-not-ready.json"), PodParseOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->compact_ready);
  EXPECT_TRUE(r->v2_instance);
  EXPECT_EQ(r->component, "tikv");
}

TEST(InstanceNameOfPod, InvertsPodNameOf) {
  EXPECT_EQ(v2::PodNameOf("tikv-x7k2p", "tikv"), "tikv-tikv-x7k2p");
  EXPECT_EQ(v2::PodNameOf("fast-tikv-x7k2p", "tikv"), "fast-tikv-tikv-x7k2p");
  EXPECT_EQ(v2::InstanceNameOfPod("fast-tikv-tikv-x7k2p", "tikv"), "fast-tikv-x7k2p");
  EXPECT_EQ(v2::InstanceNameOfPod("pd-pd-x8d2kq", "pd"), "pd-x8d2kq");
  EXPECT_EQ(v2::PodNameOf("nodash", "tikv"), "");
  // Not <prefix>-<component>-<suffix>: a v1 StatefulSet pod, another component, no prefix.
  EXPECT_EQ(v2::InstanceNameOfPod("basic-tikv-0", "tidb"), "");
  EXPECT_EQ(v2::InstanceNameOfPod("xtikv-0", "tikv"), "");
  EXPECT_EQ(v2::InstanceNameOfPod("tikv-0", "tikv"), "");
  EXPECT_EQ(v2::InstanceNameOfPod("tikv", "tikv"), "");
  EXPECT_EQ(v2::InstanceNameOfPod("a-tikv-0", ""), "");
}

}  // namespace
}  // namespace podwait
