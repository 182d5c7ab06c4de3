// Unit tests of the simulator's pieces: selectors, the store's history, shorthand expansion.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <tuple>
#include <vector>

#include "exporter/common/clock.h"
#include "tests/sim/shorthand.h"
#include "tests/sim/store.h"

namespace podwait::sim {
namespace {

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  return d;
}

KeyValues Labels(std::initializer_list<std::pair<const char*, const char*>> kv) {
  KeyValues out;
  for (const auto& [k, v] : kv) out.emplace_back(InternKey(k), v);
  return out;
}

TEST(SimSelector, LabelOperators) {
  auto l = Labels({{"app", "tikv"}, {"tier", "db"}});
  auto m = [&](const char* text) {
    Result<Selector> s = Selector::ParseLabels(text);
    EXPECT_TRUE(s.ok()) << text << ": " << s.error;
    return s.ok() && MatchesLabels(*s, l);
  };
  EXPECT_TRUE(m("app=tikv"));
  EXPECT_TRUE(m("app==tikv,tier"));
  EXPECT_FALSE(m("app!=tikv"));
  EXPECT_TRUE(m("app!=pd"));
  EXPECT_FALSE(m("!tier"));
  EXPECT_TRUE(m("!missing"));
  EXPECT_TRUE(m("app in (pd, tikv)"));
  EXPECT_FALSE(m("app notin (pd,tikv)"));
  EXPECT_TRUE(m(""));
  EXPECT_FALSE(Selector::ParseLabels("app in pd").ok());
}

TEST(SimStore, HistoryIsBoundedAndCompactionMakesOldVersionsTooOld) {
  FakeClock clock;
  Store store(16, 1, clock);
  std::string err;
  for (int i = 0; i < 20; ++i) {
    auto doc = Parse(R"({"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"a","name":"p)" +
                     std::to_string(i) + R"("}})");
    ASSERT_TRUE(store.Upsert(Resource::kPods, std::move(doc), &err)) << err;
  }
  EXPECT_EQ(store.CurrentRv(), 20u);
  std::vector<HistoryEntry> out;
  EXPECT_FALSE(store.Since(1, 100, &out)) << "rv 2 fell out of a 16-entry history";
  EXPECT_TRUE(store.Since(4, 100, &out));
  ASSERT_EQ(out.size(), 16u);
  EXPECT_EQ(out.front().obj->rv, 5u);
  store.Compact();
  out.clear();
  EXPECT_FALSE(store.Since(19, 100, &out));
  EXPECT_TRUE(store.Since(20, 100, &out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(store.Delete(Resource::kPods, "a", "p3"));
  out.clear();
  ASSERT_TRUE(store.Since(20, 100, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type, EventType::kDeleted);
  EXPECT_EQ(out[0].obj->rv, 21u);
}

TEST(SimStore, ListItemsOfCoreTypesDropKindAndKeepUidOnReplace) {
  FakeClock clock;
  Store store(100, 1, clock);
  std::string err;
  auto first = store.Upsert(
      Resource::kPods,
      Parse(R"({"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"a","name":"p"}})"), &err);
  ASSERT_TRUE(first);
  auto second = store.Upsert(
      Resource::kPods,
      Parse(
          R"({"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"a","name":"p"},"status":{"phase":"Running"}})"),
      &err);
  ASSERT_TRUE(second);
  EXPECT_EQ(first->uid, second->uid);
  EXPECT_EQ(second->FieldValue("status.phase"), "Running");
  std::string item;
  second->AppendListItem(&item);
  auto d = Parse(item);
  ASSERT_FALSE(d.HasParseError()) << item;
  EXPECT_FALSE(d.HasMember("kind"));
  EXPECT_STREQ(d["metadata"]["resourceVersion"].GetString(), "2");
}

TEST(SimShorthand, InitPodLooksLikeKubectlInit0of1) {
  rapidjson::Document out;
  std::string err;
  auto spec = Parse(
      R"({"namespace":"demo","name":"demo-tidb-0","stage":"init","waitForPd":true,"created":"-2m"})");
  ASSERT_TRUE(ExpandPod(spec, 1'700'000'000'000, &out, &err)) << err;
  EXPECT_STREQ(out["metadata"]["labels"]["app.kubernetes.io/instance"].GetString(), "demo");
  EXPECT_STREQ(out["metadata"]["labels"]["app.kubernetes.io/component"].GetString(), "tidb");
  EXPECT_STREQ(out["metadata"]["ownerReferences"][0]["name"].GetString(), "demo-tidb");
  EXPECT_STREQ(out["status"]["phase"].GetString(), "Pending");
  const auto& init = out["status"]["initContainerStatuses"][0];
  EXPECT_STREQ(init["name"].GetString(), "wait-for-pd");
  EXPECT_TRUE(init["state"].HasMember("running"));
  EXPECT_STREQ(out["status"]["containerStatuses"][0]["state"]["waiting"]["reason"].GetString(),
               "PodInitializing");
  bool found = false;
  for (const auto& c : out["status"]["conditions"].GetArray()) {
    if (std::string(c["type"].GetString()) == "Initialized") {
      found = true;
      EXPECT_STREQ(c["status"].GetString(), "False");
      EXPECT_STREQ(c["reason"].GetString(), "ContainersNotInitialized");
      EXPECT_STREQ(c["message"].GetString(), "containers with incomplete status: [wait-for-pd]");
    }
  }
  EXPECT_TRUE(found);
}

TEST(SimShorthand, RelativeTimes) {
  Timestamp t;
  const Timestamp now = 1'700'000'000'000;
  ASSERT_TRUE(ResolveTime("-5m", now, &t));
  EXPECT_EQ(t, now - 300'000);
  ASSERT_TRUE(ResolveTime("${now+30s}", now, &t));
  EXPECT_EQ(t, now + 30'000);
  EXPECT_FALSE(ResolveTime("yesterday", now, &t));
  auto doc = Parse(R"({"a":"${now-1m}","b":["at ${now} ok"]})");
  ExpandTimes(doc, doc.GetAllocator(), now);
  EXPECT_STREQ(doc["a"].GetString(), "2023-11-14T22:12:20Z");
  EXPECT_STREQ(doc["b"][0].GetString(), "at 2023-11-14T22:13:20Z ok");
}

TEST(SimResources, V2RowsFollowTheCrds) {
  auto tikvs = ResourceFromPlural("tikvs");
  ASSERT_TRUE(tikvs.has_value());
  EXPECT_EQ(ResourceFromKind("TiKV"), tikvs);
  EXPECT_STREQ(Info(*tikvs).list_kind, "TiKVList");
  EXPECT_EQ(Info(*tikvs).PathPrefix(), "/apis/core.pingcap.com/v1alpha1");
  EXPECT_FALSE(Info(*tikvs).core);
  EXPECT_EQ(ResourceFromKind("TiFlash"), ResourceFromPlural("tiflashes"));
  EXPECT_EQ(Info(Resource::kPods).PathPrefix(), "/api/v1");
  EXPECT_EQ(ResourcesOf("core.pingcap.com/v1alpha1").size(), size_t{kV2ResourceCount});
  EXPECT_EQ(ResourcesOf("pingcap.com/v1alpha1"),
            (std::vector<Resource>{Resource::kTidbClusters, Resource::kDmClusters}));
  EXPECT_EQ(ResourceFromKind("TiProxy"), ResourceFromPlural("tiproxies"));
  EXPECT_STREQ(Info(*ResourceFromPlural("dmworkergroups")).short_names, "dmwg");
  EXPECT_FALSE(ResourceFromPlural("placementpolicies").has_value()) << "not served";
}

TEST(SimShorthand, V2PodIsOwnedByItsInstance) {
  rapidjson::Document out, cr;
  std::string err;
  auto spec = Parse(R"({"operator":"v2","namespace":"tidb-v2","name":"tikv-tikv-q7w4mz",
    "cluster":"basic","stage":"waiting","reason":"CrashLoopBackOff","legacyLabels":false})");
  ASSERT_TRUE(ExpandPod(spec, 1'700'000'000'000, &out, &err)) << err;
  const auto& labels = out["metadata"]["labels"];
  EXPECT_STREQ(labels["pingcap.com/cluster"].GetString(), "basic");
  EXPECT_STREQ(labels["pingcap.com/component"].GetString(), "tikv");
  EXPECT_STREQ(labels["pingcap.com/group"].GetString(), "tikv");
  EXPECT_STREQ(labels["pingcap.com/instance"].GetString(), "tikv-q7w4mz");
  EXPECT_FALSE(labels.HasMember("app.kubernetes.io/instance"));
  EXPECT_FALSE(labels.HasMember("statefulset.kubernetes.io/pod-name"));
  EXPECT_FALSE(out["metadata"].HasMember("generateName"));
  const auto& owner = out["metadata"]["ownerReferences"][0];
  EXPECT_STREQ(owner["kind"].GetString(), "TiKV");
  EXPECT_STREQ(owner["apiVersion"].GetString(), "core.pingcap.com/v1alpha1");
  EXPECT_STREQ(owner["name"].GetString(), "tikv-q7w4mz");
  EXPECT_STREQ(out["spec"]["subdomain"].GetString(), "tikv-tikv-peer");
  EXPECT_STREQ(out["status"]["containerStatuses"][0]["state"]["waiting"]["reason"].GetString(),
               "CrashLoopBackOff");

  auto tikv = Parse(R"({"kind":"TiKV","namespace":"tidb-v2","name":"tikv-q7w4mz","cluster":"basic",
    "reason":"InstanceNotHealthy","storeId":"4","storeState":"Preparing"})");
  ASSERT_TRUE(ExpandV2(tikv, 1'700'000'000'000, &cr, &err)) << err;
  EXPECT_STREQ(cr["metadata"]["uid"].GetString(), owner["uid"].GetString());
  EXPECT_STREQ(cr["metadata"]["ownerReferences"][0]["kind"].GetString(), "TiKVGroup");
  EXPECT_STREQ(cr["status"]["conditions"][0]["reason"].GetString(), "InstanceNotHealthy");
  EXPECT_STREQ(cr["status"]["state"].GetString(), "Preparing");

  EXPECT_FALSE(ExpandPod(Parse(R"({"operator":"v2","namespace":"n","name":"tikv-tikv-a"})"),
                         1'700'000'000'000, &out, &err))
      << "a v2 pod needs its cluster";
  EXPECT_FALSE(
      ExpandV2(Parse(R"({"kind":"PlacementPolicy","namespace":"n","name":"a","cluster":"c"})"),
               1'700'000'000'000, &cr, &err));
}

// A component with a '-' (tikv-worker, resource-manager, dm-master, dm-worker): the pod
// <group>-<component>-<suffix> still finds its group, instance and owner kind.
TEST(SimShorthand, V2PodOfAComponentWithADash) {
  rapidjson::Document out;
  std::string err;
  for (const auto& [name, component, group, kind] :
       std::vector<std::tuple<const char*, const char*, const char*, const char*>>{
           {"tikvworker-tikv-worker-h2n6pt", "tikv-worker", "tikvworker", "TiKVWorker"},
           {"rm-resource-manager-b7r2kw", "resource-manager", "rm", "ResourceManager"},
           {"dm-dm-master-q3z7lp", "dm-master", "dm", "DM"},
           {"dmworker-dm-worker-t9c4fs", "dm-worker", "dmworker", "DMWorker"},
           {"tiproxy-tiproxy-k4d9xq", "tiproxy", "tiproxy", "TiProxy"},
       }) {
    SCOPED_TRACE(name);
    auto spec = Parse(std::string(R"({"operator":"v2","namespace":"n","cluster":"c","name":")") +
                      name + R"("})");
    ASSERT_TRUE(ExpandPod(spec, 1'700'000'000'000, &out, &err)) << err;
    const auto& labels = out["metadata"]["labels"];
    EXPECT_STREQ(labels["pingcap.com/component"].GetString(), component);
    EXPECT_STREQ(labels["pingcap.com/group"].GetString(), group);
    const std::string pod = name;
    EXPECT_EQ(std::string(labels["pingcap.com/instance"].GetString()),
              std::string(group) + pod.substr(pod.rfind('-')));
    EXPECT_STREQ(out["metadata"]["ownerReferences"][0]["kind"].GetString(), kind);
  }
}

}  // namespace
}  // namespace podwait::sim
