#include "tests/sim/shorthand.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "exporter/common/time_format.h"
#include "tests/sim/managed_fields.h"

namespace podwait::sim {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

std::string Str(const rapidjson::Value& spec, const char* key, const std::string& fallback = "") {
  if (!spec.IsObject()) return fallback;
  auto it = spec.FindMember(key);
  if (it == spec.MemberEnd() || !it->value.IsString()) return fallback;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

int64_t Int(const rapidjson::Value& spec, const char* key, int64_t fallback) {
  if (!spec.IsObject()) return fallback;
  auto it = spec.FindMember(key);
  if (it == spec.MemberEnd() || !it->value.IsNumber()) return fallback;
  return it->value.IsInt64() ? it->value.GetInt64() : static_cast<int64_t>(it->value.GetDouble());
}

bool Bool(const rapidjson::Value& spec, const char* key, bool fallback) {
  if (!spec.IsObject()) return fallback;
  auto it = spec.FindMember(key);
  if (it == spec.MemberEnd() || !it->value.IsBool()) return fallback;
  return it->value.GetBool();
}

const rapidjson::Value* Member(const rapidjson::Value& spec, const char* key) {
  if (!spec.IsObject()) return nullptr;
  auto it = spec.FindMember(key);
  return it == spec.MemberEnd() ? nullptr : &it->value;
}

std::vector<std::string> StrList(const rapidjson::Value& spec, const char* key) {
  std::vector<std::string> out;
  const rapidjson::Value* v = Member(spec, key);
  if (v && v->IsArray()) {
    for (const auto& e : v->GetArray()) {
      if (e.IsString()) out.emplace_back(e.GetString());
    }
  } else if (v && v->IsString()) {
    out.emplace_back(v->GetString());
  }
  return out;
}

// A time field of a shorthand: relative or absolute; `fallback` when absent.
bool TimeField(const rapidjson::Value& spec, const char* key, Timestamp now, Timestamp fallback,
               Timestamp* out, std::string* error) {
  std::string text = Str(spec, key);
  if (text.empty()) {
    *out = fallback;
    return true;
  }
  if (!ResolveTime(text, now, out)) {
    *error = std::string("bad time in \"") + key + "\": " + text;
    return false;
  }
  return true;
}

void S(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
void KV(Writer& w, const char* k, std::string_view v) {
  w.Key(k);
  S(w, v);
}
void KT(Writer& w, const char* k, Timestamp t) { KV(w, k, FormatRfc3339(t / 1000 * 1000)); }

// Copies a JSON value (from the spec) through the writer.
void CopyMap(Writer& w, const rapidjson::Value* v) {
  if (!v || !v->IsObject()) return;
  for (const auto& m : v->GetObject()) {
    w.Key(m.name.GetString(), m.name.GetStringLength());
    m.value.Accept(w);
  }
}

bool Finish(rapidjson::StringBuffer& sb, rapidjson::Document* out, std::string* error) {
  out->Parse(sb.GetString(), sb.GetSize());
  if (out->HasParseError()) {
    *error = "internal: shorthand produced invalid JSON";
    return false;
  }
  return true;
}

std::string Hex16(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    out += v[i];
  }
  return out;
}

void Condition(Writer& w, const char* type, bool status, Timestamp ltt, const std::string& reason,
               const std::string& message) {
  w.StartObject();
  w.Key("lastProbeTime");
  w.Null();
  KT(w, "lastTransitionTime", ltt);
  if (!message.empty()) KV(w, "message", message);
  if (!reason.empty()) KV(w, "reason", reason);
  KV(w, "status", status ? "True" : "False");
  KV(w, "type", type);
  w.EndObject();
}

struct ContainerState {
  std::string name;
  std::string image;
  enum Kind { kWaiting, kRunning, kTerminated } kind = kWaiting;
  std::string reason;   // waiting or terminated reason
  std::string message;  // waiting message
  int exit_code = 0;
  bool ready = false;
  bool started = false;
  int64_t restarts = 0;
  Timestamp started_at = 0;
  Timestamp finished_at = 0;
  bool crashed_before = false;  // lastState.terminated (CrashLoopBackOff)
  std::string id;
};

void WriteContainerStatus(Writer& w, const ContainerState& c, bool init) {
  w.StartObject();
  if (c.kind != ContainerState::kWaiting || c.crashed_before) KV(w, "containerID", c.id);
  KV(w, "image", c.image);
  KV(w, "imageID",
     c.kind == ContainerState::kWaiting && !c.crashed_before
         ? ""
         : "docker.io/" + c.image.substr(0, c.image.find(':')) +
               "@sha256:" + Hex16(StableHash(c.image)) + Hex16(StableHash(c.image + "1")) +
               Hex16(StableHash(c.image + "2")) + Hex16(StableHash(c.image + "3")));
  w.Key("lastState");
  w.StartObject();
  if (c.crashed_before) {
    w.Key("terminated");
    w.StartObject();
    KV(w, "containerID", c.id);
    w.Key("exitCode");
    w.Int(1);
    KT(w, "finishedAt", c.finished_at);
    KV(w, "reason", "Error");
    KT(w, "startedAt", c.started_at);
    w.EndObject();
  }
  w.EndObject();
  KV(w, "name", c.name);
  w.Key("ready");
  w.Bool(c.ready);
  w.Key("restartCount");
  w.Int64(c.restarts);
  if (!init) {
    w.Key("started");
    w.Bool(c.started);
  }
  w.Key("state");
  w.StartObject();
  switch (c.kind) {
    case ContainerState::kWaiting:
      w.Key("waiting");
      w.StartObject();
      if (!c.message.empty()) KV(w, "message", c.message);
      KV(w, "reason", c.reason);
      w.EndObject();
      break;
    case ContainerState::kRunning:
      w.Key("running");
      w.StartObject();
      KT(w, "startedAt", c.started_at);
      w.EndObject();
      break;
    case ContainerState::kTerminated:
      w.Key("terminated");
      w.StartObject();
      KV(w, "containerID", c.id);
      w.Key("exitCode");
      w.Int(c.exit_code);
      KT(w, "finishedAt", c.finished_at);
      KV(w, "reason", c.reason);
      KT(w, "startedAt", c.started_at);
      w.EndObject();
      break;
  }
  w.EndObject();
  w.EndObject();
}

// The uid of a made-up v2 object: stable, so a pod's owner reference names its instance's uid.
std::string V2Uid(const std::string& ns, const std::string& kind, const std::string& name) {
  return "7a1e0000-0000-4000-8000-" + Hex16(StableHash(ns + "/" + kind + "/" + name)).substr(4);
}

// The v2 kinds (api/core/v1alpha1): instance kind -> (group kind, component).
struct V2KindRow {
  const char* instance;
  const char* group;
  const char* component;
};
constexpr V2KindRow kV2Kinds[] = {
    {"PD", "PDGroup", "pd"},
    {"TiKV", "TiKVGroup", "tikv"},
    {"TiDB", "TiDBGroup", "tidb"},
    {"TiFlash", "TiFlashGroup", "tiflash"},
    {"TiCDC", "TiCDCGroup", "ticdc"},
    {"TSO", "TSOGroup", "tso"},
    {"Scheduling", "SchedulingGroup", "scheduling"},
    {"Scheduler", "SchedulerGroup", "scheduler"},
    {"ResourceManager", "ResourceManagerGroup", "resource-manager"},
    {"Router", "RouterGroup", "router"},
    {"TiKVWorker", "TiKVWorkerGroup", "tikv-worker"},
    {"TiProxy", "TiProxyGroup", "tiproxy"},
    {"DM", "DMGroup", "dm-master"},
    {"DMWorker", "DMWorkerGroup", "dm-worker"},
};

// The instance kind of a v2 component (PD, TiKV, TiDB, ...).
std::string V2InstanceKind(const std::string& component) {
  for (const auto& k : kV2Kinds) {
    if (component == k.component) return k.instance;
  }
  return component;
}

// What the spec of a full pod ("full": true) is made of: the containers, volumes, affinity and
// tolerations of a tidb-operator pod as the API server returns it. v1 follows tidb-operator v1's
// member managers (pkg/manager/member/{pd,tikv,tidb}_member_manager.go: start scripts, the
// annotations/config/startup-script volumes, the TiDB slow-log sidecar, TCP readiness probes,
// preferred anti-affinity by instance); v2 follows tests/fixtures/v2/pods/ (the ti-config and
// ti-vol-data volumes, no TiKV readiness probe). The service-account volume kube-api-access-* and
// the two NoExecute tolerations are what the API server's admission adds to every pod.
struct FullPod {
  std::string ns, name, cluster, component, group;  // group: v2's, or "<cluster>-<component>"
  bool v2 = false;
  std::string api_access;  // kube-api-access-<suffix>
};

void EnvValue(Writer& w, const char* name, std::string_view value) {
  w.StartObject();
  KV(w, "name", name);
  KV(w, "value", value);
  w.EndObject();
}

// "fieldRef": a field of the pod (downward API).
void FieldRef(Writer& w, const char* field_path) {
  w.Key("fieldRef");
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "fieldPath", field_path);
  w.EndObject();
}

void EnvField(Writer& w, const char* name, const char* field_path) {
  w.StartObject();
  KV(w, "name", name);
  w.Key("valueFrom");
  w.StartObject();
  FieldRef(w, field_path);
  w.EndObject();
  w.EndObject();
}

void Mount(Writer& w, std::string_view name, std::string_view path, bool read_only) {
  w.StartObject();
  KV(w, "mountPath", path);
  KV(w, "name", name);
  if (read_only) {
    w.Key("readOnly");
    w.Bool(true);
  }
  w.EndObject();
}

void Port(Writer& w, const char* name, int port) {
  w.StartObject();
  w.Key("containerPort");
  w.Int(port);
  KV(w, "name", name);
  KV(w, "protocol", "TCP");
  w.EndObject();
}

void TcpProbe(Writer& w, const char* key, int port, int initial_delay) {
  w.Key(key);
  w.StartObject();
  w.Key("failureThreshold");
  w.Int(3);
  w.Key("initialDelaySeconds");
  w.Int(initial_delay);
  w.Key("periodSeconds");
  w.Int(10);
  w.Key("successThreshold");
  w.Int(1);
  w.Key("tcpSocket");
  w.StartObject();
  w.Key("port");
  w.Int(port);
  w.EndObject();
  w.Key("timeoutSeconds");
  w.Int(1);
  w.EndObject();
}

void Command(Writer& w, std::initializer_list<std::string_view> args) {
  w.Key("command");
  w.StartArray();
  for (std::string_view a : args) S(w, a);
  w.EndArray();
}

// The client port of a component and its other ports.
int ClientPort(const std::string& component) {
  if (component == "pd") return 2379;
  if (component == "tikv") return 20160;
  if (component == "tidb") return 4000;
  if (component == "tiflash") return 3930;
  if (component == "ticdc") return 8301;
  return 10080;
}

// command, env, lifecycle, ports and probes of a full pod's main container `name`.
void WriteFullMain(Writer& w, const FullPod& f, const std::string& name) {
  const std::string& c = f.component;
  if (name == "slowlog") {
    Command(w, {"sh", "-c", "touch /var/log/tidb/slowlog; tail -n0 -F /var/log/tidb/slowlog;"});
    return;
  }
  if (f.v2) {
    Command(w, {"/" + c + "-server", "--config", "/etc/" + c + "/config.toml"});
  } else {
    Command(w, {"/bin/sh", "/usr/local/bin/" + c + "_start_script.sh"});
    w.Key("env");
    w.StartArray();
    EnvField(w, "NAMESPACE", "metadata.namespace");
    EnvValue(w, "CLUSTER_NAME", f.cluster);
    EnvValue(w, "HEADLESS_SERVICE_NAME", f.group + "-peer");
    if (c == "pd") {
      EnvValue(w, "SET_NAME", f.group);
    } else if (c == "tikv") {
      EnvValue(w, "CAPACITY", "0");
    } else if (c == "tidb") {
      EnvValue(w, "SLOW_LOG_FILE", "/var/log/tidb/slowlog");
    }
    EnvValue(w, "TZ", "UTC");
    w.EndArray();
  }
  if (f.v2 && (c == "tikv" || c == "tidb")) {
    w.Key("lifecycle");
    w.StartObject();
    w.Key("preStop");
    w.StartObject();
    w.Key("exec");
    w.StartObject();
    Command(w, {"/bin/sh", "-c",
                c == "tidb" ? "sleep 10"
                            : "/prestop/prestop-checker -mode  tikv  -pd http://pd-pd." + f.ns +
                                  ":2379 -tikv-status-addr " + f.name + "." + f.group +
                                  "-tikv-peer." + f.ns + ":20180 > /proc/1/fd/1"});
    w.EndObject();
    w.EndObject();
    w.EndObject();
  }
}

void WriteFullPorts(Writer& w, const FullPod& f, const std::string& name) {
  if (name == "slowlog") return;
  const std::string& c = f.component;
  w.Key("ports");
  w.StartArray();
  if (c == "pd") {
    Port(w, "client", 2379);
    Port(w, f.v2 ? "peer" : "server", 2380);
  } else if (c == "tikv") {
    Port(w, f.v2 ? "client" : "server", 20160);
    Port(w, "status", 20180);
  } else if (c == "tidb") {
    Port(w, f.v2 ? "mysql-client" : "server", 4000);
    Port(w, "status", 10080);
  } else {
    Port(w, "client", ClientPort(c));
  }
  w.EndArray();
  // v2 TiKV has no readiness probe (UseTiKVReadyAPI off).
  if (!(f.v2 && c == "tikv")) TcpProbe(w, "readinessProbe", ClientPort(c), c == "tidb" ? 10 : 5);
}

void WriteFullMounts(Writer& w, const FullPod& f, const std::string& name, bool init) {
  const std::string& c = f.component;
  w.Key("volumeMounts");
  w.StartArray();
  if (name == "slowlog") {
    Mount(w, "slowlog", "/var/log/tidb", false);
  } else if (init) {
    if (name == "ti-prestop-checker") Mount(w, "ti-prestop-checker", "/prestop", false);
  } else if (f.v2) {
    Mount(w, "ti-config", "/etc/" + c, false);
    if (c == "tikv") Mount(w, "ti-prestop-checker", "/prestop", false);
    if (c == "pd" || c == "tikv" || c == "tiflash") Mount(w, "ti-vol-data", "/var/lib/" + c, false);
  } else {
    Mount(w, "annotations", "/etc/podinfo", true);
    Mount(w, "config", "/etc/" + c, true);
    Mount(w, "startup-script", "/usr/local/bin", true);
    if (c == "tidb") {
      Mount(w, "slowlog", "/var/log/tidb", false);
    } else {
      Mount(w, c, "/var/lib/" + c, false);
    }
  }
  Mount(w, f.api_access, "/var/run/secrets/kubernetes.io/serviceaccount", true);
  w.EndArray();
}

void Volume(Writer& w, std::string_view name, const char* kind, std::string_view ref_key,
            std::string_view ref) {
  w.StartObject();
  w.Key(kind);
  w.StartObject();
  if (!ref_key.empty()) KV(w, std::string(ref_key).c_str(), ref);
  if (std::string_view(kind) == "configMap") {
    w.Key("defaultMode");
    w.Int(420);
  }
  w.EndObject();
  KV(w, "name", name);
  w.EndObject();
}

// "items" of a downward API volume: one field of the pod as a file.
void DownwardItem(Writer& w, const char* field_path, const char* path) {
  w.Key("items");
  w.StartArray();
  w.StartObject();
  FieldRef(w, field_path);
  KV(w, "path", path);
  w.EndObject();
  w.EndArray();
}

void WriteFullVolumes(Writer& w, const FullPod& f) {
  const std::string& c = f.component;
  w.Key("volumes");
  w.StartArray();
  if (f.v2) {
    Volume(w, "ti-config", "configMap", "name", f.name);
    if (c == "tikv") Volume(w, "ti-prestop-checker", "emptyDir", "", "");
    if (c == "pd" || c == "tikv" || c == "tiflash") {
      Volume(w, "ti-vol-data", "persistentVolumeClaim", "claimName", "ti-vol-data-" + f.name);
    }
  } else {
    // annotations: the pod's own annotations as a file (downward API)
    w.StartObject();
    w.Key("downwardAPI");
    w.StartObject();
    w.Key("defaultMode");
    w.Int(420);
    DownwardItem(w, "metadata.annotations", "annotations");
    w.EndObject();
    KV(w, "name", "annotations");
    w.EndObject();
    const std::string hash = Hex16(StableHash(f.ns + f.group)).substr(0, 8);
    for (const char* v : {"config", "startup-script"}) {
      w.StartObject();
      w.Key("configMap");
      w.StartObject();
      w.Key("defaultMode");
      w.Int(420);
      w.Key("items");
      w.StartArray();
      w.StartObject();
      KV(w, "key", std::string(v) == "config" ? "config-file" : "startup-script");
      KV(w, "path", std::string(v) == "config" ? c + ".toml" : c + "_start_script.sh");
      w.EndObject();
      w.EndArray();
      KV(w, "name", f.group + "-" + hash);
      w.EndObject();
      KV(w, "name", v);
      w.EndObject();
    }
    if (c == "tidb") {
      Volume(w, "slowlog", "emptyDir", "", "");
    } else {
      Volume(w, c, "persistentVolumeClaim", "claimName", c + "-" + f.name);
    }
  }
  // The service-account token volume the API server adds.
  w.StartObject();
  KV(w, "name", f.api_access);
  w.Key("projected");
  w.StartObject();
  w.Key("defaultMode");
  w.Int(420);
  w.Key("sources");
  w.StartArray();
  w.StartObject();
  w.Key("serviceAccountToken");
  w.StartObject();
  w.Key("expirationSeconds");
  w.Int(3607);
  KV(w, "path", "token");
  w.EndObject();
  w.EndObject();
  w.StartObject();
  w.Key("configMap");
  w.StartObject();
  w.Key("items");
  w.StartArray();
  w.StartObject();
  KV(w, "key", "ca.crt");
  KV(w, "path", "ca.crt");
  w.EndObject();
  w.EndArray();
  KV(w, "name", "kube-root-ca.crt");
  w.EndObject();
  w.EndObject();
  w.StartObject();
  w.Key("downwardAPI");
  w.StartObject();
  DownwardItem(w, "metadata.namespace", "namespace");
  w.EndObject();
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();
  w.EndArray();
}

// Preferred anti-affinity: members of one component of one cluster on different hosts.
void WriteFullAffinity(Writer& w, const FullPod& f) {
  w.Key("affinity");
  w.StartObject();
  w.Key("podAntiAffinity");
  w.StartObject();
  w.Key("preferredDuringSchedulingIgnoredDuringExecution");
  w.StartArray();
  w.StartObject();
  w.Key("podAffinityTerm");
  w.StartObject();
  w.Key("labelSelector");
  w.StartObject();
  w.Key("matchLabels");
  w.StartObject();
  KV(w, f.v2 ? "pingcap.com/cluster" : "app.kubernetes.io/instance", f.cluster);
  KV(w, f.v2 ? "pingcap.com/component" : "app.kubernetes.io/component", f.component);
  w.EndObject();
  w.EndObject();
  KV(w, "topologyKey", "kubernetes.io/hostname");
  w.EndObject();
  w.Key("weight");
  w.Int(100);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

void WriteTolerations(Writer& w) {
  w.Key("tolerations");
  w.StartArray();
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    w.StartObject();
    KV(w, "effect", "NoExecute");
    KV(w, "key", key);
    KV(w, "operator", "Exists");
    w.Key("tolerationSeconds");
    w.Int(300);
    w.EndObject();
  }
  w.EndArray();
}

// `full`: the container of a full pod (command, env, ports, probes, mounts, limits).
void WriteContainerSpec(Writer& w, const std::string& name, const std::string& image,
                        const std::string& component, bool init, const FullPod* full = nullptr) {
  w.StartObject();
  if (init && name == "ti-prestop-checker") {
    // tidb-operator v2's TiKV init container (pkg/controllers/tikv/tasks/pod.go).
    w.Key("command");
    w.StartArray();
    S(w, "/bin/sh");
    S(w, "-c");
    S(w, "cp /prestop-checker /prestop/;");
    w.EndArray();
  } else if (init) {
    w.Key("command");
    w.StartArray();
    S(w, "/wait-for-pd");
    S(w, component == "tidb" ? "--initialized" : "--leader");
    w.EndArray();
  } else if (full != nullptr) {
    WriteFullMain(w, *full, name);
  }
  KV(w, "image", image);
  KV(w, "imagePullPolicy", "IfNotPresent");
  KV(w, "name", name);
  if (full != nullptr && !init) WriteFullPorts(w, *full, name);
  w.Key("resources");
  w.StartObject();
  if (!init && name != "slowlog") {
    const char* cpu = component == "tikv" ? "4" : component == "pd" ? "1" : "2";
    const char* memory = component == "tikv" ? "16Gi" : component == "pd" ? "4Gi" : "8Gi";
    for (const char* k : {"limits", "requests"}) {
      if (full == nullptr && std::string_view(k) == "limits") continue;
      w.Key(k);
      w.StartObject();
      KV(w, "cpu", cpu);
      KV(w, "memory", memory);
      w.EndObject();
    }
  }
  w.EndObject();
  KV(w, "terminationMessagePath", "/dev/termination-log");
  KV(w, "terminationMessagePolicy", "File");
  if (full != nullptr) WriteFullMounts(w, *full, name, init);
  w.EndObject();
}

}  // namespace

uint64_t StableHash(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

bool ResolveTime(std::string_view text, Timestamp now, Timestamp* out) {
  if (text.size() > 3 && text.substr(0, 2) == "${" && text.back() == '}') {
    text = text.substr(2, text.size() - 3);
  }
  if (text.substr(0, 3) == "now") text = text.substr(3);
  if (text.empty()) {
    *out = now;
    return true;
  }
  if (text[0] == '-' || text[0] == '+') {
    auto d = ParseDuration(text.substr(1));
    if (!d) return false;
    *out = text[0] == '-' ? now - *d : now + *d;
    return true;
  }
  auto t = ParseRfc3339(text);
  if (!t) return false;
  *out = *t;
  return true;
}

void ExpandTimes(rapidjson::Value& v, rapidjson::Document::AllocatorType& alloc, Timestamp now) {
  if (v.IsObject()) {
    for (auto& m : v.GetObject()) ExpandTimes(m.value, alloc, now);
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray()) ExpandTimes(e, alloc, now);
  } else if (v.IsString()) {
    std::string_view s(v.GetString(), v.GetStringLength());
    if (s.find("${now") == std::string_view::npos) return;
    std::string out;
    size_t pos = 0;
    while (true) {
      size_t start = s.find("${now", pos);
      if (start == std::string_view::npos) break;
      size_t end = s.find('}', start);
      if (end == std::string_view::npos) break;
      Timestamp t;
      out.append(s.substr(pos, start - pos));
      if (ResolveTime(s.substr(start, end - start + 1), now, &t)) {
        out += FormatRfc3339(t / 1000 * 1000);
      } else {
        out.append(s.substr(start, end - start + 1));
      }
      pos = end + 1;
    }
    out.append(s.substr(pos));
    v.SetString(out.c_str(), static_cast<rapidjson::SizeType>(out.size()), alloc);
  }
}

namespace {

// What a pod shorthand expands into, decided before anything is written.
struct PodPlan {
  std::string ns, name, component, cluster;
  bool v2 = false;
  std::string v2_group, v2_instance;  // v2: the group and the instance CR that owns the pod
  std::string stage;
  Timestamp created = 0, scheduled_at = 0, initialized_at = 0, ready_at = 0, deleting = 0;
  Timestamp unsched_since = 0;  // lastTransitionTime of a False PodScheduled
  std::string version, image, slowlog_image;
  std::vector<std::string> inits, mains;
  bool full = false;  // the whole spec of a real tidb-operator pod and managedFields (FullPod)
  std::string node, pod_ip, host_ip;
  int64_t restarts = -1;
  bool scheduled = false, initialized = false, running_stage = false, crashloop = false;
  std::string reason, phase, uid;
  // A Failed pod: when it failed (Ready's lastTransitionTime, the containers' finishedAt), and
  // the kubelet's eviction message when the kubelet evicted it (status.reason Evicted).
  Timestamp failed_at = 0;
  std::string evicted;
};

// The pod's names: namespace, name, cluster and component (from a <cluster>-<component>-<n>
// name, or for a v2 pod <group>-<component>-<suffix>).
bool ResolvePodNames(const rapidjson::Value& spec, PodPlan* p, std::string* error) {
  p->ns = Str(spec, "namespace");
  p->name = Str(spec, "name");
  if (p->ns.empty() || p->name.empty()) {
    *error = "pod shorthand needs namespace and name";
    return false;
  }
  // tidb-operator v2 pods: named <group>-<component>-<suffix> after their instance CR
  // <group>-<suffix>, which owns them; labelled pingcap.com/* (plus, unless legacyLabels is false,
  // the deprecated app.kubernetes.io/* copies v2 still writes).
  p->v2 = Str(spec, "operator") == "v2";
  p->component = Str(spec, "component");
  p->cluster = Str(spec, "cluster");
  if (p->v2) {
    size_t last = p->name.rfind('-');
    size_t prev =
        last == std::string::npos || last == 0 ? std::string::npos : p->name.rfind('-', last - 1);
    if (prev == std::string::npos || p->cluster.empty()) {
      *error =
          "v2 pod shorthand " + p->name + ": give cluster and a <group>-<component>-<suffix> name";
      return false;
    }
    // The component is the longest v2 component the name's head ends with (tikv-worker,
    // dm-master: components with a '-'), else the segment before the suffix.
    const std::string head = p->name.substr(0, last);
    if (p->component.empty()) {
      for (const auto& k : kV2Kinds) {
        const std::string c = k.component;
        if (head.size() > c.size() + 1 && head.ends_with(c) &&
            head[head.size() - c.size() - 1] == '-' && c.size() > p->component.size()) {
          p->component = c;
        }
      }
      if (p->component.empty()) p->component = p->name.substr(prev + 1, last - prev - 1);
    }
    if (head.size() <= p->component.size() + 1 || !head.ends_with(p->component)) {
      *error = "v2 pod shorthand " + p->name + ": not <group>-" + p->component + "-<suffix>";
      return false;
    }
    p->v2_group = head.substr(0, head.size() - p->component.size() - 1);
    p->v2_instance = p->v2_group + p->name.substr(last);
  }
  if (p->component.empty() || p->cluster.empty()) {
    // "<cluster>-<component>-<ordinal>"
    size_t last = p->name.rfind('-');
    size_t prev =
        last == std::string::npos || last == 0 ? std::string::npos : p->name.rfind('-', last - 1);
    if (prev != std::string::npos) {
      if (p->component.empty()) p->component = p->name.substr(prev + 1, last - prev - 1);
      if (p->cluster.empty()) p->cluster = p->name.substr(0, prev);
    }
  }
  if (p->component.empty() || p->cluster.empty()) {
    *error = "pod shorthand " + p->name +
             ": give cluster and component (or a <cluster>-<component>-<n> name)";
    return false;
  }
  return true;
}

// The stage, times, containers, node and phase of the pod.
bool PlanPod(const rapidjson::Value& spec, Timestamp now, PodPlan* p, std::string* error) {
  // "evicted": the kubelet's message; the pod Failed with status.reason Evicted.
  p->evicted = Str(spec, "evicted");
  p->stage = Str(spec, "stage", p->evicted.empty() ? "ready" : "failed");
  static const char* const kStages[] = {"pending",   "unschedulable", "gated",   "init",
                                        "creating",  "waiting",       "running", "ready",
                                        "succeeded", "failed"};
  bool known = false;
  for (const char* s : kStages) known = known || p->stage == s;
  if (!known) {
    *error = "pod shorthand " + p->name + ": unknown stage " + p->stage;
    return false;
  }
  if (!TimeField(spec, "created", now, now, &p->created, error)) return false;
  if (!TimeField(spec, "scheduledAt", now, p->created + 1000, &p->scheduled_at, error))
    return false;
  if (!TimeField(spec, "initializedAt", now, p->scheduled_at + 2000, &p->initialized_at, error))
    return false;
  if (!TimeField(spec, "readyAt", now, p->initialized_at + 5000, &p->ready_at, error)) return false;
  if (!Str(spec, "deleting").empty() &&
      !TimeField(spec, "deleting", now, now, &p->deleting, error)) {
    return false;
  }
  if (!TimeField(spec, "since", now, p->created, &p->unsched_since, error)) return false;
  if (!TimeField(spec, "failedAt", now, now, &p->failed_at, error)) return false;

  p->version = Str(spec, "version", "v8.1.0");
  p->image = Str(spec, "image", "pingcap/" + p->component + ":" + p->version);
  p->inits = StrList(spec, "initContainers");
  if (Bool(spec, "waitForPd", false) &&
      std::find(p->inits.begin(), p->inits.end(), "wait-for-pd") == p->inits.end()) {
    p->inits.insert(p->inits.begin(), "wait-for-pd");
  }
  // "full": the whole spec of a real tidb-operator pod and managedFields (FullPod).
  p->full = Bool(spec, "full", false);
  p->mains = StrList(spec, "containers");
  if (p->mains.empty()) {
    p->mains.push_back(p->component);
    // tidb-operator v1 tails TiDB's slow log in a sidecar (spec.tidb.separateSlowLog, default on).
    if (p->full && !p->v2 && p->component == "tidb") p->mains.push_back("slowlog");
  }
  p->slowlog_image = "busybox:1.26.2";
  p->node = Str(spec, "node",
                "ip-10-0-" + std::to_string(StableHash(p->name) % 200) + "-" +
                    std::to_string(StableHash(p->ns + p->name) % 250 + 1) + ".ec2.internal");
  p->pod_ip = "10.1." + std::to_string(StableHash(p->name + "ip") % 250) + "." +
              std::to_string(StableHash(p->ns + p->name + "ip") % 250 + 1);
  p->host_ip = "10.0." + std::to_string(StableHash(p->node) % 250) + "." +
               std::to_string(StableHash(p->node + "h") % 250 + 1);
  p->restarts = Int(spec, "restarts", -1);
  p->scheduled = p->stage != "pending" && p->stage != "unschedulable" && p->stage != "gated";
  p->initialized = p->scheduled && p->stage != "init";
  p->running_stage = p->stage == "running" || p->stage == "ready";
  p->reason = Str(spec, "reason", p->stage == "waiting" ? "ContainerCreating" : "");
  p->crashloop = p->stage == "waiting" && p->reason == "CrashLoopBackOff";
  p->phase = Str(spec, "phase");
  if (p->phase.empty()) {
    if (p->stage == "succeeded")
      p->phase = "Succeeded";
    else if (p->stage == "failed")
      p->phase = "Failed";
    else if (p->running_stage || p->crashloop)
      p->phase = "Running";
    else
      p->phase = "Pending";
  }
  p->uid = Str(spec, "uid");
  return true;
}

void WritePodMetadata(Writer& w, const rapidjson::Value& spec, const PodPlan& p) {
  // metadata
  w.Key("metadata");
  w.StartObject();
  w.Key("annotations");
  w.StartObject();
  if (p.full) {
    KV(w, "prometheus.io/path", "/metrics");
    KV(w, "prometheus.io/port",
       std::to_string(p.component == "pd"     ? 2379
                      : p.component == "tikv" ? 20180
                                              : 10080));
  }
  KV(w, "prometheus.io/scrape", "true");
  CopyMap(w, Member(spec, "annotations"));
  w.EndObject();
  KT(w, "creationTimestamp", p.created);
  if (p.deleting) {
    w.Key("deletionGracePeriodSeconds");
    w.Int(30);
    KT(w, "deletionTimestamp", p.deleting);
  }
  if (!p.v2) KV(w, "generateName", p.cluster + "-" + p.component + "-");
  w.Key("labels");
  w.StartObject();
  if (!p.v2 || Bool(spec, "legacyLabels", true)) {
    KV(w, "app.kubernetes.io/component", p.component);
    KV(w, "app.kubernetes.io/instance", p.cluster);
    KV(w, "app.kubernetes.io/managed-by", "tidb-operator");
    // label.New()'s name; a DMCluster's pods say dm-cluster (label.NewDM()): `labels` sets it.
    const rapidjson::Value* extra = Member(spec, "labels");
    if (extra == nullptr || !extra->IsObject() || !extra->HasMember("app.kubernetes.io/name")) {
      KV(w, "app.kubernetes.io/name", "tidb-cluster");
    }
  }
  if (p.v2) {
    KV(w, "pingcap.com/cluster", p.cluster);
    KV(w, "pingcap.com/component", p.component);
    KV(w, "pingcap.com/group", p.v2_group);
    KV(w, "pingcap.com/instance", p.v2_instance);
    KV(w, "pingcap.com/instance-revision-hash", p.v2_group + "-6d8f7c9b5");
    KV(w, "pingcap.com/managed-by", "tidb-operator");
  } else {
    KV(w, "apps.kubernetes.io/pod-index", p.name.substr(p.name.rfind('-') + 1));
    KV(w, "statefulset.kubernetes.io/pod-name", p.name);
    // What tidb-operator v1 labels a member with once it joined its cluster.
    if (p.full && p.running_stage) {
      KV(w, "tidb.pingcap.com/cluster-id", std::to_string(PdClusterId(p.ns, p.cluster)));
      if (p.component == "pd") {
        KV(w, "tidb.pingcap.com/member-id",
           PdMemberId(
               p.ns, p.cluster,
               static_cast<size_t>(std::atoi(p.name.substr(p.name.rfind('-') + 1).c_str()))));
      } else if (p.component == "tikv") {
        KV(w, "tidb.pingcap.com/store-id",
           std::to_string(std::atoi(p.name.substr(p.name.rfind('-') + 1).c_str()) + 1));
      }
    }
  }
  CopyMap(w, Member(spec, "labels"));
  w.EndObject();
  KV(w, "name", p.name);
  KV(w, "namespace", p.ns);
  const rapidjson::Value* owner = Member(spec, "owner");
  if (!(owner && owner->IsBool() && !owner->GetBool())) {
    std::string default_kind = p.v2 ? V2InstanceKind(p.component) : "StatefulSet";
    std::string default_name = p.v2 ? p.v2_instance : p.cluster + "-" + p.component;
    std::string okind = owner ? Str(*owner, "kind", default_kind) : default_kind;
    std::string oname = owner ? Str(*owner, "name", default_name) : default_name;
    w.Key("ownerReferences");
    w.StartArray();
    w.StartObject();
    std::string oapi = okind == "StatefulSet"          ? "apps/v1"
                       : p.v2 && okind == default_kind ? "core.pingcap.com/v1alpha1"
                                                       : "v1";
    KV(w, "apiVersion", oapi);
    w.Key("blockOwnerDeletion");
    w.Bool(true);
    w.Key("controller");
    w.Bool(true);
    KV(w, "kind", okind);
    KV(w, "name", oname);
    KV(w, "uid",
       p.v2 && oapi != "v1"
           ? V2Uid(p.ns, okind, oname)
           : "5e1e0000-0000-4000-8000-" + Hex16(StableHash(p.ns + "/" + oname)).substr(4));
    w.EndObject();
    w.EndArray();
  }
  if (!p.uid.empty()) KV(w, "uid", p.uid);
  w.EndObject();
}

void WritePodSpec(Writer& w, const rapidjson::Value& spec, const PodPlan& p) {
  // spec
  FullPod full_pod;
  full_pod.ns = p.ns;
  full_pod.name = p.name;
  full_pod.cluster = p.cluster;
  full_pod.component = p.component;
  full_pod.group = p.v2 ? p.v2_group : p.cluster + "-" + p.component;
  full_pod.v2 = p.v2;
  full_pod.api_access = "kube-api-access-" + Hex16(StableHash(p.ns + p.name + "sa")).substr(0, 5);
  const FullPod* fp = p.full ? &full_pod : nullptr;
  w.Key("spec");
  w.StartObject();
  if (p.full) WriteFullAffinity(w, full_pod);
  w.Key("containers");
  w.StartArray();
  for (const auto& c : p.mains) {
    WriteContainerSpec(w, c, c == "slowlog" ? p.slowlog_image : p.image, p.component, false, fp);
  }
  w.EndArray();
  KV(w, "dnsPolicy", "ClusterFirst");
  if (p.full) {
    w.Key("enableServiceLinks");
    w.Bool(true);
  }
  KV(w, "hostname", p.name);
  if (!p.inits.empty()) {
    w.Key("initContainers");
    w.StartArray();
    for (const auto& c : p.inits) {
      WriteContainerSpec(w, c,
                         c == "wait-for-pd"                    ? "pingcap/wait-for-pd:v0.1.0"
                         : p.full && c == "ti-prestop-checker" ? "pingcap/prestop-checker:latest"
                                                               : p.image,
                         p.component, true, fp);
    }
    w.EndArray();
  }
  if (p.scheduled) KV(w, "nodeName", p.node);
  if (p.full) KV(w, "preemptionPolicy", "PreemptLowerPriority");
  w.Key("priority");
  w.Int(0);
  KV(w, "restartPolicy", "Always");
  if (p.stage == "gated") {
    w.Key("schedulingGates");
    w.StartArray();
    w.StartObject();
    KV(w, "name", Str(spec, "gate", "example.com/gate"));
    w.EndObject();
    w.EndArray();
  }
  KV(w, "schedulerName", "default-scheduler");
  if (p.full) {
    w.Key("securityContext");
    w.StartObject();
    w.EndObject();
    KV(w, "serviceAccount", "default");
  }
  KV(w, "serviceAccountName", "default");
  KV(w, "subdomain", (p.v2 ? p.v2_group : p.cluster) + "-" + p.component + "-peer");
  w.Key("terminationGracePeriodSeconds");
  w.Int(30);
  if (p.full) {
    WriteTolerations(w);
    WriteFullVolumes(w, full_pod);
  }
  w.EndObject();
}

void WritePodConditions(Writer& w, const rapidjson::Value& spec, const PodPlan& p) {
  if (p.stage != "pending") {
    w.Key("conditions");
    w.StartArray();
    if (!p.scheduled) {
      if (p.stage == "gated") {
        Condition(w, "PodScheduled", false, p.unsched_since, "SchedulingGated",
                  "Scheduling is blocked due to non-empty scheduling gates");
      } else {
        Condition(w, "PodScheduled", false, p.unsched_since, "Unschedulable",
                  Str(spec, "message",
                      "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are "
                      "available: 3 No preemption victims found for incoming pod."));
      }
    } else {
      size_t init_index = static_cast<size_t>(Int(spec, "initIndex", 0));
      std::vector<std::string> pending_inits;
      if (!p.initialized) {
        for (size_t i = init_index; i < p.inits.size(); ++i) pending_inits.push_back(p.inits[i]);
      }
      bool ready = p.stage == "ready";
      // pkg/kubelet/status/generate.go: PodCompleted for a Succeeded pod only; a Failed one's
      // containers are not ready (ContainersNotReady) since it failed.
      bool done = p.stage == "succeeded";
      bool failed = p.stage == "failed";
      std::string unready = "containers with unready status: [" + Join(p.mains) + "]";
      // pkg/kubelet/eviction/eviction_manager.go (evictPod): DisruptionTarget True
      // TerminationByKubelet with the eviction message.
      if (failed && !p.evicted.empty()) {
        Condition(w, "DisruptionTarget", true, p.failed_at, "TerminationByKubelet", p.evicted);
      }
      if (p.initialized) {
        Condition(w, "Initialized", true, p.initialized_at, done ? "PodCompleted" : "", "");
      } else {
        Condition(w, "Initialized", false, p.scheduled_at, "ContainersNotInitialized",
                  "containers with incomplete status: [" + Join(pending_inits) + "]");
      }
      const Timestamp unready_at = failed ? p.failed_at : p.scheduled_at;
      Condition(w, "Ready", ready, ready ? p.ready_at : unready_at,
                ready  ? ""
                : done ? "PodCompleted"
                       : "ContainersNotReady",
                ready || done ? "" : unready);
      Condition(w, "ContainersReady", ready, ready ? p.ready_at : unready_at,
                ready  ? ""
                : done ? "PodCompleted"
                       : "ContainersNotReady",
                ready || done ? "" : unready);
      Condition(w, "PodScheduled", true, p.scheduled_at, "", "");
    }
    w.EndArray();
  }
}

void WriteMainStatuses(Writer& w, const rapidjson::Value& spec, Timestamp now, const PodPlan& p) {
  std::string message = Str(spec, "containerMessage");
  w.Key("containerStatuses");
  w.StartArray();
  for (const auto& c : p.mains) {
    ContainerState st;
    st.name = c;
    st.image = c == "slowlog" ? p.slowlog_image : p.image;
    st.id = "containerd://" + Hex16(StableHash(p.ns + p.name + c)) + Hex16(StableHash(c + p.name));
    if (!p.initialized) {
      st.reason = "PodInitializing";
    } else if (p.stage == "creating") {
      st.reason = "ContainerCreating";
    } else if (p.stage == "waiting") {
      st.reason = p.reason;
      st.message = message;
      if (p.crashloop) {
        st.restarts = p.restarts < 0 ? 5 : p.restarts;
        st.crashed_before = true;
        st.started_at = now - 90 * 1000;
        st.finished_at = now - 60 * 1000;
        if (st.message.empty()) {
          st.message = "back-off 5m0s restarting failed container=" + c + " pod=" + p.name + "_" +
                       p.ns + "(" + (p.uid.empty() ? "uid" : p.uid) + ")";
        }
      } else if (p.reason == "ImagePullBackOff" && st.message.empty()) {
        st.message = "Back-off pulling image \"" + p.image + "\"";
      }
    } else if (p.running_stage) {
      st.kind = ContainerState::kRunning;
      st.started = true;
      st.ready = p.stage == "ready";
      st.started_at = p.initialized_at + 1000;
      if (p.restarts > 0) st.restarts = p.restarts;
    } else {  // succeeded / failed
      st.kind = ContainerState::kTerminated;
      st.started_at = p.initialized_at + 1000;
      st.finished_at = p.stage == "failed" ? p.failed_at : now;
      // An evicted container is killed (SIGKILL after its grace: 137).
      st.exit_code = p.stage == "failed" ? (p.evicted.empty() ? 1 : 137) : 0;
      st.reason = p.stage == "failed" ? "Error" : "Completed";
    }
    WriteContainerStatus(w, st, false);
  }
  w.EndArray();
}

void WriteInitStatuses(Writer& w, const rapidjson::Value& spec, Timestamp now, const PodPlan& p) {
  if (!p.inits.empty()) {
    size_t init_index = static_cast<size_t>(Int(spec, "initIndex", 0));
    std::string init_state = Str(spec, "initState", "running");
    w.Key("initContainerStatuses");
    w.StartArray();
    for (size_t i = 0; i < p.inits.size(); ++i) {
      ContainerState st;
      st.name = p.inits[i];
      st.image = p.inits[i] == "wait-for-pd"                    ? "pingcap/wait-for-pd:v0.1.0"
                 : p.full && p.inits[i] == "ti-prestop-checker" ? "pingcap/prestop-checker:latest"
                                                                : p.image;
      st.id = "containerd://" + Hex16(StableHash(p.ns + p.name + p.inits[i])) +
              Hex16(StableHash(p.inits[i] + p.name));
      if (p.initialized || i < init_index) {
        st.kind = ContainerState::kTerminated;
        st.reason = "Completed";
        st.started_at = p.scheduled_at + 1000;
        st.finished_at = p.initialized_at;
      } else if (i == init_index) {
        if (init_state == "running") {
          st.kind = ContainerState::kRunning;
          st.started_at = p.scheduled_at + 1000;
        } else {
          st.reason = init_state;
          if (init_state == "CrashLoopBackOff") {
            st.restarts = p.restarts < 0 ? 5 : p.restarts;
            st.crashed_before = true;
            st.started_at = now - 90 * 1000;
            st.finished_at = now - 60 * 1000;
            st.message = "back-off 5m0s restarting failed container=" + p.inits[i] +
                         " pod=" + p.name + "_" + p.ns + "(" + (p.uid.empty() ? "uid" : p.uid) +
                         ")";
          }
        }
      } else {
        st.reason = "PodInitializing";
      }
      WriteContainerStatus(w, st, true);
    }
    w.EndArray();
  }
}

void WritePodStatus(Writer& w, const rapidjson::Value& spec, Timestamp now, const PodPlan& p) {
  w.Key("status");
  w.StartObject();
  WritePodConditions(w, spec, p);
  if (p.scheduled) {
    WriteMainStatuses(w, spec, now, p);
    KV(w, "hostIP", p.host_ip);
    WriteInitStatuses(w, spec, now, p);
  }
  if (!Str(spec, "nominatedNode").empty()) KV(w, "nominatedNodeName", Str(spec, "nominatedNode"));
  if (!p.evicted.empty()) KV(w, "message", p.evicted);
  KV(w, "phase", p.phase);
  if (p.scheduled) {
    KV(w, "podIP", p.pod_ip);
    w.Key("podIPs");
    w.StartArray();
    w.StartObject();
    KV(w, "ip", p.pod_ip);
    w.EndObject();
    w.EndArray();
  }
  KV(w, "qosClass", "Burstable");
  if (!p.evicted.empty()) KV(w, "reason", "Evicted");
  if (p.scheduled) KT(w, "startTime", p.scheduled_at);
  w.EndObject();
}

}  // namespace

bool ExpandPod(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
               std::string* error) {
  PodPlan p;
  if (!ResolvePodNames(spec, &p, error) || !PlanPod(spec, now, &p, error)) return false;
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "kind", "Pod");
  WritePodMetadata(w, spec, p);
  WritePodSpec(w, spec, p);
  WritePodStatus(w, spec, now, p);
  w.EndObject();
  if (!Finish(sb, out, error)) return false;
  if (p.full) AddManagedFields(out, now, 2);
  return true;
}

bool ExpandEvent(const rapidjson::Value& spec, Timestamp now, const PodUidLookup& lookup,
                 rapidjson::Document* out, std::string* error) {
  std::string ns = Str(spec, "namespace");
  std::string pod = Str(spec, "pod");
  std::string reason = Str(spec, "reason");
  if (ns.empty() || pod.empty() || reason.empty()) {
    *error = "event shorthand needs namespace, pod and reason";
    return false;
  }
  std::string source = Str(spec, "source");
  std::string type = Str(spec, "type");
  std::string message = Str(spec, "message");
  if (reason == "FailedScheduling" || reason == "Scheduled") {
    if (source.empty()) source = "default-scheduler";
    if (type.empty()) type = reason == "Scheduled" ? "Normal" : "Warning";
    if (message.empty()) {
      message =
          reason == "Scheduled"
              ? "Successfully assigned " + ns + "/" + pod + " to " + Str(spec, "node", "node-1")
              : "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are "
                "available: 3 No preemption victims found for incoming pod.";
    }
  } else if (reason == "TriggeredScaleUp") {
    if (source.empty()) source = "cluster-autoscaler";
    if (message.empty()) message = "pod triggered scale-up: [{eks-tikv-ng 3->4 (max: 10)}]";
  } else if (reason == "NotTriggerScaleUp") {
    if (source.empty()) source = "cluster-autoscaler";
    if (message.empty()) message = "pod didn't trigger scale-up: 1 max node group size reached";
  } else if (reason == "Nominated") {
    if (source.empty()) source = "karpenter";
    if (message.empty()) message = "Pod should schedule on: nodeclaim/default-x7k2p";
  }
  if (source.empty()) source = "kubelet";
  if (type.empty()) type = "Normal";
  if (message.empty()) message = reason;
  Timestamp first, last;
  if (!TimeField(spec, "first", now, now, &first, error)) return false;
  if (!TimeField(spec, "last", now, first, &last, error)) return false;
  int64_t count = Int(spec, "count", 1);
  // The scheduler writes events.k8s.io/v1 events (eventTime, series, reportingController; no
  // source, no first/lastTimestamp); client-go's old recorder (cluster-autoscaler, karpenter,
  // kubelet) writes core/v1 events.
  std::string style = Str(spec, "style", source == "default-scheduler" ? "events.k8s.io" : "core");
  std::string uid = Str(spec, "podUid");
  if (uid.empty() && lookup) uid = lookup(ns, pod);
  std::string name =
      Str(spec, "name", pod + "." + Hex16(StableHash(ns + pod + reason + message)).substr(0, 16));

  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "kind", "Event");
  w.Key("metadata");
  w.StartObject();
  KT(w, "creationTimestamp", first);
  KV(w, "name", name);
  KV(w, "namespace", ns);
  w.EndObject();
  w.Key("involvedObject");
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "kind", "Pod");
  KV(w, "name", pod);
  KV(w, "namespace", ns);
  if (!uid.empty()) KV(w, "uid", uid);
  w.EndObject();
  KV(w, "reason", reason);
  KV(w, "message", message);
  KV(w, "type", type);
  if (style == "core") {
    w.Key("source");
    w.StartObject();
    KV(w, "component", source);
    w.EndObject();
    KT(w, "firstTimestamp", first);
    KT(w, "lastTimestamp", last);
    w.Key("count");
    w.Int64(count);
    w.Key("eventTime");
    w.Null();
    KV(w, "reportingComponent", source);
    KV(w, "reportingInstance", "");
  } else {
    w.Key("source");
    w.StartObject();
    w.EndObject();
    w.Key("firstTimestamp");
    w.Null();
    w.Key("lastTimestamp");
    w.Null();
    char micro[40];
    std::string base = FormatRfc3339(first / 1000 * 1000);  // "...Z"
    std::snprintf(micro, sizeof(micro), "%s.%06dZ", base.substr(0, base.size() - 1).c_str(),
                  static_cast<int>(StableHash(name) % 1000000));
    KV(w, "eventTime", micro);
    KV(w, "action", reason == "Scheduled" ? "Binding" : "Scheduling");
    KV(w, "reportingComponent", source);
    KV(w, "reportingInstance", source + "-" + Str(spec, "instance", "control-plane"));
    if (count > 1) {
      w.Key("series");
      w.StartObject();
      w.Key("count");
      w.Int64(count);
      std::string lb = FormatRfc3339(last / 1000 * 1000);
      KV(w, "lastObservedTime", lb.substr(0, lb.size() - 1) + ".000000Z");
      w.EndObject();
    }
  }
  w.EndObject();
  return Finish(sb, out, error);
}

namespace {

// Members a "healthy" field selects: true/false, a count, or a list of names.
bool Healthy(const rapidjson::Value* h, size_t index, const std::string& name) {
  if (!h) return true;
  if (h->IsBool()) return h->GetBool();
  if (h->IsNumber()) return static_cast<int64_t>(index) < h->GetInt64();
  if (h->IsArray()) {
    for (const auto& e : h->GetArray()) {
      if (e.IsString() && name == e.GetString()) return true;
    }
    return false;
  }
  return true;
}

std::string MemberId(const std::string& ns, const std::string& cluster, size_t i) {
  // Full-range uint64 ids like PD's; every third one is above INT64_MAX.
  uint64_t id = StableHash(ns + "/" + cluster + "/pd/" + std::to_string(i));
  if (i % 3 == 2)
    id |= 0x8000000000000000ULL;
  else
    id &= 0x7fffffffffffffffULL;
  return std::to_string(id);
}

}  // namespace

std::string PdMemberId(const std::string& ns, const std::string& cluster, size_t i) {
  return MemberId(ns, cluster, i);
}

uint64_t PdClusterId(const std::string& ns, const std::string& cluster) {
  return StableHash(ns + "/" + cluster) & 0x7fffffffffffffffULL;
}

bool ExpandTidbCluster(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
                       std::string* error) {
  std::string ns = Str(spec, "namespace");
  std::string name = Str(spec, "name");
  if (ns.empty() || name.empty()) {
    *error = "tidbcluster shorthand needs namespace and name";
    return false;
  }
  std::string version = Str(spec, "version", "v8.1.0");
  Timestamp created;
  if (!TimeField(spec, "created", now, now, &created, error)) return false;
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* pd = Member(spec, "pd");
  const rapidjson::Value* tikv = Member(spec, "tikv");
  const rapidjson::Value* tidb = Member(spec, "tidb");
  const rapidjson::Value* tiflash = Member(spec, "tiflash");
  const rapidjson::Value& pds = pd ? *pd : kEmpty;
  const rapidjson::Value& tikvs = tikv ? *tikv : kEmpty;
  const rapidjson::Value& tidbs = tidb ? *tidb : kEmpty;
  int64_t pd_replicas = Int(pds, "replicas", 3);
  std::string peer_suffix = "." + name + "-pd-peer." + ns + ".svc:2379";

  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  KV(w, "apiVersion", "pingcap.com/v1alpha1");
  KV(w, "kind", "TidbCluster");
  w.Key("metadata");
  w.StartObject();
  KT(w, "creationTimestamp", created);
  w.Key("generation");
  w.Int(1);
  KV(w, "name", name);
  KV(w, "namespace", ns);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  auto comp_spec = [&](const char* comp, const rapidjson::Value& s, int64_t def) {
    w.Key(comp);
    w.StartObject();
    KV(w, "baseImage", std::string("pingcap/") + comp);
    w.Key("replicas");
    w.Int64(Int(s, "replicas", def));
    w.EndObject();
  };
  comp_spec("pd", pds, 3);
  comp_spec("tikv", tikvs, 3);
  comp_spec("tidb", tidbs, 2);
  if (tiflash) comp_spec("tiflash", *tiflash, 1);
  KV(w, "version", version);
  w.EndObject();

  w.Key("status");
  w.StartObject();
  KV(w, "clusterID", std::to_string(StableHash(ns + "/" + name) & 0x7fffffffffffffffULL));
  // pd
  // status.<component>.image: what `kubectl get tc` shows in the PD, TiKV and TiDB columns.
  auto status_image = [&](const char* comp) {
    KV(w, "image", std::string("pingcap/") + comp + ":" + version);
  };
  w.Key("pd");
  w.StartObject();
  status_image("pd");
  const rapidjson::Value* healthy = Member(pds, "healthy");
  std::string leader = Str(pds, "leader", name + "-pd-0");
  const rapidjson::Value* leader_v = Member(pds, "leader");
  bool has_leader = !(leader_v && leader_v->IsNull()) &&
                    !(leader_v && leader_v->IsBool() && !leader_v->GetBool());
  auto write_member = [&](size_t i, const std::string& mname) {
    w.StartObject();
    KV(w, "clientURL", "http://" + mname + peer_suffix);
    w.Key("health");
    w.Bool(Healthy(healthy, i, mname));
    KV(w, "id", MemberId(ns, name, i));
    KT(w, "lastTransitionTime", created);
    KV(w, "name", mname);
    w.EndObject();
  };
  if (has_leader) {
    size_t li = 0;
    for (size_t i = 0; i < static_cast<size_t>(pd_replicas); ++i) {
      if (name + "-pd-" + std::to_string(i) == leader) li = i;
    }
    w.Key("leader");
    write_member(li, leader);
  }
  w.Key("members");
  w.StartObject();
  for (size_t i = 0; i < static_cast<size_t>(pd_replicas); ++i) {
    std::string mname = name + "-pd-" + std::to_string(i);
    w.Key(mname.c_str());
    write_member(i, mname);
  }
  w.EndObject();
  auto failures = [&](const rapidjson::Value& s, const char* key, const char* out_key,
                      bool stores) {
    const rapidjson::Value* f = Member(s, key);
    if (!f || !f->IsArray()) return true;
    w.Key(out_key);
    w.StartObject();
    for (const auto& e : f->GetArray()) {
      std::string pod = Str(e, "pod");
      std::string store_id = Str(e, "storeId", "1");
      Timestamp at;
      if (!TimeField(e, "createdAt", now, now, &at, error)) return false;
      w.Key(stores ? store_id.c_str() : pod.c_str());
      w.StartObject();
      KT(w, "createdAt", at);
      if (!stores && std::string(out_key) == "failureMembers" && &s == &pds) {
        KV(w, "memberID", MemberId(ns, name, pod.empty() ? 0 : StableHash(pod) % 7));
        w.Key("memberDeleted");
        w.Bool(Bool(e, "memberDeleted", false));
        KV(w, "pvcUID", "");
      }
      KV(w, "podName", pod);
      if (stores) KV(w, "storeID", store_id);
      w.EndObject();
    }
    w.EndObject();
    return true;
  };
  if (!failures(pds, "failureMembers", "failureMembers", false)) return false;
  KV(w, "phase", Str(pds, "phase", "Normal"));
  w.Key("synced");
  w.Bool(true);
  w.EndObject();
  // tikv / tiflash
  auto store_comp = [&](const char* comp, const rapidjson::Value& s) {
    w.Key(comp);
    w.StartObject();
    status_image(comp);
    if (!failures(s, "failureStores", "failureStores", true)) return false;
    KV(w, "phase", Str(s, "phase", "Normal"));
    w.Key("stores");
    w.StartObject();
    const rapidjson::Value* st = Member(s, "stores");
    if (st && st->IsArray()) {
      for (const auto& e : st->GetArray()) {
        std::string id = Str(e, "id");
        if (id.empty() && Member(e, "id") && Member(e, "id")->IsNumber()) {
          id = std::to_string(Int(e, "id", 0));
        }
        std::string pod = Str(e, "pod", Str(e, "podName"));
        w.Key(id.c_str());
        w.StartObject();
        KV(w, "id", id);
        KV(w, "ip", pod + "." + name + "-" + comp + "-peer." + ns + ".svc");
        KT(w, "lastTransitionTime", created);
        w.Key("leaderCount");
        w.Int(0);
        KV(w, "podName", pod);
        KV(w, "state", Str(e, "state", "Up"));
        w.EndObject();
      }
    }
    w.EndObject();
    w.Key("synced");
    w.Bool(true);
    w.EndObject();
    return true;
  };
  if (!store_comp("tikv", tikvs)) return false;
  if (tiflash && !store_comp("tiflash", *tiflash)) return false;
  // tidb
  w.Key("tidb");
  w.StartObject();
  status_image("tidb");
  if (!failures(tidbs, "failureMembers", "failureMembers", false)) return false;
  KV(w, "phase", Str(tidbs, "phase", "Normal"));
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return Finish(sb, out, error);
}

namespace {

void V2Condition(Writer& w, const char* type, bool status, const std::string& reason,
                 const std::string& message, Timestamp ltt) {
  w.StartObject();
  KT(w, "lastTransitionTime", ltt);
  KV(w, "message", message);
  w.Key("observedGeneration");
  w.Int(1);
  KV(w, "reason", reason);
  KV(w, "status", status ? "True" : "False");
  KV(w, "type", type);
  w.EndObject();
}

}  // namespace

bool ExpandV2(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
              std::string* error) {
  std::string kind = Str(spec, "kind");
  std::string ns = Str(spec, "namespace");
  std::string name = Str(spec, "name");
  std::string cluster = Str(spec, "cluster");
  const V2KindRow* row = nullptr;
  bool group = false;
  for (const auto& k : kV2Kinds) {
    if (kind == k.instance || kind == k.group) {
      row = &k;
      group = kind == k.group;
    }
  }
  if (ns.empty() || name.empty() || (kind != "Cluster" && (row == nullptr || cluster.empty()))) {
    *error =
        "v2 shorthand needs kind (Cluster, a group or an instance kind), namespace, name and "
        "(but for a Cluster) cluster";
    return false;
  }
  Timestamp created, since;
  if (!TimeField(spec, "created", now, now, &created, error)) return false;
  if (!TimeField(spec, "since", now, now, &since, error)) return false;
  std::string owner_group = Str(spec, "group", name.substr(0, name.rfind('-')));

  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  KV(w, "apiVersion", "core.pingcap.com/v1alpha1");
  KV(w, "kind", kind);
  w.Key("metadata");
  w.StartObject();
  KT(w, "creationTimestamp", created);
  w.Key("finalizers");
  w.StartArray();
  S(w, "pingcap.com/finalizer");
  w.EndArray();
  w.Key("generation");
  w.Int(1);
  if (row != nullptr) {
    w.Key("labels");
    w.StartObject();
    KV(w, "pingcap.com/cluster", cluster);
    KV(w, "pingcap.com/component", row->component);
    KV(w, "pingcap.com/group", group ? name : owner_group);
    if (!group) {
      KV(w, "pingcap.com/instance-revision-hash", owner_group + "-6d8f7c9b5");
      KV(w, "pingcap.com/managed-by", "tidb-operator");
    }
    w.EndObject();
  }
  KV(w, "name", name);
  KV(w, "namespace", ns);
  if (row != nullptr && !group) {
    w.Key("ownerReferences");
    w.StartArray();
    w.StartObject();
    KV(w, "apiVersion", "core.pingcap.com/v1alpha1");
    w.Key("blockOwnerDeletion");
    w.Bool(true);
    w.Key("controller");
    w.Bool(true);
    KV(w, "kind", row->group);
    KV(w, "name", owner_group);
    KV(w, "uid", V2Uid(ns, row->group, owner_group));
    w.EndObject();
    w.EndArray();
  }
  KV(w, "uid", V2Uid(ns, kind, name));
  w.EndObject();

  w.Key("spec");
  w.StartObject();
  if (row != nullptr) {
    w.Key("cluster");
    w.StartObject();
    KV(w, "name", cluster);
    w.EndObject();
  }
  // api/core/v1alpha1/pd_types.go: a PDGroup's mode (PDTemplateSpec.Mode, "ms": microservices).
  const std::string pd_mode = kind == "PDGroup" ? Str(spec, "mode") : "";
  if (group) {
    w.Key("replicas");
    w.Int64(Int(spec, "replicas", 3));
    if (!pd_mode.empty()) {
      w.Key("template");
      w.StartObject();
      w.Key("spec");
      w.StartObject();
      KV(w, "mode", pd_mode);
      KV(w, "version", Str(spec, "version", "v8.5.2"));
      w.EndObject();
      w.EndObject();
    }
  } else if (row != nullptr) {
    KV(w, "subdomain", owner_group + "-" + row->component + "-peer");
    KV(w, "version", Str(spec, "version", "v8.5.2"));
  } else {
    if (Bool(spec, "tls", false)) {
      w.Key("tlsCluster");
      w.StartObject();
      w.Key("enabled");
      w.Bool(true);
      w.EndObject();
    }
    // cluster_types.go: spec.paused, spec.suspendAction.suspendCompute.
    if (Bool(spec, "paused", false)) {
      w.Key("paused");
      w.Bool(true);
    }
    if (Bool(spec, "suspendCompute", false)) {
      w.Key("suspendAction");
      w.StartObject();
      w.Key("suspendCompute");
      w.Bool(true);
      w.EndObject();
    }
  }
  w.EndObject();

  w.Key("status");
  w.StartObject();
  w.Key("conditions");
  w.StartArray();
  if (kind == "Cluster") {
    bool available = Bool(spec, "available", false);
    V2Condition(w, "Available", available, "ClusterAvailable",
                available ? "Cluster is available" : "Cluster is not available", since);
    V2Condition(w, "Progressing", true, "ClusterCreation", "Cluster is being created", created);
    // pkg/controllers/cluster/tasks/status.go: Suspended, reason ClusterSuspend, True once every
    // group is suspended, "suspending" before.
    const bool suspend = Bool(spec, "suspendCompute", false);
    const bool suspended = suspend && Bool(spec, "suspended", false);
    V2Condition(w, "Suspended", suspended, "ClusterSuspend",
                suspended ? "Cluster is suspended"
                : suspend ? "Cluster is suspending"
                          : "Cluster is not suspended",
                suspend ? since : created);
  } else if (group) {
    int64_t replicas = Int(spec, "replicas", 3);
    bool ready = Int(spec, "readyReplicas", 0) == replicas;
    V2Condition(w, "Ready", ready, ready ? "Ready" : "NotAllInstancesReady",
                ready ? "all subreources are ready" : "not all instances are ready", since);
    V2Condition(w, "Synced", true, "Synced", "all subreources are synced", created);
    // pkg/controllers/pdgroup/tasks/mode_switch.go: ModeSwitching=True with the step's reason.
    if (std::string step = Str(spec, "modeSwitching"); !step.empty()) {
      V2Condition(w, "ModeSwitching", true, step, "PD mode switch: " + step, since);
    }
  } else {
    bool ready = Bool(spec, "ready", false);
    std::string reason = ready ? "Ready" : Str(spec, "reason", "PodNotReady");
    V2Condition(w, "Ready", ready, reason,
                ready                            ? "all subreources are ready"
                : reason == "InstanceNotHealthy" ? "instance is not probed as healthy"
                                                 : "pod of the instance is not ready",
                since);
    V2Condition(w, "Synced", true, "Synced", "all subreources are synced", created);
    // pkg/controllers/tikv/tasks/evict_leader.go: LeadersEvicted, True/Evicted or False/Evicting.
    if (std::string e = Str(spec, "leadersEvicted"); !e.empty()) {
      V2Condition(w, "LeadersEvicted", e == "Evicted", e,
                  e == "Evicted" ? "all leaders are evicted" : "not all leaders are evicted",
                  since);
    }
    // pkg/controllers/common/store_offline.go: Offlined, True/Completed or False/Processing, ...
    if (std::string o = Str(spec, "offlined"); !o.empty()) {
      V2Condition(w, "Offlined", o == "Completed", o,
                  o == "Completed" ? "store has been removed" : "store is removing", since);
    }
  }
  w.EndArray();
  if (kind == "Cluster") {
    KV(w, "id", Str(spec, "id"));
    std::string scheme = Bool(spec, "tls", false) ? "https" : "http";
    KV(w, "pd",
       Str(spec, "pd", scheme + "://" + Str(spec, "pdGroup", "pd") + "-pd." + ns + ":2379"));
  } else if (group) {
    // PDGroupStatus.Mode: the mode reached, written when a switch completes
    // (pkg/controllers/pdgroup/tasks/mode_switch.go setModeSwitchComplete): `statusMode`, else the
    // asked mode unless a switch is under way.
    const std::string status_mode =
        Str(spec, "statusMode", Str(spec, "modeSwitching").empty() ? pd_mode : "");
    if (!status_mode.empty()) KV(w, "mode", status_mode);
    w.Key("readyReplicas");
    w.Int64(Int(spec, "readyReplicas", 0));
    w.Key("replicas");
    w.Int64(Int(spec, "replicas", 3));
  } else {
    if (!Str(spec, "storeId").empty()) KV(w, "id", Str(spec, "storeId"));
    if (!Str(spec, "storeState").empty()) KV(w, "state", Str(spec, "storeState"));
  }
  w.Key("observedGeneration");
  w.Int(1);
  w.EndObject();
  w.EndObject();
  return Finish(sb, out, error);
}

namespace {

// A ConfigMap document up to its open metadata.annotations object.
void BeginConfigMapAnnotations(Writer& w) {
  w.StartObject();
  KV(w, "apiVersion", "v1");
  KV(w, "kind", "ConfigMap");
  w.Key("metadata");
  w.StartObject();
  w.Key("annotations");
  w.StartObject();
}

}  // namespace

bool ExpandConfigMap(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
                     std::string* error) {
  std::string ns = Str(spec, "namespace");
  std::string name = Str(spec, "name");
  if (ns.empty() || name.empty()) {
    *error = "configmap shorthand needs namespace and name";
    return false;
  }
  rapidjson::StringBuffer sb;
  Writer w(sb);
  BeginConfigMapAnnotations(w);
  CopyMap(w, Member(spec, "annotations"));
  w.EndObject();
  KT(w, "creationTimestamp", now);
  KV(w, "name", name);
  KV(w, "namespace", ns);
  w.EndObject();
  w.Key("data");
  w.StartObject();
  CopyMap(w, Member(spec, "data"));
  w.EndObject();
  w.EndObject();
  return Finish(sb, out, error);
}

bool ExpandAutoscalerStatus(const rapidjson::Value& spec, Timestamp now, rapidjson::Document* out,
                            std::string* error) {
  // Made up, following the shape of cluster-autoscaler's status ConfigMap: the plain-text report
  // of CA < 1.30 ("text") and the YAML report of CA >= 1.30 ("yaml").
  std::string format = Str(spec, "format", "yaml");
  std::string scale_up = Str(spec, "scaleUp", "NoActivity");
  std::string group = Str(spec, "nodeGroup", "eks-tikv-ng");
  int64_t ready = Int(spec, "ready", 3);
  int64_t target = Int(spec, "target", scale_up == "InProgress" ? ready + 1 : ready);
  int64_t max_size = Int(spec, "maxSize", 10);
  Timestamp since;
  if (!TimeField(spec, "since", now, now - 60 * 1000, &since, error)) return false;
  std::string t_now = FormatRfc3339(now / 1000 * 1000);
  std::string t_since = FormatRfc3339(since / 1000 * 1000);
  auto go_time = [](const std::string& rfc) {  // "2024-01-02 03:04:05.123456789 +0000 UTC"
    return rfc.substr(0, 10) + " " + rfc.substr(11, 8) + ".000000000 +0000 UTC";
  };
  std::string status;
  std::string counts = "ready=" + std::to_string(ready) +
                       " unready=0 (resourceUnready=0) notStarted=0 longNotStarted=0 registered=" +
                       std::to_string(ready) + " longUnregistered=0";
  if (format == "text") {
    std::string cw_scale = scale_up == "Backoff" ? "NoActivity" : scale_up;
    status = "Cluster-autoscaler status at " + go_time(t_now) +
             ":\nCluster-wide:\n  Health:      Healthy (" + counts +
             ")\n               LastProbeTime:      " + go_time(t_now) +
             "\n               LastTransitionTime: " + go_time(t_since) +
             "\n  ScaleUp:     " + cw_scale + " (ready=" + std::to_string(ready) +
             " registered=" + std::to_string(ready) +
             ")\n               LastProbeTime:      " + go_time(t_now) +
             "\n               LastTransitionTime: " + go_time(t_since) +
             "\n  ScaleDown:   NoCandidates (candidates=0)\n               LastProbeTime:      " +
             go_time(t_now) + "\n               LastTransitionTime: " + go_time(t_since) +
             "\n\nNodeGroups:\n  Name:        " + group + "\n  Health:      " +
             (scale_up == "Backoff" ? std::string("Unhealthy") : std::string("Healthy")) + " (" +
             counts + " cloudProviderTarget=" + std::to_string(target) +
             " (minSize=1, maxSize=" + std::to_string(max_size) +
             "))\n               LastProbeTime:      " + go_time(t_now) +
             "\n               LastTransitionTime: " + go_time(t_since) +
             "\n  ScaleUp:     " + scale_up + " (ready=" + std::to_string(ready) +
             " cloudProviderTarget=" + std::to_string(target) +
             ")\n               LastProbeTime:      " + go_time(t_now) +
             "\n               LastTransitionTime: " + go_time(t_since) + "\n";
  } else {
    std::string cw_scale = scale_up == "Backoff" ? "NoActivity" : scale_up;
    std::string nodes =
        "      registered:\n        total: " + std::to_string(ready) +
        "\n        ready: " + std::to_string(ready) +
        "\n        notStarted: 0\n      longUnregistered: 0\n      unregistered: 0\n";
    status = "time: " + go_time(t_now) +
             "\nautoscalerStatus: Running\nclusterWide:\n  health:\n    status: Healthy\n    "
             "nodeCounts:\n" +
             nodes + "    lastProbeTime: \"" + t_now + "\"\n    lastTransitionTime: \"" + t_since +
             "\"\n  scaleUp:\n    status: " + cw_scale + "\n    lastProbeTime: \"" + t_now +
             "\"\n    lastTransitionTime: \"" + t_since +
             "\"\n  scaleDown:\n    status: NoCandidates\n    lastProbeTime: \"" + t_now +
             "\"\n    lastTransitionTime: \"" + t_since + "\"\nnodeGroups:\n- name: " + group +
             "\n  health:\n    status: " + (scale_up == "Backoff" ? "Unhealthy" : "Healthy") +
             "\n    nodeCounts:\n" + nodes + "    cloudProviderTarget: " + std::to_string(target) +
             "\n    minSize: 1\n    maxSize: " + std::to_string(max_size) +
             "\n    lastProbeTime: \"" + t_now + "\"\n    lastTransitionTime: \"" + t_since +
             "\"\n  scaleUp:\n    status: " + scale_up + "\n" +
             (scale_up == "Backoff"
                  ? "    backoffInfo:\n      errorCode: \"" +
                        Str(spec, "errorCode", "OutOfResource") + "\"\n      errorMessage: \"" +
                        Str(spec, "errorMessage", "capacity not available") + "\"\n"
                  : std::string()) +
             "    lastProbeTime: \"" + t_now + "\"\n    lastTransitionTime: \"" + t_since +
             "\"\n  scaleDown:\n    status: NoCandidates\n    lastProbeTime: \"" + t_now +
             "\"\n    lastTransitionTime: \"" + t_since + "\"\n";
  }
  rapidjson::StringBuffer sb;
  Writer w(sb);
  BeginConfigMapAnnotations(w);
  KV(w, "cluster-autoscaler.kubernetes.io/last-updated", go_time(t_now));
  w.EndObject();
  KV(w, "name", Str(spec, "name", "cluster-autoscaler-status"));
  KV(w, "namespace", Str(spec, "namespace", "kube-system"));
  w.EndObject();
  w.Key("data");
  w.StartObject();
  KV(w, "status", status);
  w.EndObject();
  w.EndObject();
  return Finish(sb, out, error);
}

}  // namespace podwait::sim
