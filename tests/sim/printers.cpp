#include "tests/sim/printers.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "exporter/common/json_escape.h"
#include "exporter/common/time_format.h"

namespace podwait::sim {

namespace {

// ---------------------------------------------------------------------------------------------
// Column tables

// The Name column every Table starts with (format "name": kubectl prefixes it with the kind when
// it prints several kinds).
constexpr PrinterColumn kNameColumn = {
    "Name", "string", "", 0,
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically."};

// Built-in resources: the columns of the API server's own printers (kubectl get pods / events /
// configmaps). json_path is unused for them; their cells are computed below.
constexpr PrinterColumn kPodColumns[] = {
    {"Ready", "string", "", 0, "The aggregate readiness state of this pod for accepting traffic."},
    {"Status", "string", "", 0, "The aggregate status of the containers in this pod."},
    {"Restarts", "string", "", 0,
     "The number of times the containers in this pod have been restarted and when the last "
     "container in this pod has restarted."},
    {"Age", "string", "", 0, "CreationTimestamp of the object."},
    {"IP", "string", "", 1, "IP address allocated to the pod."},
    {"Node", "string", "", 1, "Name of the node the pod is assigned to."},
    {"Nominated Node", "string", "", 1, "Name of the node the scheduler nominated for the pod."},
    {"Readiness Gates", "string", "", 1, "The readiness gates of the pod."},
};
constexpr PrinterColumn kEventColumns[] = {
    {"Last Seen", "string", "", 0, "When the event was last seen."},
    {"Type", "string", "", 0, "Type of this event (Normal, Warning)."},
    {"Reason", "string", "", 0, "Why the action was taken."},
    {"Object", "string", "", 0, "The object this Event is about."},
    {"Subobject", "string", "", 1, "The field of the object this Event is about."},
    {"Source", "string", "", 1, "The component reporting this event."},
    {"Message", "string", "", 0, "A human-readable description of the status of this operation."},
    {"First Seen", "string", "", 1, "When the event was first seen."},
    {"Count", "string", "", 1, "The number of times this event has occurred."},
    {"Name", "string", "", 1, "The name of the Event."},
};
constexpr PrinterColumn kConfigMapColumns[] = {
    {"Data", "string", "", 0, "The number of keys in data and binaryData."},
    {"Age", "string", "", 0, "CreationTimestamp of the object."},
};

// Custom resources: additionalPrinterColumns after pingcap/tidb-operator — TidbCluster from the
// kubebuilder markers of pkg/apis/pingcap/v1alpha1/types.go, the v2 kinds from
// api/core/v1alpha1/*_types.go.
#define READY_COND ".status.conditions[?(@.type==\"Ready\")].status"
#define SYNCED_COND ".status.conditions[?(@.type==\"Synced\")].status"
#define AGE_COLUMN \
  { "Age", "date", ".metadata.creationTimestamp", 0, "" }
// Claims and volumes: the columns of kubectl's own printers (pkg/printers/internalversion) that a
// JSONPath can give; the claim of a volume is namespace/name there, its name here.
constexpr PrinterColumn kClaimColumns[] = {
    {"Status", "string", ".status.phase", 0, ""},
    {"Volume", "string", ".spec.volumeName", 0, ""},
    {"Capacity", "string", ".status.capacity.storage", 0, ""},
    {"StorageClass", "string", ".spec.storageClassName", 0, ""},
    AGE_COLUMN,
};
constexpr PrinterColumn kVolumeColumns[] = {
    {"Capacity", "string", ".spec.capacity.storage", 0, ""},
    {"Status", "string", ".status.phase", 0, ""},
    {"Claim", "string", ".spec.claimRef.name", 0, ""},
    {"StorageClass", "string", ".spec.storageClassName", 0, ""},
    AGE_COLUMN,
};
constexpr PrinterColumn kTidbClusterColumns[] = {
    {"Ready", "string", READY_COND, 0, ""},
    {"PD", "string", ".status.pd.image", 0, "The image for PD cluster"},
    {"Storage", "string", ".spec.pd.requests.storage", 0, "The storage size specified for PD node"},
    {"Ready", "integer", ".status.pd.statefulSet.readyReplicas", 0,
     "The desired replicas number of PD cluster"},
    {"Desire", "integer", ".spec.pd.replicas", 0, "The desired replicas number of PD cluster"},
    {"TiKV", "string", ".status.tikv.image", 0, "The image for TiKV cluster"},
    {"Storage", "string", ".spec.tikv.requests.storage", 0,
     "The storage size specified for TiKV node"},
    {"Ready", "integer", ".status.tikv.statefulSet.readyReplicas", 0,
     "The ready replicas number of TiKV cluster"},
    {"Desire", "integer", ".spec.tikv.replicas", 0, "The desired replicas number of TiKV cluster"},
    {"TiDB", "string", ".status.tidb.image", 0, "The image for TiDB cluster"},
    {"Ready", "integer", ".status.tidb.statefulSet.readyReplicas", 0,
     "The ready replicas number of TiDB cluster"},
    {"Desire", "integer", ".spec.tidb.replicas", 0, "The desired replicas number of TiDB cluster"},
    {"Status", "string", ".status.conditions[?(@.type==\"Ready\")].message", 1, ""},
    AGE_COLUMN,
};
constexpr PrinterColumn kV2ClusterColumns[] = {
    {"PD", "integer", ".status.components[?(@.kind==\"PD\")].replicas", 0, ""},
    {"TiKV", "integer", ".status.components[?(@.kind==\"TiKV\")].replicas", 0, ""},
    {"TiDB", "integer", ".status.components[?(@.kind==\"TiDB\")].replicas", 0, ""},
    {"TiFlash", "integer", ".status.components[?(@.kind==\"TiFlash\")].replicas", 0, ""},
    {"Available", "string", ".status.conditions[?(@.type==\"Available\")].status", 0, ""},
    AGE_COLUMN,
};
// Every v2 group and instance kind: its cluster, the kind's own columns, then Synced, Ready, Age.
std::vector<PrinterColumn> V2Columns(std::initializer_list<PrinterColumn> own) {
  std::vector<PrinterColumn> out = {{"Cluster", "string", ".spec.cluster.name", 0, ""}};
  out.insert(out.end(), own);
  out.insert(out.end(), {{"Synced", "string", SYNCED_COND, 0, ""},
                         {"Ready", "string", READY_COND, 0, ""},
                         AGE_COLUMN});
  return out;
}
#undef READY_COND
#undef SYNCED_COND
#undef AGE_COLUMN

template <size_t N>
std::vector<PrinterColumn> Columns(const PrinterColumn (&cols)[N]) {
  return std::vector<PrinterColumn>(cols, cols + N);
}

// ---------------------------------------------------------------------------------------------
// JSON helpers

const rapidjson::Value* Field(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(key);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

std::string StrAt(const rapidjson::Value& v, const char* key) {
  const rapidjson::Value* f = Field(v, key);
  return f && f->IsString() ? std::string(f->GetString(), f->GetStringLength()) : std::string();
}

int64_t IntAt(const rapidjson::Value& v, const char* key) {
  const rapidjson::Value* f = Field(v, key);
  return f && f->IsInt64() ? f->GetInt64() : 0;
}

std::string Quoted(std::string_view s) { return "\"" + JsonEscaped(s) + "\""; }

// The age of an RFC 3339 time at `now`; "<unknown>" for a missing or unparsable one, as kubectl.
std::string AgeOf(const std::string& time, Timestamp now) {
  auto t = ParseRfc3339(time);
  if (time.empty() || !t) return "<unknown>";
  return HumanAge(now - *t);
}

// JSON text of a printer column's cell, as the apiextensions table convertor gives it.
std::string CrdCell(const PrinterColumn& c, const rapidjson::Value& doc, Timestamp now) {
  const rapidjson::Value* v = JsonPathFirst(doc, c.json_path);
  if (!v || v->IsNull()) return "null";
  std::string_view type = c.type;
  if (type == "date") {
    return v->IsString() ? Quoted(AgeOf(v->GetString(), now)) : "null";
  }
  if (type == "integer") {
    if (v->IsInt64()) return std::to_string(v->GetInt64());
    if (v->IsNumber()) return std::to_string(static_cast<int64_t>(v->GetDouble()));
    return "null";
  }
  // string: the value printed as text.
  if (v->IsString()) return Quoted(v->GetString());
  if (v->IsBool()) return Quoted(v->GetBool() ? "true" : "false");
  if (v->IsInt64()) return Quoted(std::to_string(v->GetInt64()));
  if (v->IsNumber()) return Quoted(std::to_string(v->GetDouble()));
  return "null";
}

// ---------------------------------------------------------------------------------------------
// Pods (after kubectl's pod printer: init containers first, then the main containers).

struct PodSummary {
  std::string reason;
  int ready = 0;
  int total = 0;
  int64_t restarts = 0;
  std::string last_restart;  // finishedAt of the newest lastState.terminated
};

// A terminated container's reason as the printer shows it.
std::string TerminatedReason(const rapidjson::Value& term, const char* prefix) {
  std::string reason = StrAt(term, "reason");
  if (!reason.empty()) return prefix + reason;
  if (IntAt(term, "signal") != 0)
    return std::string(prefix) + "Signal:" + std::to_string(IntAt(term, "signal"));
  return std::string(prefix) + "ExitCode:" + std::to_string(IntAt(term, "exitCode"));
}

void CountRestart(const rapidjson::Value& cs, PodSummary* s) {
  s->restarts += IntAt(cs, "restartCount");
  const rapidjson::Value* last = Field(cs, "lastState");
  const rapidjson::Value* term = last ? Field(*last, "terminated") : nullptr;
  if (term) {
    std::string finished = StrAt(*term, "finishedAt");
    if (finished > s->last_restart) s->last_restart = finished;
  }
}

bool HasCondition(const rapidjson::Value& status, const char* type, const char* value) {
  const rapidjson::Value* conds = Field(status, "conditions");
  if (!conds || !conds->IsArray()) return false;
  for (const auto& c : conds->GetArray()) {
    if (StrAt(c, "type") == type && StrAt(c, "status") == value) return true;
  }
  return false;
}

// The init containers: sets the reason while one of them has not completed. Returns true then.
bool SummarizeInit(const rapidjson::Value& status, size_t init_count, PodSummary* s) {
  const rapidjson::Value* inits = Field(status, "initContainerStatuses");
  if (!inits || !inits->IsArray()) return false;
  size_t i = 0;
  for (const auto& cs : inits->GetArray()) {
    CountRestart(cs, s);
    const rapidjson::Value* state = Field(cs, "state");
    const rapidjson::Value* term = state ? Field(*state, "terminated") : nullptr;
    const rapidjson::Value* waiting = state ? Field(*state, "waiting") : nullptr;
    if (term && IntAt(*term, "exitCode") == 0) {
      ++i;
      continue;
    }
    if (term) {
      s->reason = TerminatedReason(*term, "Init:");
    } else if (waiting && !StrAt(*waiting, "reason").empty() &&
               StrAt(*waiting, "reason") != "PodInitializing") {
      s->reason = "Init:" + StrAt(*waiting, "reason");
    } else {
      s->reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_count);
    }
    return true;
  }
  return false;
}

void SummarizeMain(const rapidjson::Value& status, PodSummary* s) {
  const rapidjson::Value* mains = Field(status, "containerStatuses");
  if (!mains || !mains->IsArray()) return;
  s->restarts = 0;
  s->last_restart.clear();
  bool running = false;
  auto arr = mains->GetArray();
  for (auto it = arr.End(); it != arr.Begin();) {
    const rapidjson::Value& cs = *--it;
    CountRestart(cs, s);
    const rapidjson::Value* state = Field(cs, "state");
    const rapidjson::Value* waiting = state ? Field(*state, "waiting") : nullptr;
    const rapidjson::Value* term = state ? Field(*state, "terminated") : nullptr;
    const rapidjson::Value* run = state ? Field(*state, "running") : nullptr;
    const rapidjson::Value* ready = Field(cs, "ready");
    if (waiting && !StrAt(*waiting, "reason").empty()) {
      s->reason = StrAt(*waiting, "reason");
    } else if (term) {
      s->reason = TerminatedReason(*term, "");
    } else if (run && ready && ready->IsBool() && ready->GetBool()) {
      running = true;
      ++s->ready;
    }
  }
  if (s->reason == "Completed" && running) {
    s->reason = HasCondition(status, "Ready", "True") ? "Running" : "NotReady";
  }
}

PodSummary SummarizePod(const rapidjson::Value& pod) {
  PodSummary s;
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* spec = Field(pod, "spec");
  const rapidjson::Value* status_ptr = Field(pod, "status");
  const rapidjson::Value& status = status_ptr ? *status_ptr : kEmpty;
  const rapidjson::Value* containers = spec ? Field(*spec, "containers") : nullptr;
  const rapidjson::Value* inits = spec ? Field(*spec, "initContainers") : nullptr;
  s.total = containers && containers->IsArray() ? static_cast<int>(containers->Size()) : 0;
  size_t init_count = inits && inits->IsArray() ? inits->Size() : 0;
  s.reason = StrAt(status, "phase");
  if (!StrAt(status, "reason").empty()) s.reason = StrAt(status, "reason");
  const rapidjson::Value* conds = Field(status, "conditions");
  if (conds && conds->IsArray()) {
    for (const auto& c : conds->GetArray()) {
      if (StrAt(c, "type") == "PodScheduled" && StrAt(c, "reason") == "SchedulingGated") {
        s.reason = "SchedulingGated";
      }
    }
  }
  bool initializing = SummarizeInit(status, init_count, &s);
  if (!initializing || HasCondition(status, "Initialized", "True")) SummarizeMain(status, &s);
  const rapidjson::Value* meta = Field(pod, "metadata");
  if (meta && Field(*meta, "deletionTimestamp")) {
    s.reason = StrAt(status, "reason") == "NodeLost" ? "Unknown" : "Terminating";
  }
  return s;
}

std::string PodCells(const rapidjson::Value& pod, const std::string& name, Timestamp now) {
  PodSummary s = SummarizePod(pod);
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* status_ptr = Field(pod, "status");
  const rapidjson::Value& status = status_ptr ? *status_ptr : kEmpty;
  const rapidjson::Value* spec_ptr = Field(pod, "spec");
  const rapidjson::Value& spec = spec_ptr ? *spec_ptr : kEmpty;
  const rapidjson::Value* meta = Field(pod, "metadata");
  std::string restarts = std::to_string(s.restarts);
  if (!s.last_restart.empty()) restarts += " (" + AgeOf(s.last_restart, now) + " ago)";
  auto or_none = [](std::string v) { return v.empty() ? std::string("<none>") : v; };
  std::string cells = Quoted(name);
  cells += "," + Quoted(std::to_string(s.ready) + "/" + std::to_string(s.total));
  cells += "," + Quoted(s.reason);
  cells += "," + Quoted(restarts);
  cells += "," + Quoted(AgeOf(meta ? StrAt(*meta, "creationTimestamp") : "", now));
  cells += "," + Quoted(or_none(StrAt(status, "podIP")));
  cells += "," + Quoted(or_none(StrAt(spec, "nodeName")));
  cells += "," + Quoted(or_none(StrAt(status, "nominatedNodeName")));
  cells += "," + Quoted("<none>");
  return cells;
}

// ---------------------------------------------------------------------------------------------
// Events (after kubectl's event printer: "5m (x3 over 10m)" for repeated events).

std::string EventCells(const rapidjson::Value& ev, const std::string& name, Timestamp now) {
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* io_ptr = Field(ev, "involvedObject");
  const rapidjson::Value& io = io_ptr ? *io_ptr : kEmpty;
  const rapidjson::Value* src_ptr = Field(ev, "source");
  const rapidjson::Value& src = src_ptr ? *src_ptr : kEmpty;
  std::string first = StrAt(ev, "firstTimestamp");
  if (first.empty()) first = StrAt(ev, "eventTime");
  std::string first_age = AgeOf(first, now);
  std::string last_age =
      StrAt(ev, "lastTimestamp").empty() ? first_age : AgeOf(StrAt(ev, "lastTimestamp"), now);
  int64_t count = IntAt(ev, "count");
  if (const rapidjson::Value* series = Field(ev, "series")) {
    last_age = AgeOf(StrAt(*series, "lastObservedTime"), now);
    count = IntAt(*series, "count");
  } else if (count == 0) {
    count = 1;
  }
  std::string seen = last_age;
  if (count > 1) seen += " (x" + std::to_string(count) + " over " + first_age + ")";
  std::string kind = StrAt(io, "kind");
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string source = StrAt(src, "component");
  if (source.empty()) source = StrAt(ev, "reportingComponent");
  if (!StrAt(src, "host").empty()) source += ", " + StrAt(src, "host");
  std::string cells = Quoted(seen);
  cells += "," + Quoted(StrAt(ev, "type"));
  cells += "," + Quoted(StrAt(ev, "reason"));
  cells += "," + Quoted(kind + "/" + StrAt(io, "name"));
  cells += "," + Quoted(StrAt(io, "fieldPath"));
  cells += "," + Quoted(source);
  cells += "," + Quoted(StrAt(ev, "message"));
  cells += "," + Quoted(first_age);
  cells += "," + Quoted(std::to_string(count));
  cells += "," + Quoted(name);
  return cells;
}

std::string ConfigMapCells(const rapidjson::Value& cm, const std::string& name, Timestamp now) {
  size_t keys = 0;
  for (const char* key : {"data", "binaryData"}) {
    const rapidjson::Value* m = Field(cm, key);
    if (m && m->IsObject()) keys += m->MemberCount();
  }
  const rapidjson::Value* meta = Field(cm, "metadata");
  return Quoted(name) + "," + std::to_string(keys) + "," +
         Quoted(AgeOf(meta ? StrAt(*meta, "creationTimestamp") : "", now));
}

std::vector<PrinterColumn> TableColumns(Resource r) {
  switch (r) {
    case Resource::kPods:
      return Columns(kPodColumns);
    case Resource::kEvents:
      return Columns(kEventColumns);
    case Resource::kConfigMaps:
      return Columns(kConfigMapColumns);
    default:
      return PrinterColumnsOf(r);
  }
}

std::string RowCells(Resource r, const rapidjson::Value& doc, const Object& o, Timestamp now) {
  switch (r) {
    case Resource::kPods:
      return PodCells(doc, o.name, now);
    case Resource::kEvents:
      return EventCells(doc, o.name, now);
    case Resource::kConfigMaps:
      return ConfigMapCells(doc, o.name, now);
    default: {
      std::string cells = Quoted(o.name);
      for (const auto& c : PrinterColumnsOf(r)) cells += "," + CrdCell(c, doc, now);
      return cells;
    }
  }
}

void AppendColumnDefinitions(std::string* out, Resource r) {
  *out += "\"columnDefinitions\":[";
  std::vector<PrinterColumn> cols = TableColumns(r);
  // Every printer starts with the name but the Event printer, whose name is a wide column.
  if (r != Resource::kEvents) cols.insert(cols.begin(), kNameColumn);
  for (size_t i = 0; i < cols.size(); ++i) {
    const PrinterColumn& c = cols[i];
    if (i) *out += ",";
    *out += "{\"name\":" + Quoted(c.name) + ",\"type\":" + Quoted(c.type) +
            ",\"format\":" + Quoted(std::string_view(c.name) == "Name" ? "name" : "") +
            ",\"description\":" + Quoted(c.description) +
            ",\"priority\":" + std::to_string(c.priority) + "}";
  }
  *out += "],";
}

void AppendRowObject(std::string* out, const rapidjson::Value& doc, const Object& o,
                     IncludeObject include) {
  if (include == IncludeObject::kObject) {
    *out += ",\"object\":" + o.json;
  } else if (include == IncludeObject::kMetadata) {
    const rapidjson::Value* meta = Field(doc, "metadata");
    *out +=
        ",\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
        "\"metadata\":" +
        (meta ? ToJson(*meta) : std::string("{}")) + "}";
  }
}

}  // namespace

bool WantsTable(std::string_view accept) {
  while (!accept.empty()) {
    size_t comma = accept.find(',');
    std::string_view media = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    std::string m;
    for (char c : media) {
      if (c != ' ') m.push_back(c);
    }
    m += ";";
    if (m.find(";as=Table;") != std::string::npos &&
        m.find(";g=meta.k8s.io;") != std::string::npos && m.find(";v=v1;") != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool ParseIncludeObject(std::string_view text, IncludeObject* out) {
  if (text.empty() || text == "Metadata") {
    *out = IncludeObject::kMetadata;
  } else if (text == "None") {
    *out = IncludeObject::kNone;
  } else if (text == "Object") {
    *out = IncludeObject::kObject;
  } else {
    return false;
  }
  return true;
}

std::vector<PrinterColumn> PrinterColumnsOf(Resource r) {
  if (r == Resource::kTidbClusters) return Columns(kTidbClusterColumns);
  if (r == Resource::kPersistentVolumeClaims) return Columns(kClaimColumns);
  if (r == Resource::kPersistentVolumes) return Columns(kVolumeColumns);
  const ResourceInfo& info = Info(r);
  if (info.core) return {};
  std::string_view plural = info.plural;
  if (plural == "clusters") return Columns(kV2ClusterColumns);
  if (std::string_view(info.categories) == "group") {
    return V2Columns({{"Desired", "string", ".spec.replicas", 0, ""},
                      {"Ready", "string", ".status.readyReplicas", 0, ""},
                      {"Updated", "string", ".status.updatedReplicas", 0, ""},
                      {"UpdateRevision", "string", ".status.updateRevision", 0, ""},
                      {"CurrentRevision", "string", ".status.currentRevision", 0, ""}});
  }
  if (plural == "pds") return V2Columns({{"Leader", "string", ".status.isLeader", 0, ""}});
  if (plural == "tikvs" || plural == "tiflashes") {
    return V2Columns({{"StoreID", "string", ".status.id", 0, ""},
                      {"StoreState", "string", ".status.state", 0, ""}});
  }
  return V2Columns({});
}

std::string TableJson(Resource r, const std::vector<ObjectPtr>& items,
                      std::string_view list_metadata, const TableOptions& options, Timestamp now) {
  std::string out = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":";
  out += list_metadata;
  out += ",";
  if (options.column_definitions) AppendColumnDefinitions(&out, r);
  out += "\"rows\":[";
  for (size_t i = 0; i < items.size(); ++i) {
    const Object& o = *items[i];
    rapidjson::Document doc;
    doc.Parse(o.json.c_str(), o.json.size());
    if (doc.HasParseError()) doc.SetObject();
    if (i) out += ",";
    out += "{\"cells\":[" + RowCells(r, doc, o, now) + "]";
    AppendRowObject(&out, doc, o, options.include);
    out += "}";
  }
  out += "]}";
  return out;
}

std::string HumanAge(Timestamp ms) {
  int64_t seconds = ms / 1000;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  char buf[48];
  auto fmt = [&buf](const char* f, int64_t a, int64_t b = 0) {
    std::snprintf(buf, sizeof(buf), f, static_cast<long long>(a), static_cast<long long>(b));
    return std::string(buf);
  };
  if (seconds < 120) return fmt("%llds", seconds);
  int64_t minutes = seconds / 60;
  if (minutes < 10)
    return seconds % 60 ? fmt("%lldm%llds", minutes, seconds % 60) : fmt("%lldm", minutes);
  if (minutes < 180) return fmt("%lldm", minutes);
  int64_t hours = minutes / 60;
  if (hours < 8) return minutes % 60 ? fmt("%lldh%lldm", hours, minutes % 60) : fmt("%lldh", hours);
  if (hours < 48) return fmt("%lldh", hours);
  if (hours < 24 * 8)
    return hours % 24 ? fmt("%lldd%lldh", hours / 24, hours % 24) : fmt("%lldd", hours / 24);
  if (hours < 24 * 365 * 2) return fmt("%lldd", hours / 24);
  int64_t years = hours / 24 / 365;
  int64_t days = (hours / 24) % 365;
  if (hours < 24 * 365 * 8) return days ? fmt("%lldy%lldd", years, days) : fmt("%lldy", years);
  return fmt("%lldy", years);
}

const rapidjson::Value* JsonPathFirst(const rapidjson::Value& root, std::string_view path) {
  const rapidjson::Value* cur = &root;
  while (!path.empty() && cur) {
    if (path.front() == '.') {
      path.remove_prefix(1);
      size_t end = path.find_first_of(".[");
      std::string key(path.substr(0, end));
      path = end == std::string_view::npos ? std::string_view() : path.substr(end);
      cur = Field(*cur, key.c_str());
    } else if (path.front() == '[') {
      size_t close = path.find(")]");
      if (path.rfind("[?(@.", 0) == 0 && close != std::string_view::npos) {
        // [?(@.key=="value")]
        std::string_view expr = path.substr(5, close - 5);
        path = path.substr(close + 2);
        size_t eq = expr.find("==");
        if (eq == std::string_view::npos || !cur->IsArray()) return nullptr;
        std::string key(expr.substr(0, eq));
        std::string_view want = expr.substr(eq + 2);
        if (want.size() >= 2 && (want.front() == '"' || want.front() == '\'')) {
          want = want.substr(1, want.size() - 2);
        }
        const rapidjson::Value* found = nullptr;
        for (const auto& e : cur->GetArray()) {
          if (StrAt(e, key.c_str()) == want) {
            found = &e;
            break;
          }
        }
        cur = found;
      } else {
        size_t end = path.find(']');
        if (end == std::string_view::npos || !cur->IsArray()) return nullptr;
        size_t index = static_cast<size_t>(std::atoi(std::string(path.substr(1, end - 1)).c_str()));
        path = path.substr(end + 1);
        cur = index < cur->Size() ? &(*cur)[static_cast<rapidjson::SizeType>(index)] : nullptr;
      }
    } else {
      return nullptr;
    }
  }
  return cur;
}

}  // namespace podwait::sim
