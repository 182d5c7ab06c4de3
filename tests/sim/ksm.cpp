// kube-state-metrics-shaped series rendered from the simulated pods, for alert end-to-end tests
// that need kubernetes-mixin's inputs next to podwait's own series.
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "exporter/common/time_format.h"
#include "tests/sim/simulator.h"

namespace podwait::sim {

namespace {

std::string Esc(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}

std::string S(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return "";
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

struct Sts {
  int64_t replicas = 0;
  int64_t ready = 0;
  int64_t max_ordinal = -1;
};

struct Family {
  std::string help;
  std::string body;
};

}  // namespace

std::string RenderKsm(const std::vector<ObjectPtr>& pods) {
  static const char* const kPhases[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
  Family phase{"The pods current phase.", ""};
  Family owner{"Information about the Pod's owner.", ""};
  Family waiting{"Describes the reason the container is currently in waiting state.", ""};
  Family init_waiting{"Describes the reason the init container is currently in waiting state.", ""};
  Family ready{"Describes whether the pod is ready to serve requests.", ""};
  Family created{"Unix creation timestamp", ""};
  std::map<std::string, Sts> sets;  // "ns\x1fname"
  rapidjson::Document doc;
  for (const auto& p : pods) {
    doc.Parse(p->json.c_str(), p->json.size());
    if (doc.HasParseError() || !doc.IsObject()) continue;
    const std::string pod_labels =
        "namespace=\"" + Esc(p->ns) + "\",pod=\"" + Esc(p->name) + "\",uid=\"" + Esc(p->uid) + "\"";
    const rapidjson::Value& status = doc.HasMember("status") ? doc["status"] : doc["metadata"];
    std::string ph = S(status, "phase");
    for (const char* candidate : kPhases) {
      phase.body += "kube_pod_status_phase{" + pod_labels + ",phase=\"" + candidate + "\"} " +
                    (ph == candidate ? "1" : "0") + "\n";
    }
    if (auto t = ParseRfc3339(p->creation)) {
      created.body += "kube_pod_created{" + pod_labels + "} " + std::to_string(*t / 1000) + "\n";
    }
    bool has_owner = false;
    bool is_ready = false;
    std::string ready_status = "unknown";
    const rapidjson::Value& meta = doc["metadata"];
    if (meta.HasMember("ownerReferences") && meta["ownerReferences"].IsArray()) {
      for (const auto& o : meta["ownerReferences"].GetArray()) {
        has_owner = true;
        bool controller =
            o.HasMember("controller") && o["controller"].IsBool() && o["controller"].GetBool();
        owner.body += "kube_pod_owner{" + pod_labels + ",owner_kind=\"" + Esc(S(o, "kind")) +
                      "\",owner_name=\"" + Esc(S(o, "name")) + "\",owner_is_controller=\"" +
                      (controller ? "true" : "false") + "\"} 1\n";
      }
    }
    if (!has_owner) {
      owner.body +=
          "kube_pod_owner{" + pod_labels +
          ",owner_kind=\"<none>\",owner_name=\"<none>\",owner_is_controller=\"<none>\"} 1\n";
    }
    if (status.IsObject() && status.HasMember("conditions") && status["conditions"].IsArray()) {
      for (const auto& c : status["conditions"].GetArray()) {
        if (S(c, "type") == "Ready") {
          std::string st = S(c, "status");
          ready_status = st == "True" ? "true" : st == "False" ? "false" : "unknown";
          is_ready = st == "True";
        }
      }
    }
    for (const char* cond : {"true", "false", "unknown"}) {
      ready.body += "kube_pod_status_ready{" + pod_labels + ",condition=\"" + cond + "\"} " +
                    (ready_status == cond ? "1" : "0") + "\n";
    }
    auto containers = [&](const char* key, Family& fam, const char* metric) {
      if (!status.IsObject() || !status.HasMember(key) || !status[key].IsArray()) return;
      for (const auto& c : status[key].GetArray()) {
        if (!c.HasMember("state") || !c["state"].IsObject() || !c["state"].HasMember("waiting")) {
          continue;
        }
        std::string reason = S(c["state"]["waiting"], "reason");
        if (reason.empty()) continue;
        fam.body += std::string(metric) + "{namespace=\"" + Esc(p->ns) + "\",pod=\"" +
                    Esc(p->name) + "\",uid=\"" + Esc(p->uid) + "\",container=\"" +
                    Esc(S(c, "name")) + "\",reason=\"" + Esc(reason) + "\"} 1\n";
      }
    };
    containers("containerStatuses", waiting, "kube_pod_container_status_waiting_reason");
    containers("initContainerStatuses", init_waiting,
               "kube_pod_init_container_status_waiting_reason");
    // StatefulSets, derived from the owner references of their pods.
    if (meta.HasMember("ownerReferences") && meta["ownerReferences"].IsArray()) {
      for (const auto& o : meta["ownerReferences"].GetArray()) {
        if (S(o, "kind") != "StatefulSet") continue;
        Sts& s = sets[p->ns + "\x1f" + S(o, "name")];
        ++s.replicas;
        if (is_ready) ++s.ready;
        size_t dash = p->name.rfind('-');
        if (dash != std::string::npos) {
          int64_t ord = std::atoll(p->name.c_str() + dash + 1);
          if (ord > s.max_ordinal) s.max_ordinal = ord;
        }
      }
    }
  }
  std::string out;
  auto emit = [&](const char* name, const Family& f) {
    out += std::string("# HELP ") + name + " " + f.help + "\n# TYPE " + name + " gauge\n" + f.body;
  };
  emit("kube_pod_status_phase", phase);
  emit("kube_pod_owner", owner);
  emit("kube_pod_created", created);
  emit("kube_pod_status_ready", ready);
  emit("kube_pod_container_status_waiting_reason", waiting);
  emit("kube_pod_init_container_status_waiting_reason", init_waiting);
  Family spec{"Number of desired pods for a StatefulSet.", ""};
  Family st_replicas{"The number of replicas per StatefulSet.", ""};
  Family st_ready{"The number of ready replicas per StatefulSet.", ""};
  Family st_updated{"The number of updated replicas per StatefulSet.", ""};
  Family st_current{"The number of current replicas per StatefulSet.", ""};
  for (const auto& [key, s] : sets) {
    size_t sep = key.find('\x1f');
    std::string labels = "namespace=\"" + Esc(key.substr(0, sep)) + "\",statefulset=\"" +
                         Esc(key.substr(sep + 1)) + "\"";
    int64_t desired = std::max(s.replicas, s.max_ordinal + 1);
    spec.body += "kube_statefulset_replicas{" + labels + "} " + std::to_string(desired) + "\n";
    st_replicas.body +=
        "kube_statefulset_status_replicas{" + labels + "} " + std::to_string(s.replicas) + "\n";
    st_ready.body +=
        "kube_statefulset_status_replicas_ready{" + labels + "} " + std::to_string(s.ready) + "\n";
    st_updated.body += "kube_statefulset_status_replicas_updated{" + labels + "} " +
                       std::to_string(s.replicas) + "\n";
    st_current.body += "kube_statefulset_status_replicas_current{" + labels + "} " +
                       std::to_string(s.replicas) + "\n";
  }
  emit("kube_statefulset_replicas", spec);
  emit("kube_statefulset_status_replicas", st_replicas);
  emit("kube_statefulset_status_replicas_ready", st_ready);
  emit("kube_statefulset_status_replicas_updated", st_updated);
  emit("kube_statefulset_status_replicas_current", st_current);
  return out;
}

}  // namespace podwait::sim
