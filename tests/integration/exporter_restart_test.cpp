// An exporter restarted mid-story gives the classes the one before it gave (issue: "right after a
// restart"): the dates a verdict needs — when the pod's stage began, since when PD and TiKV are
// ready — come from the objects (pod conditions, the TidbCluster's members and stores, the v2
// instances' Ready conditions), not from the exporter's memory, and the first evaluation waits
// until every input has been read once. tests/scenarios/restart.json: a v1 and a v2 cluster
// whose PD and TiKV have been ready for 65 minutes while TiDB pods wait; then PD loses its
// leader and gets it back. At each point the exporter that watched the story is replaced by a
// fresh one, whose every published class must be the one before.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <thread>

#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

// namespace/pod -> "class/reason", of the TiDB pods the story is about.
using Classes = std::map<std::string, std::string>;

const char* const kPods[] = {"rs/rs-tidb-0", "rs/rs-tidb-1", "rs-v2/tidb-tidb-h2k9sd",
                             "rs-v2/tidb-tidb-p4n8wz"};

Classes ClassesIn(const std::string& text) {
  Classes out;
  for (const Sample& s : FindSamples(text, "podwait_pod_waiting_seconds")) {
    const std::string key = s.labels.at("namespace") + "/" + s.labels.at("pod");
    for (const char* pod : kPods) {
      if (key == pod) out[key] = s.labels.at("class") + "/" + s.labels.at("reason");
    }
  }
  return out;
}

std::string ClassOf(const std::string& class_reason) {
  return class_reason.substr(0, class_reason.find('/'));
}

std::string Show(const Classes& c) {
  std::string out;
  for (const auto& [pod, cls] : c) out += "  " + pod + " " + cls + "\n";
  return out;
}

class ExporterRestart : public ::testing::Test {
 protected:
  ExporterRestart() : stack_("tests/scenarios/restart.json") {}

  // Waits until the running exporter gives every pod the class of `want` ("class" or
  // "class/reason"); returns its classes with their reasons.
  Classes Settle(const std::map<std::string, std::string>& want) {
    Classes got;
    stack_.ScrapeUntil(
        [&](const std::string& text) {
          got = ClassesIn(text);
          if (got.size() != want.size()) return false;
          for (const auto& [pod, cls] : want) {
            if (got[pod] != cls && ClassOf(got[pod]) != cls) return false;
          }
          return true;
        },
        20);
    return got;
  }

  // Scrapes the running exporter from now until it has shown the same classes of all four pods
  // for 3 s (the PD probes' fast cadence is 1 s: three more rounds), 20 s at most, and returns
  // them. *wrong gets each published class that `ok` refuses, with when it was seen.
  Classes Watch(const std::function<bool(const std::string&, const std::string&)>& ok,
                std::vector<std::string>* wrong) {
    const auto start = std::chrono::steady_clock::now();
    auto since_start = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
          .count();
    };
    Classes last;
    Classes stable;
    int64_t stable_since = -1;
    while (since_start() < 20'000) {
      last = ClassesIn(stack_.Scrape());
      for (const auto& [pod, cls] : last) {
        if (!ok(pod, cls)) {
          wrong->push_back(pod + " " + cls + " at " + std::to_string(since_start()) + " ms");
        }
      }
      if (last.size() == std::size(kPods) && last == stable) {
        if (since_start() - stable_since > 3000) break;
      } else {
        stable = last;
        stable_since = since_start();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
  }

  // Replaces the exporter by a fresh one (SIGTERM, as a rollout stops it) and watches what the new
  // one publishes, from its first scrape: each class that differs from `before` is *wrong.
  Classes Restart(const Classes& before, std::vector<std::string>* wrong) {
    stack_.exporter().Signal(SIGTERM);
    stack_.exporter().Wait(std::chrono::seconds(10));
    stack_.StartExporter();
    return Watch(
        [&](const std::string& pod, const std::string& cls) {
          auto it = before.find(pod);
          return it != before.end() && it->second == cls;
        },
        wrong);
  }

  void Advance(const std::string& step) {
    ASSERT_EQ(stack_.SimPost("/_sim/advance?to=" + step), 200) << step;
  }

  // The record of every phase, printed at the end (the measured classes before and after).
  void Record(const std::string& phase, const Classes& before, const Classes& after) {
    std::printf("%s, before the restart:\n%s%s, after:\n%s", phase.c_str(), Show(before).c_str(),
                phase.c_str(), Show(after).c_str());
  }

  SimAndExporter stack_;
};

// v1 (rs) and v2 (rs-v2) side by side, at three points of the story.
TEST_F(ExporterRestart, ClassesAfterARestartAreTheClassesBefore) {
  // PD and TiKV ready for 65 minutes: the TiDB pod in Init on wait-for-pd for 60 is stuck, the
  // pods running not Ready (and the v2 one crash-looping) since after they became ready are
  // their own problem — at once, even for the first exporter.
  const std::map<std::string, std::string> at_start = {{"rs/rs-tidb-0", "dependency_stuck"},
                                                       {"rs/rs-tidb-1", "not_ready"},
                                                       {"rs-v2/tidb-tidb-h2k9sd", "crashloop"},
                                                       {"rs-v2/tidb-tidb-p4n8wz", "not_ready"}};
  std::vector<std::string> wrong;
  Classes before = Watch([&](const std::string& pod,
                             const std::string& cls) { return ClassOf(cls) == at_start.at(pod); },
                         &wrong);
  EXPECT_THAT(wrong, ::testing::IsEmpty()) << "the first exporter, from its first scrape";
  ASSERT_EQ(before.size(), 4u) << Show(before) << stack_.exporter().ReadLog();
  for (const auto& [pod, cls] : at_start) EXPECT_EQ(ClassOf(before[pod]), cls) << pod;
  wrong.clear();
  Classes after = Restart(before, &wrong);
  EXPECT_EQ(after, before);
  EXPECT_THAT(wrong, ::testing::IsEmpty()) << Show(before);
  Record("start", before, after);

  // PD without a leader: every TiDB pod waits on it.
  Advance("pd-leader-lost");
  const std::map<std::string, std::string> lost = {{"rs/rs-tidb-0", "dependency"},
                                                   {"rs/rs-tidb-1", "dependency"},
                                                   {"rs-v2/tidb-tidb-h2k9sd", "dependency"},
                                                   {"rs-v2/tidb-tidb-p4n8wz", "dependency"}};
  before = Settle(lost);
  ASSERT_EQ(before.size(), 4u) << Show(before);
  wrong.clear();
  after = Restart(before, &wrong);
  EXPECT_EQ(after, before);
  EXPECT_THAT(wrong, ::testing::IsEmpty()) << Show(before);
  Record("pd-leader-lost", before, after);

  // PD back a moment ago: the waits are expected again for the ready grace (2m), dated from the
  // objects by the new exporter as by its own clock for the one that watched it happen.
  Advance("pd-leader-back");
  const std::map<std::string, std::string> back = {
      {"rs/rs-tidb-0", "dependency/dependency_ready"},
      {"rs/rs-tidb-1", "dependency/dependency_ready"},
      {"rs-v2/tidb-tidb-h2k9sd", "dependency/dependency_ready"},
      {"rs-v2/tidb-tidb-p4n8wz", "dependency/dependency_ready"}};
  before = Settle(back);
  ASSERT_EQ(before.size(), 4u) << Show(before);
  for (const auto& [pod, cls] : before) EXPECT_EQ(cls, "dependency/dependency_ready") << pod;
  wrong.clear();
  after = Restart(before, &wrong);
  EXPECT_EQ(after, before);
  EXPECT_THAT(wrong, ::testing::IsEmpty()) << Show(before);
  Record("pd-leader-back", before, after);
}

}  // namespace
}  // namespace podwait::testing
