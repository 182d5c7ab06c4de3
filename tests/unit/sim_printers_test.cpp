// The simulator's server-side printing (meta.k8s.io/v1 Table): kubectl's pod and event columns,
// the CRDs' additionalPrinterColumns, kubectl's age format and the JSONPath subset the columns use.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "exporter/common/time_format.h"
#include "tests/sim/printers.h"
#include "tests/sim/shorthand.h"

namespace podwait::sim {
namespace {

using ::testing::ElementsAre;

constexpr Timestamp kNow = 1'700'000'000'000;

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text.substr(0, 200);
  return d;
}

ObjectPtr Stored(Resource r, rapidjson::Document doc) {
  std::string error;
  ObjectPtr o = BuildObject(r, doc, 7, &error);
  EXPECT_TRUE(o) << error;
  return o;
}

ObjectPtr Pod(const std::string& spec_json) {
  rapidjson::Document spec = ParseJson(spec_json);
  rapidjson::Document pod;
  std::string error;
  EXPECT_TRUE(ExpandPod(spec, kNow, &pod, &error)) << error;
  return Stored(Resource::kPods, std::move(pod));
}

std::vector<std::string> Headers(const rapidjson::Document& table) {
  std::vector<std::string> out;
  for (const auto& c : table["columnDefinitions"].GetArray()) out.push_back(c["name"].GetString());
  return out;
}

std::vector<std::string> Cells(const rapidjson::Value& row) {
  std::vector<std::string> out;
  for (const auto& c : row["cells"].GetArray()) {
    out.push_back(c.IsString() ? c.GetString() : c.IsInt64() ? std::to_string(c.GetInt64()) : "");
  }
  return out;
}

TEST(SimPrinters, PodRowsFollowKubectlsStatusRules) {
  std::vector<ObjectPtr> pods = {
      Pod(R"({"namespace":"demo","name":"demo-tikv-0","stage":"unschedulable","created":"-2m"})"),
      Pod(R"({"namespace":"demo","name":"demo-tidb-0","stage":"init","waitForPd":true,"created":"-90s"})"),
      Pod(R"({"namespace":"demo","name":"demo-tikv-1","stage":"waiting","reason":"CrashLoopBackOff","restarts":4,"created":"-1h"})"),
      Pod(R"({"namespace":"demo","name":"demo-pd-0","stage":"ready","created":"-3h"})"),
      Pod(R"({"namespace":"demo","name":"demo-pd-1","stage":"running","deleting":"-10s"})"),
      Pod(R"({"namespace":"demo","name":"demo-tidb-1","stage":"gated"})"),
  };
  auto table = ParseJson(TableJson(Resource::kPods, pods, R"({"resourceVersion":"9"})", {}, kNow));
  EXPECT_STREQ(table["kind"].GetString(), "Table");
  EXPECT_STREQ(table["apiVersion"].GetString(), "meta.k8s.io/v1");
  EXPECT_STREQ(table["metadata"]["resourceVersion"].GetString(), "9");
  EXPECT_THAT(Headers(table), ElementsAre("Name", "Ready", "Status", "Restarts", "Age", "IP",
                                          "Node", "Nominated Node", "Readiness Gates"));
  EXPECT_STREQ(table["columnDefinitions"][0]["format"].GetString(), "name");
  EXPECT_EQ(table["columnDefinitions"][5]["priority"].GetInt(), 1) << "IP is a wide column";
  const auto& rows = table["rows"];
  ASSERT_EQ(rows.Size(), 6u);
  auto cells = Cells(rows[0]);
  EXPECT_THAT(std::vector<std::string>(cells.begin(), cells.begin() + 5),
              ElementsAre("demo-tikv-0", "0/1", "Pending", "0", "2m"));
  EXPECT_EQ(cells[6], "<none>") << "not scheduled: no node";
  EXPECT_EQ(Cells(rows[1])[2], "Init:0/1");
  EXPECT_EQ(Cells(rows[1])[4], "90s");
  EXPECT_EQ(Cells(rows[2])[2], "CrashLoopBackOff");
  EXPECT_EQ(Cells(rows[2])[3], "4 (60s ago)") << "restarts and the last one's age";
  auto ready = Cells(rows[3]);
  EXPECT_THAT(std::vector<std::string>(ready.begin(), ready.begin() + 5),
              ElementsAre("demo-pd-0", "1/1", "Running", "0", "3h"));
  EXPECT_EQ(Cells(rows[4])[2], "Terminating");
  EXPECT_EQ(Cells(rows[5])[2], "SchedulingGated");
  // By default a row carries the object's metadata only.
  EXPECT_STREQ(rows[0]["object"]["kind"].GetString(), "PartialObjectMetadata");
  EXPECT_STREQ(rows[0]["object"]["metadata"]["namespace"].GetString(), "demo");
  EXPECT_FALSE(rows[0]["object"].HasMember("spec"));

  TableOptions whole;
  whole.include = IncludeObject::kObject;
  whole.column_definitions = false;
  auto full = ParseJson(TableJson(Resource::kPods, {pods[0]}, "{}", whole, kNow));
  EXPECT_FALSE(full.HasMember("columnDefinitions"));
  EXPECT_STREQ(full["rows"][0]["object"]["kind"].GetString(), "Pod");
  EXPECT_TRUE(full["rows"][0]["object"].HasMember("spec"));
  TableOptions none;
  none.include = IncludeObject::kNone;
  EXPECT_FALSE(
      ParseJson(TableJson(Resource::kPods, {pods[0]}, "{}", none, kNow))["rows"][0].HasMember(
          "object"));
}

TEST(SimPrinters, EventRowsShowRepeatsLikeKubectl) {
  auto event = [](const std::string& spec_json) {
    rapidjson::Document spec = ParseJson(spec_json);
    rapidjson::Document ev;
    std::string error;
    EXPECT_TRUE(ExpandEvent(
        spec, kNow, [](const std::string&, const std::string&) { return std::string("u-1"); }, &ev,
        &error))
        << error;
    return Stored(Resource::kEvents, std::move(ev));
  };
  std::vector<ObjectPtr> events = {
      event(
          R"({"namespace":"demo","pod":"demo-tikv-0","reason":"TriggeredScaleUp","first":"-100s","last":"-100s"})"),
      event(
          R"({"namespace":"demo","pod":"demo-tikv-0","reason":"FailedScheduling","first":"-30m","last":"-20s","count":5})"),
  };
  auto table = ParseJson(TableJson(Resource::kEvents, events, "{}", {}, kNow));
  EXPECT_THAT(Headers(table), ElementsAre("Last Seen", "Type", "Reason", "Object", "Subobject",
                                          "Source", "Message", "First Seen", "Count", "Name"));
  EXPECT_STREQ(table["columnDefinitions"][9]["format"].GetString(), "name");
  auto first = Cells(table["rows"][0]);
  EXPECT_THAT(std::vector<std::string>(first.begin(), first.begin() + 4),
              ElementsAre("100s", "Normal", "TriggeredScaleUp", "pod/demo-tikv-0"));
  EXPECT_EQ(first[5], "cluster-autoscaler");
  auto second = Cells(table["rows"][1]);
  // The scheduler's eventTime has microseconds: 29m59.x s ago.
  EXPECT_EQ(second[0], "20s (x5 over 29m)") << "a scheduler event's series";
  EXPECT_EQ(second[1], "Warning");
  EXPECT_EQ(second[5], "default-scheduler");
  EXPECT_EQ(second[8], "5");
}

TEST(SimPrinters, CustomResourcesGetTheirCrdPrinterColumns) {
  rapidjson::Document spec = ParseJson(
      R"({"kind":"TiKV","namespace":"tidb-v2","name":"tikv-m3p8zc","cluster":"basic",
          "reason":"InstanceNotHealthy","storeId":"4","storeState":"Preparing","created":"-5m"})");
  rapidjson::Document doc;
  std::string error;
  ASSERT_TRUE(ExpandV2(spec, kNow, &doc, &error)) << error;
  Resource tikvs = *ResourceFromPlural("tikvs");
  auto table = ParseJson(TableJson(tikvs, {Stored(tikvs, std::move(doc))}, "{}", {}, kNow));
  EXPECT_THAT(Headers(table),
              ElementsAre("Name", "Cluster", "StoreID", "StoreState", "Synced", "Ready", "Age"));
  auto cells = Cells(table["rows"][0]);
  EXPECT_THAT(cells, ElementsAre("tikv-m3p8zc", "basic", "4", "Preparing", "True", "False", "5m"));

  rapidjson::Document tc_spec = ParseJson(
      R"({"namespace":"demo","name":"demo","pd":{"replicas":3},"tikv":{"replicas":3},"tidb":{"replicas":2}})");
  rapidjson::Document tc;
  ASSERT_TRUE(ExpandTidbCluster(tc_spec, kNow, &tc, &error)) << error;
  auto tct = ParseJson(TableJson(Resource::kTidbClusters,
                                 {Stored(Resource::kTidbClusters, std::move(tc))}, "{}", {}, kNow));
  EXPECT_THAT(Headers(tct),
              ElementsAre("Name", "Ready", "PD", "Storage", "Ready", "Desire", "TiKV", "Storage",
                          "Ready", "Desire", "TiDB", "Ready", "Desire", "Status", "Age"));
  EXPECT_EQ(tct["rows"][0]["cells"][5].GetInt64(), 3) << "PD Desire is an integer column";
  EXPECT_EQ(tct["rows"][0]["cells"][12].GetInt64(), 2);
  EXPECT_EQ(tct["columnDefinitions"][13]["priority"].GetInt(), 1) << "Status is wide";
  EXPECT_STREQ(tct["rows"][0]["cells"][2].GetString(), "pingcap/pd:v8.1.0");
  EXPECT_TRUE(tct["rows"][0]["cells"][3].IsNull()) << "no spec.pd.requests.storage: an empty cell";
  EXPECT_TRUE(PrinterColumnsOf(Resource::kPods).empty());
}

TEST(SimPrinters, AcceptHeaderAndIncludeObject) {
  EXPECT_TRUE(
      WantsTable("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;"
                 "v=v1beta1;g=meta.k8s.io,application/json"));
  EXPECT_TRUE(WantsTable("application/json; as=Table; g=meta.k8s.io; v=v1"));
  EXPECT_FALSE(WantsTable("application/json"));
  EXPECT_FALSE(WantsTable("application/json;as=Table;v=v1beta1;g=meta.k8s.io"));
  EXPECT_FALSE(WantsTable(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"));
  IncludeObject inc;
  ASSERT_TRUE(ParseIncludeObject("", &inc));
  EXPECT_EQ(inc, IncludeObject::kMetadata);
  ASSERT_TRUE(ParseIncludeObject("Object", &inc));
  EXPECT_EQ(inc, IncludeObject::kObject);
  ASSERT_TRUE(ParseIncludeObject("None", &inc));
  EXPECT_EQ(inc, IncludeObject::kNone);
  EXPECT_FALSE(ParseIncludeObject("Everything", &inc));
}

TEST(SimPrinters, HumanAgeIsKubectlsFormat) {
  EXPECT_EQ(HumanAge(-5000), "<invalid>");
  EXPECT_EQ(HumanAge(-500), "0s");
  EXPECT_EQ(HumanAge(45 * kSecond), "45s");
  EXPECT_EQ(HumanAge(119 * kSecond), "119s");
  EXPECT_EQ(HumanAge(200 * kSecond), "3m20s");
  EXPECT_EQ(HumanAge(5 * kMinute), "5m");
  EXPECT_EQ(HumanAge(25 * kMinute + 30 * kSecond), "25m");
  EXPECT_EQ(HumanAge(5 * 60 * kMinute + 3 * kMinute), "5h3m");
  EXPECT_EQ(HumanAge(20 * 60 * kMinute), "20h");
  EXPECT_EQ(HumanAge((2 * 24 + 3) * 60 * kMinute), "2d3h");
  EXPECT_EQ(HumanAge(int64_t{400} * 24 * 60 * kMinute), "400d");
  EXPECT_EQ(HumanAge(int64_t{(3 * 365 + 10) * 24} * 60 * kMinute), "3y10d");
}

TEST(SimPrinters, JsonPathSubset) {
  auto doc = ParseJson(
      R"({"status":{"conditions":[{"type":"Synced","status":"True"},{"type":"Ready","status":"False"}],
          "components":[{"kind":"PD","replicas":3}]},"spec":{"items":[1,2]}})");
  const auto* ready = JsonPathFirst(doc, ".status.conditions[?(@.type==\"Ready\")].status");
  ASSERT_NE(ready, nullptr);
  EXPECT_STREQ(ready->GetString(), "False");
  const auto* pd = JsonPathFirst(doc, ".status.components[?(@.kind==\"PD\")].replicas");
  ASSERT_NE(pd, nullptr);
  EXPECT_EQ(pd->GetInt(), 3);
  EXPECT_EQ(JsonPathFirst(doc, ".spec.items[1]")->GetInt(), 2);
  EXPECT_EQ(JsonPathFirst(doc, ".status.conditions[?(@.type==\"Gone\")].status"), nullptr);
  EXPECT_EQ(JsonPathFirst(doc, ".spec.items[5]"), nullptr);
  EXPECT_EQ(JsonPathFirst(doc, ".status.missing.deeper"), nullptr);
}

}  // namespace
}  // namespace podwait::sim
