// `podwait-exporter contract` against a live /metrics: the families it lists are exactly those
// the exporter serves (both ways), and its vocabulary is the classifier's.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <set>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::ContainerEq;

rapidjson::Document Contract() {
  std::string out;
  EXPECT_EQ(RunCommand({BinaryPath("podwait-exporter"), "contract"}, &out), 0) << out;
  rapidjson::Document doc;
  doc.Parse(out.c_str(), out.size());
  EXPECT_FALSE(doc.HasParseError()) << out.substr(0, 200);
  EXPECT_TRUE(doc.IsObject());
  return doc;
}

// name -> type from the "# TYPE" lines of a scrape.
std::map<std::string, std::string> ServedFamilies(const std::string& scrape) {
  std::map<std::string, std::string> out;
  std::istringstream in(scrape);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    std::string name, type;
    words >> name >> type;
    out[name] = type;
  }
  return out;
}

TEST(Contract, ListsExactlyTheFamiliesALiveExporterServes) {
  rapidjson::Document contract = Contract();
  ASSERT_TRUE(contract.HasMember("metrics") && contract["metrics"].IsArray());
  std::map<std::string, std::string> listed;
  for (const auto& m : contract["metrics"].GetArray()) {
    listed[m["name"].GetString()] = m["type"].GetString();
    EXPECT_GT(m["help"].GetStringLength(), 0u) << m["name"].GetString();
  }

  // The demo (waiting pods, PD probes, TidbClusters), a dropped watch (restarts), Events written
  // (--events.write: its counters start at 0) and a second scrape (the scrape-duration histogram
  // observes the first): every family has samples.
  SimAndExporter stack("tests/scenarios/demo.json", {"--pd.interval=300ms", "--events.write"});
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return t.find("podwait_pod_waiting_seconds{") != std::string::npos &&
               t.find("podwait_probe_duration_seconds_count{") != std::string::npos &&
               t.find("podwait_pd_probe_success{") != std::string::npos;
      },
      30));
  ASSERT_EQ(stack.SimPost("/_sim/fault", R"({"fault":"drop_watches"})"), 200);
  std::string scrape;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return t.find("podwait_watch_restarts_total{") != std::string::npos &&
               t.find("podwait_scrape_duration_seconds_count") != std::string::npos;
      },
      30, &scrape));
  EXPECT_THAT(ServedFamilies(scrape), ContainerEq(listed));
}

TEST(Contract, VocabularyHangsTogether) {
  rapidjson::Document contract = Contract();
  std::set<std::string> stages, classes;
  for (const auto& s : contract["stages"].GetArray()) stages.insert(s["name"].GetString());
  EXPECT_EQ(stages, (std::set<std::string>{"unscheduled", "initializing", "starting"}));
  for (const auto& c : contract["classes"].GetArray()) {
    classes.insert(c["name"].GetString());
    ASSERT_TRUE(c["expected"].IsBool());
    EXPECT_GT(c["stages"].Size(), 0u);
    for (const auto& s : c["stages"].GetArray()) EXPECT_TRUE(stages.count(s.GetString()));
  }
  EXPECT_EQ(classes.size(), 15u);  // issue 22 added `volume`, issue 23 `planned`, `planned_stuck`
  std::set<std::string> used;
  for (const auto& r : contract["reasons"].GetArray()) {
    EXPECT_TRUE(used.insert(r["name"].GetString()).second) << r["name"].GetString();
    EXPECT_GT(r["classes"].Size(), 0u) << r["name"].GetString();
    for (const auto& c : r["classes"].GetArray()) EXPECT_TRUE(classes.count(c.GetString()));
  }
}

}  // namespace
}  // namespace podwait::testing
