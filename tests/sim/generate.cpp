// Load generation: many TiDB clusters at once, and steady churn on their pods.
#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>

#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "tests/sim/simulator.h"

namespace podwait::sim {

namespace {

std::string PodOp(const std::string& ns, const std::string& name, const std::string& cluster,
                  const std::string& component, const std::string& extra) {
  return "{\"pod\":{\"namespace\":\"" + ns + "\",\"name\":\"" + name + "\",\"cluster\":\"" +
         cluster + "\",\"component\":\"" + component + "\",\"created\":\"-30m\"" + extra + "}}";
}

}  // namespace

bool Simulator::Generate(int clusters, int pods_per_cluster, std::string* error) {
  if (clusters <= 0 || pods_per_cluster <= 0) return true;
  int pd = std::min(3, pods_per_cluster);
  int tikv = std::max(0, std::min((pods_per_cluster - pd + 1) / 2, pods_per_cluster - pd));
  int tidb = pods_per_cluster - pd - tikv;
  std::lock_guard<std::mutex> lock(ops_mu_);
  for (int c = 0; c < clusters; ++c) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "load-%04d", c);
    std::string ns = buf;
    std::snprintf(buf, sizeof(buf), "tc-%04d", c);
    std::string cluster = buf;
    // Every tenth cluster waits on PD, every tenth (+1) waits on a node being added, every tenth
    // (+2) lacks capacity; the rest is healthy.
    int pattern = c % 10;
    bool pd_down = pattern == 0;
    std::string ops = "[";
    auto add = [&](const std::string& op) {
      if (ops.size() > 1) ops += ",";
      ops += op;
    };
    for (int i = 0; i < pd; ++i) {
      add(PodOp(ns, cluster + "-pd-" + std::to_string(i), cluster, "pd",
                pd_down ? ",\"stage\":\"running\"" : ""));
    }
    for (int i = 0; i < tikv; ++i) {
      std::string name = cluster + "-tikv-" + std::to_string(i);
      std::string extra = ",\"waitForPd\":true";
      if (pd_down) {
        extra += ",\"stage\":\"init\"";
      } else if ((pattern == 1 || pattern == 2) && i == tikv - 1) {
        extra += pattern == 1 ? ",\"stage\":\"unschedulable\",\"since\":\"-3m\""
                              : ",\"stage\":\"unschedulable\",\"since\":\"-20m\",\"message\":\"0/3 "
                                "nodes are available: 3 Insufficient memory. preemption: 0/3 "
                                "nodes are available: 3 No preemption victims found for incoming "
                                "pod.\"";
        add("{\"event\":{\"namespace\":\"" + ns + "\",\"pod\":\"" + name +
            "\",\"reason\":\"FailedScheduling\",\"first\":\"-3m\",\"count\":4" +
            (pattern == 2 ? ",\"message\":\"0/3 nodes are available: 3 Insufficient memory. "
                            "preemption: 0/3 nodes are available: 3 No preemption victims found "
                            "for incoming pod.\""
                          : "") +
            "}}");
        add("{\"event\":{\"namespace\":\"" + ns + "\",\"pod\":\"" + name + "\",\"reason\":\"" +
            (pattern == 1 ? "TriggeredScaleUp" : "NotTriggerScaleUp") + "\",\"first\":\"-2m\"}}");
      }
      add(PodOp(ns, name, cluster, "tikv", extra));
    }
    for (int i = 0; i < tidb; ++i) {
      add(PodOp(ns, cluster + "-tidb-" + std::to_string(i), cluster, "tidb",
                pd_down ? ",\"waitForPd\":true,\"stage\":\"init\"" : ",\"waitForPd\":true"));
    }
    std::string stores;
    for (int i = 0; i < tikv; ++i) {
      if (i) stores += ",";
      stores += "{\"id\":" + std::to_string(i + 1) + ",\"pod\":\"" + cluster + "-tikv-" +
                std::to_string(i) + "\",\"state\":\"Up\"}";
    }
    add("{\"tidbcluster\":{\"namespace\":\"" + ns + "\",\"name\":\"" + cluster +
        "\",\"created\":\"-30m\",\"pd\":{\"replicas\":" + std::to_string(pd) +
        (pd_down ? ",\"healthy\":false,\"leader\":null" : "") +
        "},\"tikv\":{\"replicas\":" + std::to_string(tikv) + ",\"stores\":[" +
        (pd_down ? "" : stores) + "]},\"tidb\":{\"replicas\":" + std::to_string(tidb) + "}}}");
    add("{\"pd\":{\"namespace\":\"" + ns + "\",\"cluster\":\"" + cluster + "\",\"members\":" +
        std::to_string(pd) + ",\"state\":\"" + (pd_down ? "no_leader" : "initialized") + "\"" +
        (pd_down ? "" : ",\"stores\":[" + stores + "]") + "}}");
    ops += "]";
    rapidjson::Document doc;
    doc.Parse(ops.c_str(), ops.size());
    if (doc.HasParseError()) {
      *error = "internal: generated ops are not valid JSON";
      return false;
    }
    if (!Apply(doc, error)) return false;
  }
  return true;
}

void Simulator::ChurnLoop() {
  const int64_t tick_ms = 100;
  double budget = 0;
  std::vector<ObjectPtr> pods;
  size_t next = 0;
  while (!stopping_.load()) {
    SleepInterruptible(tick_ms);
    budget += static_cast<double>(options_.churn_per_second) * tick_ms / 1000.0;
    while (budget >= 1 && !stopping_.load()) {
      budget -= 1;
      if (next >= pods.size()) {
        pods = store_.Snapshot(Resource::kPods);
        next = 0;
        if (pods.empty()) break;
      }
      ObjectPtr cur = store_.Get(Resource::kPods, pods[next]->ns, pods[next]->name);
      ++next;
      if (!cur || cur->FieldValue("status.phase") != "Running") continue;
      rapidjson::Document doc;
      doc.Parse(cur->json.c_str(), cur->json.size());
      if (doc.HasParseError() || !doc.HasMember("status")) continue;
      auto& status = doc["status"];
      auto& alloc = doc.GetAllocator();
      std::string now = FormatRfc3339(clock_.Now() / 1000 * 1000);
      bool was_ready = false;
      if (status.HasMember("conditions") && status["conditions"].IsArray()) {
        for (auto& c : status["conditions"].GetArray()) {
          std::string type = c["type"].GetString();
          if (type == "Ready" && std::string(c["status"].GetString()) == "True") was_ready = true;
        }
        for (auto& c : status["conditions"].GetArray()) {
          std::string type = c["type"].GetString();
          if (type != "Ready" && type != "ContainersReady") continue;
          c["status"].SetString(was_ready ? "False" : "True", alloc);
          c["lastTransitionTime"].SetString(now.c_str(), alloc);
          if (c.HasMember("reason")) c.RemoveMember("reason");
          if (c.HasMember("message")) c.RemoveMember("message");
          if (was_ready) {
            c.AddMember("reason", "ContainersNotReady", alloc);
            c.AddMember("message", "containers with unready status: [churn]", alloc);
          }
        }
      }
      if (status.HasMember("containerStatuses") && status["containerStatuses"].IsArray()) {
        for (auto& cs : status["containerStatuses"].GetArray()) {
          if (cs.HasMember("ready")) cs["ready"].SetBool(!was_ready);
        }
      }
      std::string error;
      store_.Upsert(Resource::kPods, std::move(doc), &error);
    }
  }
}

}  // namespace podwait::sim
