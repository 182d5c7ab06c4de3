// Load generation: many TiDB clusters at once, and steady churn on their pods.
#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>
#include <functional>

#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "tests/sim/shorthand.h"
#include "tests/sim/simulator.h"

namespace podwait::sim {

namespace {

// A pod of the load: the pod shorthand with "full" (a real-shaped pod with managedFields).
std::string PodOp(const std::string& ns, const std::string& name, const std::string& cluster,
                  const std::string& component, const std::string& extra, bool v2 = false) {
  return "{\"pod\":{\"namespace\":\"" + ns + "\",\"name\":\"" + name + "\",\"cluster\":\"" +
         cluster + "\",\"component\":\"" + component + "\",\"created\":\"-30m\",\"full\":true" +
         (v2 ? ",\"operator\":\"v2\"" : "") + extra + "}}";
}

// A v2 instance suffix: 6 characters of [a-z0-9], stable per namespace, component and index
// (tidb-operator v2 names instances <group>-<random suffix>).
std::string Suffix(const std::string& ns, const std::string& component, int index) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  uint64_t h = StableHash(ns + "/" + component + "/" + std::to_string(index));
  std::string out;
  for (int i = 0; i < 6; ++i) {
    out += kChars[h % 36];
    h /= 36;
  }
  return out;
}

const char kInsufficientMemory[] =
    "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No "
    "preemption victims found for incoming pod.";

// The FailedScheduling and autoscaler events of an unschedulable pod (pattern 1: a node is being
// added; pattern 2: no node group can fit it).
void SchedulingEvents(const std::string& ns, const std::string& pod, int pattern,
                      const std::function<void(const std::string&)>& add) {
  add("{\"event\":{\"namespace\":\"" + ns + "\",\"pod\":\"" + pod +
      "\",\"reason\":\"FailedScheduling\",\"first\":\"-3m\",\"count\":4" +
      (pattern == 2 ? std::string(",\"message\":\"") + kInsufficientMemory + "\"" : "") + "}}");
  add("{\"event\":{\"namespace\":\"" + ns + "\",\"pod\":\"" + pod + "\",\"reason\":\"" +
      (pattern == 1 ? "TriggeredScaleUp" : "NotTriggerScaleUp") + "\",\"first\":\"-2m\"}}");
}

std::string UnschedulableExtra(int pattern) {
  return pattern == 1
             ? ",\"stage\":\"unschedulable\",\"since\":\"-3m\""
             : std::string(",\"stage\":\"unschedulable\",\"since\":\"-20m\",\"message\":\"") +
                   kInsufficientMemory + "\"";
}

}  // namespace

bool Simulator::Generate(int clusters, int pods_per_cluster, std::string* error, Shape shape) {
  if (clusters <= 0 || pods_per_cluster <= 0) return true;
  int pd = std::min(3, pods_per_cluster);
  int tikv = std::max(0, std::min((pods_per_cluster - pd + 1) / 2, pods_per_cluster - pd));
  int tidb = pods_per_cluster - pd - tikv;
  const bool v2 = shape == Shape::kV2;
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
    // Pod names: v1 <cluster>-<component>-<ordinal> (StatefulSet pods); v2
    // <group>-<component>-<suffix> after the instance CR <group>-<suffix> (groups named after
    // their component).
    auto pod_name = [&](const std::string& component, int i) {
      return v2 ? component + "-" + component + "-" + Suffix(ns, component, i)
                : cluster + "-" + component + "-" + std::to_string(i);
    };
    std::string stores;
    for (int i = 0; i < tikv; ++i) {
      if (i) stores += ",";
      stores += "{\"id\":" + std::to_string(i + 1) + ",\"pod\":\"" + pod_name("tikv", i) +
                "\",\"state\":\"Up\"}";
    }
    const bool last_tikv_unschedulable = !pd_down && (pattern == 1 || pattern == 2);
    if (!v2) {
      for (int i = 0; i < pd; ++i) {
        add(PodOp(ns, pod_name("pd", i), cluster, "pd", pd_down ? ",\"stage\":\"running\"" : ""));
      }
      for (int i = 0; i < tikv; ++i) {
        std::string name = pod_name("tikv", i);
        std::string extra = ",\"waitForPd\":true";
        if (pd_down) {
          extra += ",\"stage\":\"init\"";
        } else if (last_tikv_unschedulable && i == tikv - 1) {
          extra += UnschedulableExtra(pattern);
          SchedulingEvents(ns, name, pattern, add);
        }
        add(PodOp(ns, name, cluster, "tikv", extra));
      }
      for (int i = 0; i < tidb; ++i) {
        add(PodOp(ns, pod_name("tidb", i), cluster, "tidb",
                  pd_down ? ",\"waitForPd\":true,\"stage\":\"init\"" : ",\"waitForPd\":true"));
      }
      add("{\"tidbcluster\":{\"namespace\":\"" + ns + "\",\"name\":\"" + cluster +
          "\",\"created\":\"-30m\",\"pd\":{\"replicas\":" + std::to_string(pd) +
          (pd_down ? ",\"healthy\":false,\"leader\":null" : "") +
          "},\"tikv\":{\"replicas\":" + std::to_string(tikv) + ",\"stores\":[" +
          (pd_down ? "" : stores) + "]},\"tidb\":{\"replicas\":" + std::to_string(tidb) + "}}}");
    } else {
      // tidb-operator v2 creates every instance's pod at once: with PD down, PD runs without a
      // leader while TiKV and TiDB crash-loop (they exit when PD does not answer), as in
      // tests/scenarios/v2.json.
      const std::string crashloop =
          ",\"stage\":\"waiting\",\"reason\":\"CrashLoopBackOff\",\"restarts\":4";
      std::string objects;
      auto object = [&](const std::string& kind, const std::string& name, const std::string& more) {
        if (!objects.empty()) objects += ",";
        objects += "{\"kind\":\"" + kind + "\",\"namespace\":\"" + ns + "\",\"name\":\"" + name +
                   "\",\"created\":\"-30m\",\"since\":\"-30m\"" + more + "}";
      };
      const std::string in_cluster = ",\"cluster\":\"" + cluster + "\"";
      object("Cluster", cluster,
             pd_down ? ",\"available\":false"
                     : ",\"available\":true,\"id\":\"" + std::to_string(PdClusterId(ns, cluster)) +
                           "\"");
      auto group = [&](const char* kind, const char* name, int replicas, int ready) {
        object(kind, name,
               in_cluster + ",\"replicas\":" + std::to_string(replicas) +
                   ",\"readyReplicas\":" + std::to_string(ready));
      };
      group("PDGroup", "pd", pd, pd_down ? 0 : pd);
      group("TiKVGroup", "tikv", tikv, pd_down ? 0 : tikv - (last_tikv_unschedulable ? 1 : 0));
      group("TiDBGroup", "tidb", tidb, pd_down ? 0 : tidb);
      for (int i = 0; i < pd; ++i) {
        object("PD", "pd-" + Suffix(ns, "pd", i),
               in_cluster + (pd_down ? ",\"ready\":false" : ",\"ready\":true"));
        add(PodOp(ns, pod_name("pd", i), cluster, "pd", pd_down ? ",\"stage\":\"running\"" : "",
                  true));
      }
      for (int i = 0; i < tikv; ++i) {
        std::string name = pod_name("tikv", i);
        std::string extra = ",\"initContainers\":[\"ti-prestop-checker\"]";
        std::string instance = in_cluster;
        if (pd_down) {
          extra += crashloop;
          instance += ",\"ready\":false";
        } else if (last_tikv_unschedulable && i == tikv - 1) {
          extra += UnschedulableExtra(pattern);
          instance += ",\"ready\":false,\"reason\":\"PodNotReady\"";
          SchedulingEvents(ns, name, pattern, add);
        } else {
          instance += ",\"ready\":true,\"storeId\":\"" + std::to_string(i + 1) +
                      "\",\"storeState\":\"Serving\"";
        }
        object("TiKV", "tikv-" + Suffix(ns, "tikv", i), instance);
        add(PodOp(ns, name, cluster, "tikv", extra, true));
      }
      for (int i = 0; i < tidb; ++i) {
        object("TiDB", "tidb-" + Suffix(ns, "tidb", i),
               in_cluster + (pd_down ? ",\"ready\":false" : ",\"ready\":true"));
        add(PodOp(ns, pod_name("tidb", i), cluster, "tidb", pd_down ? crashloop : "", true));
      }
      add("{\"v2\":[" + objects + "]}");
    }
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
