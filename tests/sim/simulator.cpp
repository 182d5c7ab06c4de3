#include "tests/sim/simulator.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "exporter/common/base64.h"
#include "exporter/common/log.h"
#include "exporter/common/time_format.h"
#include "tests/sim/printers.h"
#include "tests/sim/shorthand.h"

namespace podwait::sim {

namespace {

std::string GetStr(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return "";
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : "";
}

int64_t GetInt(const rapidjson::Value& v, const char* key, int64_t fallback) {
  if (!v.IsObject()) return fallback;
  auto it = v.FindMember(key);
  if (it == v.MemberEnd() || !it->value.IsNumber()) return fallback;
  return it->value.IsInt64() ? it->value.GetInt64() : static_cast<int64_t>(it->value.GetDouble());
}

double GetDouble(const rapidjson::Value& v, const char* key, double fallback) {
  if (!v.IsObject()) return fallback;
  auto it = v.FindMember(key);
  if (it == v.MemberEnd() || !it->value.IsNumber()) return fallback;
  return it->value.GetDouble();
}

std::string ReasonForCode(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

std::string MessageForCode(int code) {
  switch (code) {
    case 429:
      return "Too many requests, please try again later.";
    case 500:
      return "Internal error occurred: simulated server error";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted";
    default:
      return "simulated error";
  }
}

const char* kJson = "application/json";
// Who the simulator's API server takes the client for (in 403 messages).
constexpr std::string_view kSimUser = "system:serviceaccount:podwait:podwait-exporter";

void SendStatus(Responder& resp, int code, const std::string& message, Headers extra = {}) {
  resp.Send(code, kJson, StatusJson(code, ReasonForCode(code), message), extra);
}

std::string ErrorEventLine(uint64_t asked, uint64_t oldest) {
  return "{\"type\":\"ERROR\",\"object\":" +
         StatusJson(410, "Expired",
                    "too old resource version: " + std::to_string(asked) + " (" +
                        std::to_string(oldest) + ")") +
         "}\n";
}

// `initial_events_end`: the bookmark that ends a watch-list's initial events (KEP-3157), annotated
// k8s.io/initial-events-end as the API server's watch cache writes it.
std::string BookmarkLine(Resource r, uint64_t rv, bool initial_events_end = false) {
  const ResourceInfo& info = Info(r);
  std::string meta = "\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) + "\"";
  if (initial_events_end) meta += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
  std::string extra;
  // What the API server's bookmark looks like: an otherwise empty object of the watched kind, so
  // zero values of the Go type show up (null timestamps, empty structs).
  switch (r) {
    case Resource::kPods:
      meta += ",\"creationTimestamp\":null}";
      extra = ",\"spec\":{\"containers\":null},\"status\":{}";
      break;
    case Resource::kEvents:
      meta += ",\"creationTimestamp\":null}";
      extra =
          ",\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,\"lastTimestamp\":null,"
          "\"eventTime\":null,\"reportingComponent\":\"\",\"reportingInstance\":\"\"";
      break;
    case Resource::kConfigMaps:
    case Resource::kPersistentVolumeClaims:
    case Resource::kPersistentVolumes:
      meta += ",\"creationTimestamp\":null}";
      break;
    default:
      meta += "}";
  }
  return std::string("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"") + info.kind +
         "\",\"apiVersion\":\"" + info.api_version + "\"," + meta + extra + "}}\n";
}

bool ParseUint(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// apimachinery's validation of a watch's list options (validateWatchOptions): the refused fields
// and why, empty when the request is valid. With the WatchList feature off (a server before 1.27,
// or the gate off) sendInitialEvents and resourceVersionMatch are refused on a watch; with it on,
// sendInitialEvents needs resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true.
std::vector<std::pair<std::string, std::string>> WatchListErrors(const Request& req, bool enabled,
                                                                 bool bookmarks) {
  std::vector<std::pair<std::string, std::string>> errors;
  const bool initial = req.Has("sendInitialEvents");
  const std::string match = req.Param("resourceVersionMatch");
  if (!enabled) {
    if (!match.empty()) {
      errors.emplace_back("resourceVersionMatch",
                          "resourceVersionMatch is forbidden for watch unless the WatchList "
                          "feature gate is enabled");
    }
    if (initial) {
      errors.emplace_back("sendInitialEvents",
                          "sendInitialEvents is forbidden for watch unless the WatchList feature "
                          "gate is enabled");
    }
    return errors;
  }
  if (!match.empty() && !initial) {
    errors.emplace_back("resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                        "provided");
  } else if (initial && match != "NotOlderThan") {
    errors.emplace_back("resourceVersionMatch",
                        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
  }
  if (initial && !bookmarks) {
    errors.emplace_back("allowWatchBookmarks",
                        "sendInitialEvents requires setting allowWatchBookmarks to true");
  }
  return errors;
}

// 422 Invalid for refused list options, as the API server answers them.
void SendInvalidListOptions(Responder& resp,
                            const std::vector<std::pair<std::string, std::string>>& errors) {
  std::string message, causes;
  for (const auto& [field, why] : errors) {
    message += (message.empty() ? "" : ", ") + field + ": Forbidden: " + why;
    causes += std::string(causes.empty() ? "" : ",") +
              "{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: " + why +
              "\",\"field\":\"" + field + "\"}";
  }
  if (errors.size() > 1) message = "[" + message + "]";
  resp.Send(422, kJson,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"ListOptions.meta.k8s.io \\\"\\\" is invalid: " +
                message +
                "\",\"reason\":\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":"
                "\"ListOptions\",\"causes\":[" +
                causes + "]},\"code\":422}");
}
}  // namespace

Simulator::Simulator(SimOptions options, const Clock& clock)
    : options_(std::move(options)), clock_(clock), store_(options_.history, options_.seed, clock) {
  if (options_.time_scale <= 0) options_.time_scale = 1.0;
  for (int i = 0; i < kResourceCount; ++i) {
    crd_installed_[i] = InstalledByDefault(static_cast<Resource>(i));
  }
}

bool Simulator::ApplyCrds(const rapidjson::Value& crds, std::string* error) {
  if (!crds.IsObject()) {
    *error = "crds must be an object of {\"<plural>\": bool}";
    return false;
  }
  for (const auto& m : crds.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (!m.value.IsBool()) {
      *error = "crds." + std::string(key) + " must be true or false";
      return false;
    }
    std::vector<Resource> which;
    if (key == "v2" || key == "core.pingcap.com") {
      which = ResourcesOf("core.pingcap.com/v1alpha1");
    } else if (auto r = ResourceFromPlural(key); r && !Info(*r).core) {
      which = {*r};
    } else {
      *error = "crds: no custom resource " + std::string(key);
      return false;
    }
    for (Resource r : which) crd_installed_[static_cast<int>(r)] = m.value.GetBool();
  }
  return true;
}

bool Simulator::Served(Resource r) const {
  return Info(r).core || crd_installed_[static_cast<int>(r)].load();
}

Simulator::~Simulator() { Stop(); }

size_t Simulator::steps_done() const {
  std::lock_guard<std::mutex> lock(ops_mu_);
  return next_step_;
}

bool Simulator::LoadScenario(const std::string& text, std::string* error) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(text.c_str(),
                                                                                 text.size());
  if (doc.HasParseError()) {
    *error = std::string("scenario is not valid JSON: ") +
             rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
             std::to_string(doc.GetErrorOffset());
    return false;
  }
  if (!doc.IsObject()) {
    *error = "scenario must be a JSON object";
    return false;
  }
  if (auto it = doc.FindMember("crds"); it != doc.MemberEnd()) {
    if (!ApplyCrds(it->value, error)) return false;
  }
  if (auto it = doc.FindMember("steps"); it != doc.MemberEnd()) {
    if (!it->value.IsArray()) {
      *error = "steps must be an array";
      return false;
    }
    for (const auto& s : it->value.GetArray()) {
      Step step;
      step.name = GetStr(s, "name");
      std::string at = GetStr(s, "at");
      auto d = ParseDuration(at.empty() ? "0s" : at);
      if (!d) {
        *error = "step " + step.name + ": bad \"at\": " + at;
        return false;
      }
      step.at_ms = *d;
      auto ops = s.FindMember("apply");
      if (ops == s.MemberEnd() || !ops->value.IsArray()) {
        *error = "step " + step.name + ": needs an \"apply\" array";
        return false;
      }
      step.ops_json = ToJson(ops->value);
      if (step.name.empty()) step.name = "step-" + std::to_string(steps_.size() + 1);
      steps_.push_back(std::move(step));
    }
  }
  if (auto it = doc.FindMember("cycle"); it != doc.MemberEnd()) {
    auto d = it->value.IsString() ? ParseDuration(it->value.GetString()) : std::nullopt;
    if (!d || *d <= 0) {
      *error = "scenario: bad \"cycle\" (a duration such as \"100s\")";
      return false;
    }
    cycle_ms_ = *d;
  }
  if (auto it = doc.FindMember("objects"); it != doc.MemberEnd()) {
    std::lock_guard<std::mutex> lock(ops_mu_);
    objects_json_ = ToJson(it->value);
    if (!Apply(it->value, error)) return false;
  }
  return true;
}

int64_t Simulator::CycleMs() const {
  if (cycle_ms_ > 0) return cycle_ms_;
  int64_t last = 0;
  for (const auto& s : steps_) last = std::max(last, s.at_ms);
  return last + 15 * kSecond;
}

void Simulator::RestartStoryLocked() {
  for (int i = 0; i < kResourceCount; ++i) {
    Resource r = static_cast<Resource>(i);
    for (const auto& o : store_.Snapshot(r)) store_.Delete(r, o->ns, o->name);
  }
  {
    std::lock_guard<std::mutex> lock(pd_mu_);
    pd_.clear();
  }
  next_step_ = 0;
  start_ms_ = clock_.MonotonicMs();
  ++cycles_;
  LogInfo("story restarts", {{"cycle", std::to_string(cycles_ + 1)}});
  if (objects_json_.empty()) return;
  rapidjson::Document ops;
  ops.Parse(objects_json_.c_str(), objects_json_.size());
  std::string error;
  if (!Apply(ops, &error)) LogWarn("scenario objects failed", {{"error", error}});
}

bool Simulator::Apply(const rapidjson::Value& ops, std::string* error) {
  if (ops.IsArray()) {
    for (const auto& op : ops.GetArray()) {
      if (!ApplyOne(op, error)) return false;
    }
    return true;
  }
  if (ops.IsObject() && ops.HasMember("apply") && ops["apply"].IsArray()) {
    return Apply(ops["apply"], error);
  }
  return ApplyOne(ops, error);
}

bool Simulator::UpsertDocument(rapidjson::Document doc, std::string* error) {
  std::string kind = GetStr(doc, "kind");
  auto r = ResourceFromKind(kind);
  if (!r) {
    *error = "unsupported kind \"" + kind + "\"";
    return false;
  }
  ExpandTimes(doc, doc.GetAllocator(), clock_.Now());
  return store_.Upsert(*r, std::move(doc), error) != nullptr;
}

bool Simulator::ApplyOne(const rapidjson::Value& op, std::string* error) {
  if (!op.IsObject()) {
    *error = "an op must be a JSON object";
    return false;
  }
  Timestamp now = clock_.Now();
  auto doc_from = [](const rapidjson::Value& v) {
    rapidjson::Document d;
    d.CopyFrom(v, d.GetAllocator());
    return d;
  };
  if (op.HasMember("kind") && op.HasMember("metadata")) return UpsertDocument(doc_from(op), error);
  for (const char* verb : {"add", "modify", "upsert"}) {
    auto it = op.FindMember(verb);
    if (it == op.MemberEnd()) continue;
    const rapidjson::Value& d = it->value;
    auto r = ResourceFromKind(GetStr(d, "kind"));
    if (!r || !d.HasMember("metadata")) {
      *error = std::string(verb) + ": needs a full document with kind and metadata";
      return false;
    }
    std::string ns = GetStr(d["metadata"], "namespace");
    std::string name = GetStr(d["metadata"], "name");
    bool exists = store_.Get(*r, ns, name) != nullptr;
    if (std::string_view(verb) == "add" && exists) {
      *error = "add: " + ns + "/" + name + " exists already";
      return false;
    }
    if (std::string_view(verb) == "modify" && !exists) {
      *error = "modify: no " + ns + "/" + name;
      return false;
    }
    return UpsertDocument(doc_from(d), error);
  }
  if (auto it = op.FindMember("delete"); it != op.MemberEnd()) {
    const auto& d = it->value;
    std::string kind = GetStr(d, "kind");
    auto r = ResourceFromKind(kind.empty() ? "Pod" : kind);
    if (!r) {
      *error = "delete: unsupported kind " + kind;
      return false;
    }
    std::string ns = GetStr(d, "namespace");
    std::string name = GetStr(d, "name");
    if (!store_.Delete(*r, ns, name)) {
      *error = "delete: no " + std::string(Info(*r).plural) + " " + ns + "/" + name;
      return false;
    }
    return true;
  }
  if (auto it = op.FindMember("patch"); it != op.MemberEnd()) {
    const auto& d = it->value;
    std::string kind = GetStr(d, "kind");
    auto r = ResourceFromKind(kind.empty() ? "Pod" : kind);
    std::string ns = GetStr(d, "namespace");
    std::string name = GetStr(d, "name");
    ObjectPtr cur = r ? store_.Get(*r, ns, name) : nullptr;
    auto merge = d.FindMember("merge");
    if (!cur || merge == d.MemberEnd()) {
      *error = "patch: needs an existing object (kind, namespace, name) and a \"merge\" object";
      return false;
    }
    rapidjson::Document doc;
    doc.Parse(cur->json.c_str(), cur->json.size());
    MergePatch(doc, merge->value, doc.GetAllocator());
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("pod"); it != op.MemberEnd()) {
    const rapidjson::Value& spec = it->value;
    rapidjson::Document filled;
    filled.CopyFrom(spec, filled.GetAllocator());
    ObjectPtr old = store_.Get(Resource::kPods, GetStr(spec, "namespace"), GetStr(spec, "name"));
    auto& alloc = filled.GetAllocator();
    if (old && filled.IsObject()) {
      // An update: keep the creation time and the times of conditions that stay True, and let
      // conditions that turn True now carry the current time.
      rapidjson::Document prev;
      prev.Parse(old->json.c_str(), old->json.size());
      auto cond_time = [&](const char* type) -> std::string {
        if (!prev.HasMember("status") || !prev["status"].HasMember("conditions")) return "";
        for (const auto& c : prev["status"]["conditions"].GetArray()) {
          if (GetStr(c, "type") == type && GetStr(c, "status") == "True") {
            return GetStr(c, "lastTransitionTime");
          }
        }
        return "";
      };
      auto fill = [&](const char* key, const std::string& value) {
        if (!filled.HasMember(key) && !value.empty()) {
          filled.AddMember(rapidjson::Value(key, alloc), rapidjson::Value(value.c_str(), alloc),
                           alloc);
        }
      };
      std::string now_text = FormatRfc3339(now / 1000 * 1000);
      fill("created", old->creation);
      fill("uid", old->uid);
      std::string t = cond_time("PodScheduled");
      fill("scheduledAt", t.empty() ? now_text : t);
      t = cond_time("Initialized");
      fill("initializedAt", t.empty() ? now_text : t);
      t = cond_time("Ready");
      fill("readyAt", t.empty() ? now_text : t);
      if (!filled.HasMember("since")) {
        for (const auto& c : prev["status"]["conditions"].GetArray()) {
          if (GetStr(c, "type") == "PodScheduled" && GetStr(c, "status") == "False") {
            fill("since", GetStr(c, "lastTransitionTime"));
          }
        }
      }
    } else if (filled.IsObject()) {
      // A new pod: transition times default to the creation time, never in the future.
      Timestamp created = now;
      std::string c = GetStr(filled, "created");
      if (!c.empty() && !ResolveTime(c, now, &created)) {
        *error = "pod " + GetStr(spec, "name") + ": bad created " + c;
        return false;
      }
      std::string ct = FormatRfc3339(std::min(created + 1000, now) / 1000 * 1000);
      for (const char* key : {"scheduledAt", "initializedAt", "readyAt"}) {
        if (!filled.HasMember(key)) {
          filled.AddMember(rapidjson::Value(key, alloc), rapidjson::Value(ct.c_str(), alloc),
                           alloc);
        }
      }
    }
    rapidjson::Document doc;
    if (!ExpandPod(filled, now, &doc, error)) return false;
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("pods"); it != op.MemberEnd() && it->value.IsArray()) {
    for (const auto& p : it->value.GetArray()) {
      rapidjson::Document one;
      one.SetObject();
      rapidjson::Value copy(p, one.GetAllocator());
      one.AddMember("pod", copy, one.GetAllocator());
      if (!ApplyOne(one, error)) return false;
    }
    return true;
  }
  if (auto it = op.FindMember("event"); it != op.MemberEnd()) {
    rapidjson::Document doc;
    PodUidLookup lookup = [this](const std::string& ns, const std::string& name) {
      ObjectPtr p = store_.Get(Resource::kPods, ns, name);
      return p ? p->uid : std::string();
    };
    if (!ExpandEvent(it->value, now, lookup, &doc, error)) return false;
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("tidbcluster"); it != op.MemberEnd()) {
    rapidjson::Document doc;
    if (!ExpandTidbCluster(it->value, now, &doc, error)) return false;
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("v2"); it != op.MemberEnd()) {
    // One object, or an array of them.
    if (it->value.IsArray()) {
      for (const auto& one : it->value.GetArray()) {
        rapidjson::Document doc;
        if (!ExpandV2(one, now, &doc, error)) return false;
        if (!UpsertDocument(std::move(doc), error)) return false;
      }
      return true;
    }
    rapidjson::Document doc;
    if (!ExpandV2(it->value, now, &doc, error)) return false;
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("configmap"); it != op.MemberEnd()) {
    rapidjson::Document doc;
    if (!ExpandConfigMap(it->value, now, &doc, error)) return false;
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("autoscalerStatus"); it != op.MemberEnd()) {
    rapidjson::Document doc;
    if (!ExpandAutoscalerStatus(it->value, now, &doc, error)) return false;
    return UpsertDocument(std::move(doc), error);
  }
  if (auto it = op.FindMember("pd"); it != op.MemberEnd()) {
    std::string ns = GetStr(it->value, "namespace");
    std::string cluster = GetStr(it->value, "cluster");
    if (ns.empty() || cluster.empty()) {
      *error = "pd op needs namespace and cluster";
      return false;
    }
    std::lock_guard<std::mutex> lock(pd_mu_);
    auto [pit, fresh] = pd_.try_emplace(ns + "/" + cluster);
    if (fresh) {
      pit->second.ns = ns;
      pit->second.cluster = cluster;
    }
    PdState next = pit->second;
    if (!ApplyPdSpec(it->value, now, &next, error)) return false;
    pit->second = std::move(next);
    return true;
  }
  if (auto it = op.FindMember("crd"); it != op.MemberEnd()) return ApplyCrds(it->value, error);
  if (op.HasMember("fault")) return ApplyFault(op, error);
  *error = "unknown op: " + ToJson(op).substr(0, 200);
  return false;
}

bool Simulator::ApplyFault(const rapidjson::Value& op, std::string* error) {
  std::string type = GetStr(op, "fault");
  std::string res = GetStr(op, "resource");
  std::optional<Resource> resource;
  if (!res.empty()) {
    resource = ResourceFromPlural(res);
    if (!resource) {
      *error = "fault: unknown resource " + res;
      return false;
    }
  }
  if (type == "drop_watches") {
    drop_reset_ = GetStr(op, "mode") == "reset";
    ++drop_generation_;
    store_.WakeAll();
    return true;
  }
  if (type == "compact") {
    store_.Compact();
    return true;
  }
  if (type == "expire_continue") {
    continue_floor_ = store_.CurrentRv() + 1;
    return true;
  }
  if (type == "stall") {
    stall_until_ms_ =
        clock_.MonotonicMs() + static_cast<int64_t>(GetDouble(op, "seconds", 30) * 1000);
    return true;
  }
  if (type == "malformed") {
    malformed_pending_[static_cast<int>(resource.value_or(Resource::kPods))] +=
        static_cast<int>(GetInt(op, "count", 1));
    store_.WakeAll();
    return true;
  }
  if (type == "oversized") {
    std::string ns = GetStr(op, "namespace");
    std::string name = GetStr(op, "name");
    Resource r = resource.value_or(Resource::kPods);
    ObjectPtr cur;
    if (name.empty()) {
      auto all = store_.Snapshot(r, ns);
      if (!all.empty()) cur = all.front();
    } else {
      cur = store_.Get(r, ns, name);
    }
    if (!cur) {
      *error = "oversized: no object to enlarge";
      return false;
    }
    size_t bytes = static_cast<size_t>(GetInt(op, "bytes", 3 << 20));
    rapidjson::Document doc;
    doc.Parse(cur->json.c_str(), cur->json.size());
    auto& alloc = doc.GetAllocator();
    auto& meta = doc["metadata"];
    if (!meta.HasMember("annotations")) {
      meta.AddMember("annotations", rapidjson::Value(rapidjson::kObjectType), alloc);
    }
    std::string padding(bytes, 'x');
    auto& ann = meta["annotations"];
    if (ann.HasMember("sim.podwait.io/padding")) ann.RemoveMember("sim.podwait.io/padding");
    ann.AddMember("sim.podwait.io/padding", rapidjson::Value(padding.c_str(), alloc), alloc);
    ++oversized_count_;
    return store_.Upsert(r, std::move(doc), error) != nullptr;
  }
  RequestFault f;
  f.resource = resource;
  f.verb = GetStr(op, "verb");
  if (f.verb.empty()) f.verb = "any";
  f.count = static_cast<int>(GetInt(op, "count", 1));
  if (type == "status") {
    f.kind = "status";
    f.code = static_cast<int>(GetInt(op, "code", 500));
    f.retry_after_s = GetInt(op, "retryAfter", f.code == 429 ? 1 : -1);
  } else if (type == "hang") {
    f.kind = "hang";
    f.hang_ms = static_cast<int64_t>(GetDouble(op, "seconds", 30) * 1000);
  } else if (type == "close" || type == "reset") {
    f.kind = type;
  } else if (type == "gone") {
    f.kind = "gone";
    f.gone_as_event = GetStr(op, "as") == "event";
    if (GetStr(op, "verb").empty()) f.verb = "watch";
    // Open watches end now (with an ERROR 410 event when as=event), so the next watch request
    // comes at once and meets the fault.
    gone_event_ = f.gone_as_event;
    ++gone_generation_;
  } else {
    *error = "unknown fault " + type;
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(fault_mu_);
    faults_.push_back(f);
  }
  store_.WakeAll();
  return true;
}

bool Simulator::RunStepLocked(size_t index, std::string* error) {
  const Step& step = steps_[index];
  rapidjson::Document ops;
  ops.Parse(step.ops_json.c_str(), step.ops_json.size());
  next_step_ = index + 1;
  LogInfo("step", {{"name", step.name}, {"index", std::to_string(index + 1)}});
  bool ok = Apply(ops, error);
  if (!ok) LogWarn("step failed", {{"name", step.name}, {"error", *error}});
  steps_cv_.notify_all();
  return ok;
}

bool Simulator::AdvanceOne(std::string* error) {
  std::lock_guard<std::mutex> lock(ops_mu_);
  if (next_step_ >= steps_.size()) {
    *error = "no step left";
    return false;
  }
  return RunStepLocked(next_step_, error);
}

bool Simulator::AdvanceTo(const std::string& name, std::string* error) {
  std::lock_guard<std::mutex> lock(ops_mu_);
  size_t target = steps_.size();
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].name == name) target = i;
  }
  if (target == steps_.size()) {
    *error = "no step named " + name;
    return false;
  }
  if (target < next_step_) return true;  // already done
  while (next_step_ <= target) {
    if (!RunStepLocked(next_step_, error)) return false;
  }
  return true;
}

void Simulator::Start() {
  {
    // The HTTP server may already answer /_sim/restart, which resets the start under ops_mu_.
    std::lock_guard<std::mutex> lock(ops_mu_);
    start_ms_ = clock_.MonotonicMs();
  }
  if (!options_.manual) timeline_thread_ = std::thread([this] { TimelineLoop(); });
  if (options_.churn_per_second > 0) churn_thread_ = std::thread([this] { ChurnLoop(); });
}

void Simulator::Stop() {
  if (stopping_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(ops_mu_);
    steps_cv_.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(sleep_mu_);
    sleep_cv_.notify_all();
  }
  store_.WakeAll();
  if (timeline_thread_.joinable()) timeline_thread_.join();
  if (churn_thread_.joinable()) churn_thread_.join();
}

void Simulator::SleepInterruptible(int64_t ms) {
  std::unique_lock<std::mutex> lock(sleep_mu_);
  sleep_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_.load(); });
}

void Simulator::TimelineLoop() {
  std::unique_lock<std::mutex> lock(ops_mu_);
  while (!stopping_.load()) {
    const bool story_over = next_step_ >= steps_.size();
    if (story_over && (!options_.loop || steps_.empty())) {
      steps_cv_.wait(lock, [this] { return stopping_.load(); });
      break;
    }
    int64_t at = story_over ? CycleMs() : steps_[next_step_].at_ms;
    int64_t due = start_ms_ + static_cast<int64_t>(static_cast<double>(at) / options_.time_scale);
    int64_t now = clock_.MonotonicMs();
    if (now >= due && story_over) {
      RestartStoryLocked();
    } else if (now >= due) {
      std::string error;
      RunStepLocked(next_step_, &error);
    } else {
      steps_cv_.wait_for(lock, std::chrono::milliseconds(due - now));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

void Simulator::Handle(const Request& req, Responder& resp) {
  const std::string& p = req.path;
  if (p.rfind("/api", 0) == 0 && (p.size() == 4 || p[4] == '/' || p.rfind("/apis", 0) == 0)) {
    HandleKube(req, resp);
  } else if (p == "/version" || p == "/version/") {
    if (CheckToken(req, resp)) resp.Send(200, kJson, VersionJson());
  } else if (p.rfind("/openapi/v3", 0) == 0) {
    if (CheckToken(req, resp)) ServeOpenApiV3(p, resp);
  } else if (p.rfind("/pd/", 0) == 0) {
    HandlePd(req, resp);
  } else if (p == "/ksm/metrics") {
    resp.Send(200, "text/plain; version=0.0.4; charset=utf-8",
              RenderKsm(store_.Snapshot(Resource::kPods)));
  } else if (p.rfind("/_sim/", 0) == 0) {
    HandleControl(req, resp);
  } else if (p == "/healthz" || p == "/readyz" || p == "/livez") {
    resp.Send(200, "text/plain; charset=utf-8", "ok");
  } else {
    resp.Send(404, "text/plain; charset=utf-8", "404 page not found\n");
  }
}

bool Simulator::CheckToken(const Request& req, Responder& resp) {
  if (options_.token_file.empty()) return true;
  std::ifstream in(options_.token_file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = ss.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) {
    token.pop_back();
  }
  if (!token.empty() && req.Header("authorization") == "Bearer " + token) return true;
  SendStatus(resp, 401, "Unauthorized");
  return false;
}

std::optional<Simulator::RequestFault> Simulator::TakeFault(Resource r, const std::string& verb) {
  std::lock_guard<std::mutex> lock(fault_mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (it->resource && *it->resource != r) continue;
    if (it->verb != "any" && it->verb != verb) continue;
    RequestFault f = *it;
    if (--it->count <= 0) faults_.erase(it);
    return f;
  }
  return std::nullopt;
}

bool Simulator::ServeFault(const RequestFault& f, Resource r, Responder& resp) {
  (void)r;
  if (f.kind == "status") {
    Headers extra;
    if (f.retry_after_s >= 0) extra.emplace_back("Retry-After", std::to_string(f.retry_after_s));
    SendStatus(resp, f.code, MessageForCode(f.code), extra);
  } else if (f.kind == "hang") {
    int64_t end = clock_.MonotonicMs() + f.hang_ms;
    while (!stopping_.load() && clock_.MonotonicMs() < end && !resp.PeerGone()) {
      SleepInterruptible(50);
    }
    resp.CloseWithoutResponse();
  } else if (f.kind == "close") {
    resp.CloseWithoutResponse();
  } else if (f.kind == "reset") {
    resp.Abort();
  } else if (f.kind == "gone") {
    uint64_t oldest = store_.OldestWatchableRv();
    if (f.gone_as_event) {
      resp.BeginChunked(200, kJson);
      resp.WriteChunk(ErrorEventLine(oldest, store_.CurrentRv()));
      resp.EndChunked();
    } else {
      SendStatus(resp, 410,
                 "too old resource version: " + std::to_string(oldest) + " (" +
                     std::to_string(store_.CurrentRv()) + ")");
    }
  }
  return true;
}

namespace {

// What follows the group version in a resource path.
struct ResourcePath {
  std::string ns;  // "" for all namespaces
  std::string plural;
  std::string name;  // "" for a list or watch
};

// "/<plural>", "/namespaces/<ns>/<plural>" or "/namespaces/<ns>/<plural>/<name>";
// "/<plural>/<name>" for a cluster-scoped resource.
std::optional<ResourcePath> SplitResourcePath(std::string_view rest) {
  std::vector<std::string> seg;
  while (!rest.empty()) {
    rest.remove_prefix(1);
    size_t slash = rest.find('/');
    seg.emplace_back(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  if (seg.size() == 1) return ResourcePath{"", seg[0], ""};
  if (seg.size() == 2 && seg[0] != "namespaces") return ResourcePath{"", seg[0], seg[1]};
  if ((seg.size() == 3 || seg.size() == 4) && seg[0] == "namespaces") {
    return ResourcePath{seg[1], seg[2], seg.size() == 4 ? seg[3] : ""};
  }
  return std::nullopt;
}

// 403 as the API server's RBAC authorizer words it.
void SendForbidden(Responder& resp, Resource r, const std::string& ns, const std::string& verb) {
  const std::string api_version(Info(r).api_version);
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  SendStatus(resp, 403,
             std::string(Info(r).plural) + " is forbidden: User \"" + std::string(kSimUser) +
                 "\" cannot " + verb + " resource \"" + Info(r).plural + "\" in API group \"" +
                 group + "\" " +
                 (ns.empty() ? "at the cluster scope" : "in the namespace \"" + ns + "\""));
}

}  // namespace

bool Simulator::Allowed(Resource r, const std::string& ns) const {
  if (options_.rbac_namespaces.empty()) return true;
  if (Info(r).cluster_scoped || ns.empty()) return false;
  return std::binary_search(options_.rbac_namespaces.begin(), options_.rbac_namespaces.end(), ns);
}

void Simulator::ServeAccessReview(const Request& req, Responder& resp) {
  if (req.method != "POST") {
    SendStatus(resp, 405, "the server does not allow this method on the requested resource");
    return;
  }
  rapidjson::Document doc;
  doc.Parse(req.body.c_str(), req.body.size());
  const rapidjson::Value* attrs = nullptr;
  if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("spec") && doc["spec"].IsObject() &&
      doc["spec"].HasMember("resourceAttributes") && doc["spec"]["resourceAttributes"].IsObject()) {
    attrs = &doc["spec"]["resourceAttributes"];
  }
  if (attrs == nullptr) {
    SendStatus(resp, 400, "SelfSubjectAccessReview without spec.resourceAttributes");
    return;
  }
  auto field = [&](const char* name) -> std::string {
    auto it = attrs->FindMember(name);
    return it != attrs->MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
  };
  const std::string ns = field("namespace");
  const std::string verb = field("verb");
  bool allowed = options_.rbac_namespaces.empty();
  if (!allowed && !ns.empty() && (verb == "get" || verb == "list" || verb == "watch")) {
    allowed =
        std::binary_search(options_.rbac_namespaces.begin(), options_.rbac_namespaces.end(), ns);
  }
  std::string spec = ToJson(doc["spec"]);
  resp.Send(201, kJson,
            "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":\"authorization.k8s.io/v1\","
            "\"metadata\":{\"creationTimestamp\":null},\"spec\":" +
                spec + ",\"status\":{\"allowed\":" + (allowed ? "true" : "false") +
                (allowed ? ",\"reason\":\"RBAC: allowed by the simulator\"" : "") + "}}");
}

void Simulator::HandleKube(const Request& req, Responder& resp) {
  if (!CheckToken(req, resp)) return;
  std::string_view path = req.path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") {
    ServeAccessReview(req, resp);
    return;
  }
  static constexpr std::string_view kCore = "/api/v1";
  static constexpr std::string_view kApis = "/apis";
  if (path == "/api") {
    resp.Send(200, kJson,
              "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":[{"
              "\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1:6443\"}]}");
    return;
  }
  std::string_view rest;
  std::string group_version;  // of the path: "v1", "pingcap.com/v1alpha1", ...
  if (path.rfind(kCore, 0) == 0 && (path.size() == kCore.size() || path[kCore.size()] == '/')) {
    group_version = "v1";
    rest = path.substr(kCore.size());
  } else if (path.rfind(kApis, 0) == 0 &&
             (path.size() == kApis.size() || path[kApis.size()] == '/')) {
    // /apis/<group>/<version>[/...]
    std::string_view gv = path.substr(std::min(path.size(), kApis.size() + 1));
    size_t slash = gv.find('/');
    size_t end = slash == std::string_view::npos ? slash : gv.find('/', slash + 1);
    if (end == std::string_view::npos) {  // /apis or /apis/<group>[/<version>]
      ServeDiscovery(path, resp);
      return;
    }
    group_version = std::string(gv.substr(0, end));
    rest = gv.substr(end);
  } else {
    SendStatus(resp, 404, "the server could not find the requested resource");
    return;
  }
  if (rest.empty() && group_version == "v1") {  // /api/v1
    ServeDiscovery(path, resp);
    return;
  }
  if (group_version == "v1" && MaybeServeServiceProxy(req, resp, rest)) return;
  auto where = SplitResourcePath(rest);
  if (!where) {
    SendStatus(resp, 404, "the server could not find the requested resource");
    return;
  }
  const std::string& ns = where->ns;
  const std::string& name = where->name;
  auto r = ResourceFromPlural(where->plural);
  // events.k8s.io/v1 Events are the core Events seen through another API (as on a real server).
  const bool events_v1 = group_version == kEventsV1 && r == Resource::kEvents;
  // A cluster-scoped resource has no namespaced paths, a namespaced one no /<plural>/<name>.
  const bool scope_ok = r && (Info(*r).cluster_scoped ? ns.empty()
                              : ns.empty()            ? name.empty()
                                                      : true);
  if (!r || !scope_ok || (Info(*r).api_version != group_version && !events_v1) || !Served(*r)) {
    SendStatus(resp, 404, "the server could not find the requested resource");
    return;
  }
  if (!Allowed(*r, ns)) {
    SendForbidden(resp, *r, ns,
                  req.method != "GET" ? "create"
                  : req.Has("watch")  ? "watch"
                                      : "list");
    return;
  }
  if (req.method != "GET" || events_v1) {
    ServeWrite(req, resp, *r, events_v1, ns, name);
    return;
  }
  TableOptions table;
  const bool as_table = WantsTable(req.Header("accept"));
  if (!ParseIncludeObject(req.Param("includeObject"), &table.include)) {
    SendStatus(resp, 400,
               "includeObject: unsupported value \"" + req.Param("includeObject") +
                   "\": supported values: \"None\", \"Metadata\", \"Object\"");
    return;
  }
  std::string watch = req.Param("watch");
  bool is_watch = watch == "1" || watch == "true";
  std::string verb = !name.empty() ? "get" : is_watch ? "watch" : "list";
  if (auto f = TakeFault(*r, verb)) {
    ServeFault(*f, *r, resp);
    return;
  }
  if (!name.empty()) {
    ObjectPtr o = store_.Get(*r, ns, name);
    if (!o) {
      resp.Send(404, kJson,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"" +
                    std::string(Info(*r).plural) + " \\\"" + JsonEscaped(name) +
                    "\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"" +
                    JsonEscaped(name) + "\",\"kind\":\"" + Info(*r).plural + "\"},\"code\":404}");
      return;
    }
    resp.Send(200, kJson, as_table ? TableJson(*r, {o}, "{}", table, clock_.Now()) : o->json);
    return;
  }
  Result<Selector> labels = Selector::ParseLabels(req.Param("labelSelector"));
  if (!labels.ok()) {
    SendStatus(resp, 400, "unable to parse requirement: " + labels.error);
    return;
  }
  Result<Selector> fields = Selector::ParseFields(req.Param("fieldSelector"));
  if (!fields.ok()) {
    SendStatus(resp, 400, "invalid selector: " + fields.error);
    return;
  }
  for (std::string_view key : fields->keys()) {
    if (!FieldSupported(*r, key)) {
      SendStatus(resp, 400, "field label not supported: " + std::string(key));
      return;
    }
  }
  std::optional<TableOptions> table_opt;
  if (as_table) table_opt = table;
  if (is_watch) {
    ServeWatch(req, resp, *r, ns, *labels, *fields, table_opt);
  } else {
    ServeList(req, resp, *r, ns, *labels, *fields, table_opt);
  }
}

void Simulator::ServeList(const Request& req, Responder& resp, Resource r, const std::string& ns,
                          const Selector& labels, const Selector& fields,
                          const std::optional<TableOptions>& table) {
  Store::ListQuery q;
  q.ns = ns;
  q.labels = labels;
  q.fields = fields;
  uint64_t limit = 0;
  if (req.Has("limit") && !req.Param("limit").empty() && !ParseUint(req.Param("limit"), &limit)) {
    SendStatus(resp, 400, "invalid limit: " + req.Param("limit"));
    return;
  }
  q.limit = static_cast<size_t>(limit);
  uint64_t list_rv = 0;
  std::string cont = req.Param("continue");
  if (!cont.empty()) {
    auto raw = Base64Decode(cont);
    rapidjson::Document tok;
    if (raw) tok.Parse(raw->c_str(), raw->size());
    if (!raw || tok.HasParseError() || !tok.IsObject() || !tok.HasMember("rv") ||
        !tok["rv"].IsUint64() || !tok.HasMember("start") || !tok["start"].IsString()) {
      SendStatus(resp, 400, "continue key is not valid: incorrect encoded start resourceVersion");
      return;
    }
    list_rv = tok["rv"].GetUint64();
    std::string start = tok["start"].GetString();
    if (!start.empty() && start.back() == '\0') start.pop_back();
    q.start_key = start;
    if (list_rv < store_.OldestWatchableRv() || list_rv < continue_floor_.load()) {
      SendStatus(resp, 410,
                 "The provided continue parameter is too old to display a consistent list result. "
                 "You can start a new list without the continue parameter.");
      return;
    }
  }
  Store::ListPage page = store_.List(r, q);
  if (list_rv == 0) list_rv = page.rv;
  const ResourceInfo& info = Info(r);
  std::string list_meta = "{\"resourceVersion\":\"" + std::to_string(list_rv) + "\"";
  if (!page.last_key.empty()) {
    std::string token = "{\"v\":\"meta.k8s.io/v1\",\"rv\":" + std::to_string(list_rv) +
                        ",\"start\":\"" + JsonEscaped(page.last_key) + "\\u0000\"}";
    list_meta += ",\"continue\":\"" + Base64Encode(token) + "\"";
    if (page.remaining >= 0) {
      list_meta += ",\"remainingItemCount\":" + std::to_string(page.remaining);
    }
  }
  list_meta += "}";
  if (table) {
    resp.Send(200, kJson, TableJson(r, page.items, list_meta, *table, clock_.Now()));
    return;
  }
  std::string body;
  size_t estimate = 128;
  for (const auto& o : page.items) estimate += o->json.size() + 1;
  body.reserve(estimate);
  body += "{\"kind\":\"";
  body += info.list_kind;
  body += "\",\"apiVersion\":\"";
  body += info.api_version;
  body += "\",\"metadata\":" + list_meta + ",\"items\":[";
  for (size_t i = 0; i < page.items.size(); ++i) {
    if (i) body.push_back(',');
    page.items[i]->AppendListItem(&body);
  }
  body += "]}";
  resp.Send(200, kJson, body);
}

void Simulator::ServeWatch(const Request& req, Responder& resp, Resource r, const std::string& ns,
                           const Selector& labels, const Selector& fields,
                           std::optional<TableOptions> table) {
  uint64_t timeout_s = static_cast<uint64_t>(options_.default_watch_timeout_s);
  if (req.Has("timeoutSeconds") && !ParseUint(req.Param("timeoutSeconds"), &timeout_s)) {
    SendStatus(resp, 400, "invalid timeoutSeconds");
    return;
  }
  std::string allow = req.Param("allowWatchBookmarks");
  bool bookmarks = allow == "true" || allow == "1";
  // The watch-list (KEP-3157): sendInitialEvents=true sends the state as ADDED events and ends
  // them with a bookmark annotated k8s.io/initial-events-end; false starts at the version.
  const bool watch_list = options_.watch_list != SimOptions::WatchList::kIgnore &&
                          (req.Has("sendInitialEvents") || req.Has("resourceVersionMatch"));
  if (watch_list) {
    const auto errors =
        WatchListErrors(req, options_.watch_list == SimOptions::WatchList::kOn, bookmarks);
    if (!errors.empty()) {
      SendInvalidListOptions(resp, errors);
      return;
    }
  }
  const bool send_initial = watch_list && req.Param("sendInitialEvents") == "true";
  std::string rv_param = req.Param("resourceVersion");
  uint64_t cursor = 0;
  std::vector<ObjectPtr> initial;
  if (watch_list && !send_initial && (rv_param.empty() || rv_param == "0")) {
    cursor = store_.CurrentRv();
  } else if (send_initial || rv_param.empty() || rv_param == "0") {
    // "Get state and start at most recent": synthetic ADDED events for what exists now.
    Store::ListQuery q;
    q.ns = ns;
    q.labels = labels;
    q.fields = fields;
    Store::ListPage page = store_.List(r, q);
    initial = std::move(page.items);
    cursor = page.rv;
  } else {
    if (!ParseUint(rv_param, &cursor)) {
      SendStatus(resp, 400, "invalid resourceVersion: " + rv_param);
      return;
    }
    uint64_t oldest = store_.OldestWatchableRv();
    if (cursor < oldest) {
      if (options_.gone_as_event) {
        resp.BeginChunked(200, kJson);
        resp.WriteChunk(ErrorEventLine(cursor, oldest));
        resp.EndChunked();
      } else {
        SendStatus(resp, 410,
                   "too old resource version: " + std::to_string(cursor) + " (" +
                       std::to_string(oldest) + ")");
      }
      return;
    }
  }
  if (!resp.BeginChunked(200, kJson)) return;
  ++open_watches_;
  struct Guard {
    std::atomic<int>& n;
    ~Guard() { --n; }
  } guard{open_watches_};

  const uint64_t drop_gen = drop_generation_.load();
  const uint64_t gone_gen = gone_generation_.load();
  const int64_t start = clock_.MonotonicMs();
  const int64_t deadline = start + static_cast<int64_t>(timeout_s) * 1000;
  int64_t next_bookmark = start + options_.bookmark_interval_ms;
  std::string table_text;
  auto matches = [&](const ObjectPtr& o) {
    return o && o->resource == r && (ns.empty() || o->ns == ns) &&
           MatchesLabels(labels, o->labels) && MatchesFields(fields, *o);
  };
  // The object of a watch event: the stored JSON, or a one-row Table (column definitions in the
  // first event only, as the API server saves them in the later ones).
  auto object_text = [&](const ObjectPtr& o) -> const std::string& {
    if (!table) return o->json;
    table_text = TableJson(r, {o}, "{\"resourceVersion\":\"" + std::to_string(o->rv) + "\"}",
                           *table, clock_.Now());
    table->column_definitions = false;
    return table_text;
  };
  std::string out;
  for (const auto& o : initial) {
    out += "{\"type\":\"ADDED\",\"object\":";
    out += object_text(o);
    out += "}\n";
    if (out.size() > 256 * 1024) {
      if (!resp.WriteChunk(out)) return;
      out.clear();
    }
  }
  if (send_initial) out += BookmarkLine(r, cursor, /*initial_events_end=*/true);
  if (!out.empty() && !resp.WriteChunk(out)) return;
  initial.clear();
  std::vector<HistoryEntry> entries;
  std::atomic<int>& malformed = malformed_pending_[static_cast<int>(r)];
  while (true) {
    if (stopping_.load()) {
      resp.EndChunked();
      return;
    }
    if (drop_generation_.load() != drop_gen) {
      if (drop_reset_.load()) {
        resp.Abort();
      } else {
        resp.set_keep_alive(false);
        resp.EndChunked();
      }
      return;
    }
    if (gone_generation_.load() != gone_gen) {
      if (gone_event_.load()) resp.WriteChunk(ErrorEventLine(cursor, store_.CurrentRv()));
      resp.EndChunked();
      return;
    }
    int64_t now = clock_.MonotonicMs();
    if (now >= deadline) {
      resp.EndChunked();
      return;
    }
    if (stall_until_ms_.load() > now) {
      SleepInterruptible(std::min<int64_t>(100, stall_until_ms_.load() - now));
      continue;
    }
    int pending = malformed.load();
    while (pending > 0 && !malformed.compare_exchange_weak(pending, pending - 1)) {
    }
    if (pending > 0) {
      if (!resp.WriteChunk("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"" +
                           std::string(Info(r).kind) + "\",\"metadata\":{\"name\":\"broken\n")) {
        return;
      }
    }
    entries.clear();
    if (!store_.Since(cursor, 1000, &entries)) {
      // The history moved past us while we were behind.
      resp.WriteChunk(ErrorEventLine(cursor, store_.OldestWatchableRv()));
      resp.EndChunked();
      return;
    }
    out.clear();
    for (const auto& e : entries) {
      cursor = e.obj->rv;
      bool now_in = matches(e.obj);
      const char* type = nullptr;
      switch (e.type) {
        case EventType::kAdded:
          if (now_in) type = "ADDED";
          break;
        case EventType::kDeleted:
          if (now_in) type = "DELETED";
          break;
        case EventType::kModified: {
          bool was_in = matches(e.prev);
          if (was_in && now_in)
            type = "MODIFIED";
          else if (now_in)
            type = "ADDED";
          else if (was_in)
            type = "DELETED";
          break;
        }
      }
      if (!type) continue;
      out += "{\"type\":\"";
      out += type;
      out += "\",\"object\":";
      out += object_text(e.obj);
      out += "}\n";
    }
    if (!out.empty()) {
      if (!resp.WriteChunk(out)) return;
      continue;
    }
    if (!entries.empty()) continue;
    now = clock_.MonotonicMs();
    if (bookmarks && now >= next_bookmark) {
      if (!resp.WriteChunk(BookmarkLine(r, cursor))) return;
      next_bookmark = now + options_.bookmark_interval_ms;
      continue;
    }
    if (resp.PeerGone()) return;
    int64_t wake = std::min(deadline, now + 200);
    if (bookmarks) wake = std::min(wake, next_bookmark);
    store_.WaitForChange(cursor, wake);
  }
}

void Simulator::HandlePd(const Request& req, Responder& resp) {
  // /pd/{ns}/{cluster}/pd/api/v1/<endpoint>
  std::string_view p = std::string_view(req.path).substr(4);
  size_t a = p.find('/');
  size_t b = a == std::string_view::npos ? a : p.find('/', a + 1);
  if (b == std::string_view::npos) {
    resp.Send(404, "text/plain; charset=utf-8", "404 page not found\n");
    return;
  }
  std::string key(p.substr(0, b));
  std::string_view rest = p.substr(b);
  PdState state;
  {
    std::lock_guard<std::mutex> lock(pd_mu_);
    ++pd_requests_[key];
    auto it = pd_.find(key);
    if (it == pd_.end()) {
      // No PD for this cluster: like a Service without endpoints, the connection goes nowhere.
      resp.CloseWithoutResponse();
      return;
    }
    state = it->second;
  }
  ServePdAnswer(state, rest, resp);
}

void Simulator::ServePdAnswer(const PdState& state, std::string_view rest, Responder& resp) {
  static constexpr std::string_view kPrefix = "/pd/api/v1";
  if (rest.rfind(kPrefix, 0) != 0) {
    resp.Send(404, "text/plain; charset=utf-8", "404 page not found\n");
    return;
  }
  PdAnswer answer = AnswerPd(state, rest.substr(kPrefix.size()));
  switch (answer.action) {
    case PdAnswer::kRespond:
      resp.Send(answer.status, answer.content_type, answer.body);
      break;
    case PdAnswer::kClose:
      resp.CloseWithoutResponse();
      break;
    case PdAnswer::kReset:
      resp.Abort();
      break;
    case PdAnswer::kHang: {
      int64_t end = clock_.MonotonicMs() + state.hang_seconds * 1000;
      while (!stopping_.load() && clock_.MonotonicMs() < end && !resp.PeerGone()) {
        SleepInterruptible(50);
      }
      resp.CloseWithoutResponse();
      break;
    }
  }
}

std::string Simulator::StateJson(const Request& req) {
  bool full = req.Param("full") == "1" || req.Param("full") == "true";
  std::string only = req.Param("resource");
  std::string out = "{\"resourceVersion\":\"" + std::to_string(store_.CurrentRv()) + "\"";
  {
    std::lock_guard<std::mutex> lock(ops_mu_);
    out += ",\"step\":" + std::to_string(next_step_) + ",\"cycle\":" + std::to_string(cycles_) +
           ",\"steps\":[";
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (i) out += ",";
      out += "{\"name\":\"" + JsonEscaped(steps_[i].name) + "\",\"at\":\"" +
             FormatDuration(steps_[i].at_ms) +
             "\",\"done\":" + (i < next_step_ ? "true" : "false") + "}";
    }
    out += "]";
  }
  out += ",\"openWatches\":" + std::to_string(open_watches_.load());
  out +=
      ",\"oldestWatchableResourceVersion\":\"" + std::to_string(store_.OldestWatchableRv()) + "\"";
  out += ",\"resources\":{";
  bool first = true;
  for (int i = 0; i < kResourceCount; ++i) {
    Resource r = static_cast<Resource>(i);
    if (!only.empty() && only != Info(r).plural) continue;
    if (!first) out += ",";
    first = false;
    out += "\"" + std::string(Info(r).plural) + "\":[";
    auto objs = store_.Snapshot(r);
    for (size_t j = 0; j < objs.size(); ++j) {
      if (j) out += ",";
      if (full) {
        out += objs[j]->json;
      } else {
        out += "{\"namespace\":\"" + JsonEscaped(objs[j]->ns) + "\",\"name\":\"" +
               JsonEscaped(objs[j]->name) + "\",\"uid\":\"" + objs[j]->uid +
               "\",\"resourceVersion\":\"" + std::to_string(objs[j]->rv) + "\"}";
      }
    }
    out += "]";
  }
  out += "},\"pd\":[";
  {
    std::lock_guard<std::mutex> lock(pd_mu_);
    bool f = true;
    for (const auto& [k, s] : pd_) {
      if (!f) out += ",";
      f = false;
      out += PdStateJson(s);
    }
    out += "],\"pdRequests\":{";
    f = true;
    for (const auto& [k, n] : pd_requests_) {
      if (!f) out += ",";
      f = false;
      out += "\"" + JsonEscaped(k) + "\":" + std::to_string(n);
    }
  }
  out += "}}";
  return out;
}

void Simulator::HandleControl(const Request& req, Responder& resp) {
  const std::string& p = req.path;
  if (p == "/_sim/state" && req.method == "GET") {
    resp.Send(200, kJson, StateJson(req));
    return;
  }
  if (p == "/_sim/healthz") {
    resp.Send(200, "text/plain", "ok");
    return;
  }
  if (req.method != "POST") {
    resp.Send(405, "text/plain", "use POST\n");
    return;
  }
  rapidjson::Document body;
  if (!req.body.empty()) {
    body.Parse(req.body.c_str(), req.body.size());
    if (body.HasParseError()) {
      resp.Send(400, kJson, "{\"error\":\"body is not valid JSON\"}");
      return;
    }
  }
  std::string error;
  bool ok = false;
  if (p == "/_sim/advance") {
    std::string to = req.Param("to");
    if (to.empty() && body.IsObject()) to = GetStr(body, "to");
    if (!to.empty()) {
      ok = AdvanceTo(to, &error);
    } else {
      int64_t n = 1;
      uint64_t parsed;
      if (ParseUint(req.Param("steps"), &parsed)) n = static_cast<int64_t>(parsed);
      if (body.IsObject()) n = GetInt(body, "steps", n);
      ok = true;
      for (int64_t i = 0; i < n && ok; ++i) ok = AdvanceOne(&error);
    }
  } else if (p == "/_sim/restart") {
    std::lock_guard<std::mutex> lock(ops_mu_);
    RestartStoryLocked();
    steps_cv_.notify_all();  // the timeline waits for the first step again
    ok = true;
  } else if (p == "/_sim/apply") {
    std::lock_guard<std::mutex> lock(ops_mu_);
    ok = Apply(body, &error);
  } else if (p == "/_sim/fault") {
    if (!body.IsObject() || !body.HasMember("fault")) {
      error = "body must be a fault object: {\"fault\": \"<type>\", ...}";
    } else {
      std::lock_guard<std::mutex> lock(ops_mu_);
      ok = ApplyFault(body, &error);
    }
  } else {
    resp.Send(404, "text/plain", "404 page not found\n");
    return;
  }
  if (!ok) {
    resp.Send(p == "/_sim/advance" ? 409 : 400, kJson,
              "{\"error\":\"" + JsonEscaped(error) + "\"}");
    return;
  }
  resp.Send(200, kJson,
            "{\"resourceVersion\":\"" + std::to_string(store_.CurrentRv()) +
                "\",\"step\":" + std::to_string(steps_done()) + "}");
}

}  // namespace podwait::sim
