// Who holds a dependency wait (issue 40, heldBy), end to end: the exporter and `explain --live`
// against the simulator's tests/scenarios/held-by.json, where TiDB and TiKV wait in Init on a PD
// whose only pod cannot be scheduled for lack of cpu.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;

// A pod of a /api/v1/pods answer: its class and its heldBy as "pod class/reason" strings, or
// "absent" when the row has no heldBy field.
struct Row {
  std::string wait_class;
  std::vector<std::string> held_by;
  bool has_held_by = false;
  std::string evidence;
};

bool RowOf(const std::string& body, const std::string& pod, Row* out) {
  rapidjson::Document d;
  d.Parse(body.c_str(), body.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("pods")) return false;
  for (const auto& p : d["pods"].GetArray()) {
    if (pod != p["pod"].GetString()) continue;
    Row r;
    r.wait_class = p["class"].GetString();
    r.evidence = p["evidence"].GetString();
    if (p.HasMember("heldBy")) {
      r.has_held_by = true;
      for (const auto& h : p["heldBy"].GetArray()) {
        r.held_by.push_back(std::string(h["pod"].GetString()) + " " + h["class"].GetString() + "/" +
                            h["reason"].GetString());
      }
    }
    *out = r;
    return true;
  }
  return false;
}

class HeldBy : public ::testing::Test {
 protected:
  std::string Pods() { return HttpGet(stack_.exporter_port(), "/api/v1/pods").body; }

  // Waits until `pod`'s row satisfies `pred`; the last row in *row.
  bool RowUntil(const std::string& pod, const std::function<bool(const Row&)>& pred, Row* row) {
    return WaitFor(
        [&] {
          last_ = Pods();
          return RowOf(last_, pod, row) && pred(*row);
        },
        std::chrono::seconds(30));
  }

  SimAndExporter stack_{"tests/scenarios/held-by.json"};
  std::string last_;
};

TEST_F(HeldBy, TidbWaitingOnAnUnschedulablePdNamesIt) {
  Row tidb;
  ASSERT_TRUE(RowUntil(
      "basic-tidb-0",
      [](const Row& r) { return r.wait_class == "dependency" && !r.held_by.empty(); }, &tidb))
      << last_ << stack_.exporter().ReadLog();
  // The class stays dependency (one page, at the root: the PD pod's own capacity row).
  EXPECT_EQ(tidb.held_by, std::vector<std::string>{"basic-pd-0 capacity/insufficient_cpu"});
  EXPECT_THAT(tidb.evidence, HasSubstr("held by basic-pd-0: capacity/insufficient_cpu"));
  Row tikv;
  ASSERT_TRUE(RowOf(last_, "basic-tikv-0", &tikv)) << last_;
  EXPECT_EQ(tikv.wait_class, "dependency");
  EXPECT_EQ(tikv.held_by, std::vector<std::string>{"basic-pd-0 capacity/insufficient_cpu"});
  // The PD pod's own row is no dependency row: no heldBy field.
  Row pd;
  ASSERT_TRUE(RowOf(last_, "basic-pd-0", &pd)) << last_;
  EXPECT_EQ(pd.wait_class, "capacity");
  EXPECT_FALSE(pd.has_held_by);

  // The status page's pod detail shows the chain.
  const std::string page = HttpGet(stack_.exporter_port(), "/?pod=basic-tidb-0").body;
  EXPECT_THAT(page, HasSubstr("held by <b>basic-pd-0</b>: capacity/insufficient_cpu"));

  // explain -o wide (the live read): the evidence column names the holder.
  const std::string sim = "http://127.0.0.1:" + std::to_string(stack_.sim_port());
  std::string out;
  RunCommand(
      {BinaryPath("podwait-exporter"), "explain", "--live", "--kube.api-url=" + sim,
       "--pd.url-template=" + sim + "/pd/{namespace}/{cluster}", "-n", "basic", "-o", "wide"},
      &out);
  EXPECT_THAT(out, HasSubstr("held by basic-pd-0: capacity/insufficient_cpu; init container "
                             "wait-for-pd running"));

  // A node frees up: PD's pod starts (an expected wait), PD has no leader yet.
  ASSERT_EQ(stack_.SimPost("/_sim/advance?to=pd-scheduled"), 200);
  ASSERT_TRUE(RowUntil(
      "basic-tidb-0",
      [](const Row& r) {
        return r.held_by.size() == 1 && r.held_by[0].rfind("basic-pd-0 starting/", 0) == 0;
      },
      &tidb))
      << last_;
  EXPECT_EQ(tidb.wait_class, "dependency");

  // PD Ready: nothing of PD waits, TiKV's heldBy is present and empty.
  ASSERT_EQ(stack_.SimPost("/_sim/advance?to=pd-ready"), 200);
  ASSERT_TRUE(RowUntil(
      "basic-tikv-0", [](const Row& r) { return r.has_held_by && r.held_by.empty(); }, &tikv))
      << last_;
  EXPECT_EQ(tikv.wait_class, "dependency");
  EXPECT_THAT(tikv.evidence, ::testing::Not(HasSubstr("held by")));
}

}  // namespace
}  // namespace podwait::testing
