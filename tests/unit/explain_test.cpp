// `podwait-exporter explain` in-process: the made-up pod documents of tests/fixtures/made-up/
// classify (each following a real fixture, see SOURCES.txt there) and the real PD payloads.

#include "exporter/explain/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Explain(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int code = RunExplain(args, in, out, err);
  return {code, out.str(), err.str()};
}

// A PodList of the made-up documents.
std::string PodList() {
  std::string items;
  for (const char* f :
       {"tidb-init-wait-for-pd.yaml", "tikv-unschedulable.yaml", "tikv-ready.yaml"}) {
    if (!items.empty()) items += ",";
    items += testing::YamlFileToJsonText(std::string("tests/fixtures/made-up/classify/") + f);
  }
  return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + items + "]}";
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = testing::MakeTempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// PD answers laid out for --pd-dir (namespace tidb, cluster demo) from the real fixtures.
std::string PdDir(bool with_stores) {
  std::string dir = testing::MakeTempDir();
  std::filesystem::create_directories(dir + "/tidb/demo");
  const std::string real = testing::SourcePath("tests/fixtures/real/pd/");
  for (const char* f : {"health.json", "leader.json", "cluster_status.json"}) {
    std::filesystem::copy_file(real + f, dir + "/tidb/demo/" + f);
  }
  if (with_stores) std::filesystem::copy_file(real + "stores.json", dir + "/tidb/demo/stores.json");
  return dir;
}

TEST(Explain, ClassifiesADumpFromStdin) {
  Result r = Explain({"-f", "-", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NAMESPACE"));
  EXPECT_THAT(r.out, HasSubstr("demo-tidb-0"));
  EXPECT_THAT(r.out, HasSubstr("demo-tikv-0"));
  EXPECT_THAT(r.out, Not(HasSubstr("demo-tikv-2"))) << "a Ready pod does not wait";
  // No PD answers and no Ready PD pod: PD is not ready, so TiDB's init wait is a dependency wait.
  EXPECT_THAT(r.out, HasSubstr("dependency"));
}

TEST(Explain, AllListsPodsThatDoNotWait) {
  Result r = Explain({"-f", "-", "--all", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("demo-tikv-2"));
  EXPECT_THAT(r.out, HasSubstr("not waiting"));
}

TEST(Explain, JsonOutputHasTheApiShape) {
  Result r = Explain(
      {"-f", WriteTemp("pods.json", PodList()), "-o", "json", "--now=2024-05-02T10:10:00Z"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out;
  ASSERT_TRUE(d["pods"].IsArray());
  EXPECT_EQ(d["pods"].Size(), 2u);
  EXPECT_STREQ(d["pods"][0]["pod"].GetString(), "demo-tidb-0");
}

TEST(Explain, PdAnswersMakeTheDependencyReady) {
  // With real PD payloads (a leader, healthy members, initialized, TiKV stores Up), PD and TiKV
  // are ready: TiDB's init wait is no longer waiting on an unready dependency.
  Result r = Explain(
      {"-f", "-", "--pd-dir", PdDir(true), "-o", "json", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  ASSERT_GE(d["clusters"].Size(), 1u);
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["pd"]["readiness"].GetString(), "ready");
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "ready");
}

TEST(Explain, NotBootstrappedLeavesTikvNotReady) {
  // Leader and health answer; /stores answers PD's HTTP 500 before the first TiKV (the body as
  // tikv/pd's ErrNotBootstrapped writes it, see tests/fixtures/real/pd/SOURCES.txt): PD ready,
  // TiKV not.
  const std::string dir = PdDir(false);
  std::ofstream(dir + "/tidb/demo/stores.json")
      << "HTTP 500\n\"TiKV cluster not bootstrapped, please start TiKV first\"\n";
  Result r =
      Explain({"-f", "-", "--pd-dir", dir, "-o", "json", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["pd"]["readiness"].GetString(), "ready");
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "not_ready");
}

TEST(Explain, UnreachableStoresLeaveTikvUnknown) {
  Result r = Explain(
      {"-f", "-", "--pd-dir", PdDir(false), "-o", "json", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "unknown");
}

// tidb-operator v2 (tests/fixtures/v2/, made up after the v2 source files its README names):
// pods and a dump of kubectl get clusters,pdgroups,pds,tikvs,tidbs -A -o json, as a separate
// file or in the same List.
std::string FileText(const std::string& relative) {
  std::ifstream f(testing::SourcePath(relative));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string V2PodList(std::vector<std::string> extra_items = {}) {
  std::string items;
  for (const char* f : {"tikv-ready-instance-not-ready.json", "tidb-crashloop-no-pd-leader.json",
                        "pd-running-not-ready-no-leader.json"}) {
    if (!items.empty()) items += ",";
    items += FileText(std::string("tests/fixtures/v2/pods/") + f);
  }
  for (const auto& e : extra_items) items += "," + e;
  return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + items + "]}";
}

// The TiKV pod is Ready, its TiKV instance (tikv-m3p8zc, Preparing) Ready=False: without the v2
// objects explain cannot know and lists nothing for it; with them it waits, stage starting.
TEST(Explain, V2ObjectsMakeAReadyTikvPodWithItsInstanceNotReadyWait) {
  const std::string now = "--now=2025-03-10T08:10:00Z";
  Result without = Explain({"-f", "-", now, "-o", "wide"}, V2PodList());
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_THAT(without.out, Not(HasSubstr("tikv-tikv-m3p8zc")));
  EXPECT_THAT(without.out, HasSubstr("tidb-tidb-h2k9sd"));

  const std::string v2 =
      testing::SourcePath("tests/fixtures/v2/lists/kubectl-get-v2-pd-ready-tikv-preparing.json");
  Result with = Explain({"-f", "-", "--v2-objects=" + v2, now, "-o", "wide"}, V2PodList());
  ASSERT_EQ(with.code, 0) << with.err;
  EXPECT_THAT(with.out, HasSubstr("tikv-tikv-m3p8zc"));
  EXPECT_THAT(with.out, HasSubstr("TiKV instance Ready=False InstanceNotHealthy"));

  // The same objects inside the -f List (a mixed kubectl get pods,clusters,pds,... dump).
  rapidjson::Document list;
  const std::string list_text =
      FileText("tests/fixtures/v2/lists/kubectl-get-v2-pd-ready-tikv-preparing.json");
  list.Parse(list_text.c_str());
  ASSERT_TRUE(list.IsObject());
  std::vector<std::string> items;
  for (const auto& item : list["items"].GetArray()) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    item.Accept(w);
    items.emplace_back(buf.GetString());
  }
  Result mixed = Explain({"-f", "-", now, "-o", "wide"}, V2PodList(items));
  ASSERT_EQ(mixed.code, 0) << mixed.err;
  EXPECT_THAT(mixed.out, HasSubstr("TiKV instance Ready=False InstanceNotHealthy"));

  // A malformed v2 object is a clear error naming it.
  Result bad = Explain({"-f", "-", now},
                       V2PodList({R"({"apiVersion":"core.pingcap.com/v1alpha1","kind":"TiKV",)"
                                  R"("metadata":{"namespace":"tidb-v2","name":"x"},"status":7})"}));
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("TiKV tidb-v2/x"));
}

// -f /dev/zero, or a dump larger than memory allows, ended in std::bad_alloc (SIGABRT).
TEST(Explain, HugeInputIsAClearErrorNotAnAbort) {
  Result zero = Explain({"-f", "/dev/zero"});
  EXPECT_EQ(zero.code, 1);
  EXPECT_THAT(zero.err, HasSubstr("/dev/zero: larger than the limit of 256 MiB"));

  // A sparse 4 GiB file: refused by its size, without reading it.
  const std::string huge = testing::MakeTempDir() + "/pods.json";
  ASSERT_EQ(truncate(huge.c_str(), 0), -1);  // not there yet
  { std::ofstream(huge) << "{"; }
  ASSERT_EQ(truncate(huge.c_str(), int64_t{4} << 30), 0);
  Result big = Explain({"-f", huge});
  EXPECT_EQ(big.code, 1);
  EXPECT_THAT(big.err, HasSubstr("larger than the limit of 256 MiB (4096 MiB)"));
  EXPECT_THAT(big.err, HasSubstr("dump fewer objects"));
}

TEST(Explain, BadInputIsAClearErrorNamingTheFile) {
  Result missing = Explain({"-f", "/nonexistent/pods.json"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/pods.json: cannot open the file"));

  Result truncated = Explain({"-f", "-"}, "{\"items\": [");
  EXPECT_EQ(truncated.code, 1);
  EXPECT_THAT(truncated.err, HasSubstr("standard input: invalid JSON at offset"));

  Result wrong_kind = Explain({"-f", "-"}, "{\"items\": [{\"kind\": \"Service\"}]}");
  EXPECT_EQ(wrong_kind.code, 1);
  EXPECT_THAT(wrong_kind.err, HasSubstr("item 0 is a Service, not a Pod"));

  Result no_list = Explain({"-f", "-"}, "{\"kind\": \"Node\"}");
  EXPECT_EQ(no_list.code, 1);
  EXPECT_THAT(no_list.err, HasSubstr("neither a List"));

  Result bad_events = Explain({"-f", "-", "--events", WriteTemp("ev.json", "[]")}, PodList());
  EXPECT_EQ(bad_events.code, 1);
  EXPECT_THAT(bad_events.err, HasSubstr("ev.json: expected a JSON object"));
}

// Defect 1: an item that is not an object reached FindMember unchecked (SIGSEGV).
TEST(Explain, ListItemsThatAreNotObjectsAreAClearError) {
  for (const char* items : {"[1]", "[\"pod\"]", "[null]", "[[]]", "[{\"kind\":\"Pod\"}, 2]"}) {
    const std::string text = std::string("{\"items\":") + items + "}";
    Result r = Explain({"-f", "-"}, text);
    EXPECT_EQ(r.code, 1) << text;
    EXPECT_THAT(r.err, HasSubstr("is not a JSON object")) << text;
  }
  for (const char* flag : {"--events", "--tidbclusters", "--ca-status"}) {
    Result r = Explain({"-f", "-", flag, WriteTemp("list.json", "{\"items\":[1]}")}, PodList());
    EXPECT_EQ(r.code, 1) << flag;
    EXPECT_THAT(r.err, HasSubstr("item 0 is not a JSON object")) << flag;
  }
}

// Defect 2: a 1,000,000-deep document overflowed the stack of the recursive parser.
TEST(Explain, DeeplyNestedInputIsAClearError) {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  Result r = Explain({"-f", "-"}, "{\"items\":[{\"kind\":\"Pod\",\"x\":" + deep + "}]}");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("standard input: nesting deeper than 64 levels"));
}

TEST(Explain, BadUsageExitsTwo) {
  EXPECT_EQ(Explain({}).code, 2);
  EXPECT_EQ(Explain({"-f", "-", "-o", "yaml"}).code, 2);
  EXPECT_EQ(Explain({"-f", "-", "--now=yesterday"}).code, 2);
  Result unknown = Explain({"-f", "-", "--bogus"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown flag --bogus"));
  EXPECT_EQ(Explain({"--help"}).code, 0);
}

}  // namespace
}  // namespace podwait
