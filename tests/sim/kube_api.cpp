// The parts of the Kubernetes API a real client (kubectl) needs beyond list and watch: /version,
// discovery (/api/v1, /apis, /apis/<group>/<version>), the writes of Events, and the service
// proxy of the PD Services.

#include <rapidjson/document.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "exporter/common/json_escape.h"
#include "tests/sim/simulator.h"

namespace podwait::sim {

namespace {

constexpr const char* kJsonType = "application/json";

void SendError(Responder& resp, int code, std::string_view reason, std::string_view message) {
  resp.Send(code, kJsonType, StatusJson(code, reason, message));
}

void AppendNames(std::string* out, const char* key, std::string_view comma_separated) {
  if (comma_separated.empty()) return;
  *out += std::string(",\"") + key + "\":[";
  bool first = true;
  while (!comma_separated.empty()) {
    size_t comma = comma_separated.find(',');
    if (!first) *out += ",";
    *out += "\"" + std::string(comma_separated.substr(0, comma)) + "\"";
    first = false;
    comma_separated =
        comma == std::string_view::npos ? std::string_view() : comma_separated.substr(comma + 1);
  }
  *out += "]";
}

// One APIResource of a discovery document (and its status subresource when it has one).
void AppendApiResource(std::string* out, const ResourceInfo& info, const char* kind,
                       const char* verbs, const char* short_names) {
  if (out->back() != '[') *out += ",";
  const char* namespaced = info.cluster_scoped ? "false" : "true";
  *out += std::string("{\"name\":\"") + info.plural + "\",\"singularName\":\"" + info.singular +
          "\",\"namespaced\":" + namespaced + ",\"kind\":\"" + kind + "\",\"verbs\":[" + verbs +
          "]";
  AppendNames(out, "shortNames", short_names);
  AppendNames(out, "categories", info.categories);
  *out += "}";
  if (info.status) {
    *out += std::string(",{\"name\":\"") + info.plural +
            "/status\",\"singularName\":\"\",\"namespaced\":" + namespaced + ",\"kind\":\"" + kind +
            "\",\"verbs\":[\"get\"]}";
  }
}

// Events are writable; everything else is read-only.
const char* VerbsOf(Resource r) {
  return r == Resource::kEvents
             ? "\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\",\"watch\""
             : "\"get\",\"list\",\"watch\"";
}

std::string GroupJson(const std::string& group_version) {
  std::string group = group_version.substr(0, group_version.find('/'));
  std::string version = group_version.substr(group_version.find('/') + 1);
  std::string gv = "{\"groupVersion\":\"" + group_version + "\",\"version\":\"" + version + "\"}";
  return "{\"name\":\"" + group + "\",\"versions\":[" + gv + "],\"preferredVersion\":" + gv + "}";
}

// events.k8s.io/v1 field names and the core v1 ones they are stored as (the API server's
// conversion: k8s.io/api events/v1 Event vs core/v1 Event).
constexpr std::pair<const char*, const char*> kEventFieldNames[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
};

// Renames the members of an Event between the two APIs and sets its kind/apiVersion.
void ConvertEvent(rapidjson::Document& doc, bool to_core) {
  if (!doc.IsObject()) return;
  auto& alloc = doc.GetAllocator();
  for (const auto& [v1_name, core_name] : kEventFieldNames) {
    const char* from = to_core ? v1_name : core_name;
    const char* to = to_core ? core_name : v1_name;
    auto it = doc.FindMember(from);
    if (it == doc.MemberEnd()) continue;
    rapidjson::Value value(it->value, alloc);
    doc.RemoveMember(from);
    doc.RemoveMember(to);
    doc.AddMember(rapidjson::Value(to, alloc), value, alloc);
  }
  doc.RemoveMember("kind");
  doc.RemoveMember("apiVersion");
  doc.AddMember("kind", "Event", alloc);
  doc.AddMember("apiVersion",
                rapidjson::Value(to_core ? "v1" : std::string(kEventsV1).c_str(), alloc), alloc);
}

std::string EventAs(const Object& o, bool events_v1) {
  if (!events_v1) return o.json;
  rapidjson::Document doc;
  doc.Parse(o.json.c_str(), o.json.size());
  ConvertEvent(doc, false);
  return ToJson(doc);
}

rapidjson::Value* MetadataOf(rapidjson::Document& doc) {
  if (!doc.IsObject()) return nullptr;
  auto it = doc.FindMember("metadata");
  if (it == doc.MemberEnd()) {
    doc.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), doc.GetAllocator());
    it = doc.FindMember("metadata");
  }
  return it->value.IsObject() ? &it->value : nullptr;
}

std::string MetaString(const rapidjson::Value& meta, const char* key) {
  auto it = meta.FindMember(key);
  return it != meta.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

void SetMetaString(rapidjson::Document& doc, rapidjson::Value& meta, const char* key,
                   const std::string& value) {
  meta.RemoveMember(key);
  meta.AddMember(rapidjson::Value(key, doc.GetAllocator()),
                 rapidjson::Value(value.c_str(), doc.GetAllocator()), doc.GetAllocator());
}

}  // namespace

std::string VersionJson() {
  return "{\"major\":\"1\",\"minor\":\"31\",\"gitVersion\":\"v1.31.0-sim\","
         "\"gitCommit\":\"0000000000000000000000000000000000000000\",\"gitTreeState\":\"clean\","
         "\"buildDate\":\"2024-08-13T00:00:00Z\",\"goVersion\":\"go1.22.5\",\"compiler\":\"gc\","
         "\"platform\":\"linux/amd64\"}";
}

void Simulator::ServeDiscovery(std::string_view path, Responder& resp) {
  // The group versions served under /apis: events.k8s.io/v1 (built in, listed first as the API
  // server does), then those of the installed custom resources, in table order.
  std::vector<std::string> versions = {std::string(kEventsV1), std::string(kAuthorizationV1)};
  for (int i = 0; i < kResourceCount; ++i) {
    const ResourceInfo& info = Info(static_cast<Resource>(i));
    if (info.core || !Served(info.resource)) continue;
    if (std::find(versions.begin(), versions.end(), info.api_version) == versions.end()) {
      versions.push_back(info.api_version);
    }
  }
  if (path == "/apis") {
    std::string body = "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[";
    for (size_t i = 0; i < versions.size(); ++i) body += (i ? "," : "") + GroupJson(versions[i]);
    body += "]}";
    resp.Send(200, kJsonType, body);
    return;
  }
  std::string gv =
      path == "/api/v1" ? "v1" : std::string(path.substr(std::string_view("/apis/").size()));
  if (gv != "v1" && std::find(versions.begin(), versions.end(), gv) == versions.end()) {
    SendError(resp, 404, "NotFound", "the server could not find the requested resource");
    return;
  }
  // What the API server lists: each resource with its verbs (only those the simulator serves),
  // names and categories, and its status subresource.
  std::string body = "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" +
                     gv + "\",\"resources\":[";
  if (gv == kEventsV1) {
    AppendApiResource(&body, Info(Resource::kEvents), "Event",
                      "\"create\",\"delete\",\"patch\",\"update\"", "ev");
  }
  if (gv == kAuthorizationV1) {
    body +=
        "{\"name\":\"selfsubjectaccessreviews\",\"singularName\":\"selfsubjectaccessreview\","
        "\"namespaced\":false,\"kind\":\"SelfSubjectAccessReview\",\"verbs\":[\"create\"]}";
  }
  for (Resource r : ResourcesOf(gv)) {
    if (!Served(r)) continue;
    const ResourceInfo& info = Info(r);
    AppendApiResource(&body, info, info.kind, VerbsOf(r), info.short_names);
  }
  body += "]}";
  resp.Send(200, kJsonType, body);
}

void Simulator::ServeOpenApiV3(std::string_view path, Responder& resp) {
  // The Event APIs, the only writable ones; <api path> -> (group, prefix).
  struct EventApi {
    std::string_view path, group, version, prefix;
  };
  static constexpr EventApi kApis[] = {
      {"api/v1", "", "v1", "/api/v1"},
      {"apis/events.k8s.io/v1", "events.k8s.io", "v1", "/apis/events.k8s.io/v1"},
  };
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/openapi/v3") {
    std::string body = "{\"paths\":{";
    for (const auto& api : kApis) {
      if (body.back() != '{') body += ",";
      body += "\"" + std::string(api.path) + "\":{\"serverRelativeURL\":\"/openapi/v3/" +
              std::string(api.path) + "\"}";
    }
    resp.Send(200, kJsonType, body + "}}");
    return;
  }
  for (const auto& api : kApis) {
    if (path.substr(std::string_view("/openapi/v3/").size()) != api.path) continue;
    std::string gvk = "{\"group\":\"" + std::string(api.group) + "\",\"version\":\"" +
                      std::string(api.version) + "\",\"kind\":\"Event\"}";
    std::string param =
        "{\"name\":\"fieldValidation\",\"in\":\"query\",\"description\":\"fieldValidation "
        "instructs the server on how to handle objects in the request containing unknown or "
        "duplicate fields.\",\"schema\":{\"type\":\"string\",\"uniqueItems\":true}}";
    std::string op = "{\"parameters\":[" + param + "],\"x-kubernetes-group-version-kind\":" + gvk +
                     ",\"responses\":{\"200\":{\"description\":\"OK\"}}}";
    resp.Send(
        200, kJsonType,
        "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Kubernetes\",\"version\":\"v1.31.0-sim\"},"
        "\"paths\":{\"" +
            std::string(api.prefix) + "/namespaces/{namespace}/events\":{\"post\":" + op + "},\"" +
            std::string(api.prefix) + "/namespaces/{namespace}/events/{name}\":{\"patch\":" + op +
            "}},\"components\":{}}");
    return;
  }
  SendError(resp, 404, "NotFound", "the server could not find the requested resource");
}

void Simulator::ServeWrite(const Request& req, Responder& resp, Resource r, bool events_v1,
                           const std::string& ns, const std::string& name) {
  const std::string& method = req.method;
  const bool allowed =
      r == Resource::kEvents && !ns.empty() &&
      ((method == "POST" && name.empty()) ||
       ((method == "PUT" || method == "PATCH" || method == "DELETE") && !name.empty()));
  if (!allowed) {
    SendError(resp, 405, "MethodNotAllowed",
              method + " is not supported on this path by the simulator (only Events are written)");
    return;
  }
  std::lock_guard<std::mutex> lock(ops_mu_);
  ObjectPtr existing = name.empty() ? nullptr : store_.Get(r, ns, name);
  if (!name.empty() && !existing) {
    SendError(resp, 404, "NotFound", "events \"" + name + "\" not found");
    return;
  }
  if (method == "DELETE") {
    store_.Delete(r, ns, name);
    resp.Send(200, kJsonType,
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\","
              "\"details\":{\"name\":\"" +
                  JsonEscaped(name) + "\",\"kind\":\"events\",\"uid\":\"" + existing->uid + "\"}}");
    return;
  }
  rapidjson::Document doc;
  std::string content_type = req.Header("content-type");
  if (method == "PATCH") {
    if (content_type.rfind("application/merge-patch+json", 0) != 0 &&
        content_type.rfind("application/strategic-merge-patch+json", 0) != 0) {
      SendError(resp, 415, "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: "
                "application/merge-patch+json, application/strategic-merge-patch+json");
      return;
    }
    rapidjson::Document patch;
    patch.Parse(req.body.c_str(), req.body.size());
    if (patch.HasParseError() || !patch.IsObject()) {
      SendError(resp, 400, "BadRequest", "the patch is not a JSON object");
      return;
    }
    doc.Parse(existing->json.c_str(), existing->json.size());
    if (events_v1) ConvertEvent(doc, false);
    MergePatch(doc, patch, doc.GetAllocator());
  } else {
    doc.Parse(req.body.c_str(), req.body.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      SendError(resp, 400, "BadRequest", "the body is not a JSON object");
      return;
    }
  }
  if (events_v1) ConvertEvent(doc, true);
  rapidjson::Value* meta = MetadataOf(doc);
  if (!meta) {
    SendError(resp, 400, "BadRequest", "metadata is not an object");
    return;
  }
  std::string doc_ns = MetaString(*meta, "namespace");
  if (!doc_ns.empty() && doc_ns != ns) {
    SendError(resp, 400, "BadRequest",
              "the namespace of the provided object does not match the namespace sent on the "
              "request");
    return;
  }
  SetMetaString(doc, *meta, "namespace", ns);
  std::string doc_name = MetaString(*meta, "name");
  if (method == "POST" && doc_name.empty() && !MetaString(*meta, "generateName").empty()) {
    doc_name = MetaString(*meta, "generateName") + store_.NewUid().substr(0, 5);
    SetMetaString(doc, *meta, "name", doc_name);
  }
  if (doc_name.empty() || (!name.empty() && doc_name != name)) {
    SendError(resp, name.empty() ? 422 : 400, name.empty() ? "Invalid" : "BadRequest",
              name.empty() ? "Event.events \"\" is invalid: metadata.name: Required value: name or "
                             "generateName is required"
                           : "the name of the object (" + doc_name +
                                 ") does not match the name on the URL (" + name + ")");
    return;
  }
  if (method == "POST" && store_.Get(r, ns, doc_name)) {
    SendError(resp, 409, "AlreadyExists", "events \"" + doc_name + "\" already exists");
    return;
  }
  std::string error;
  ObjectPtr stored = store_.Upsert(r, std::move(doc), &error);
  if (!stored) {
    SendError(resp, 422, "Invalid", error);
    return;
  }
  resp.Send(method == "POST" ? 201 : 200, kJsonType, EventAs(*stored, events_v1));
}

// ---------------------------------------------------------------------------------------------
// The service proxy of PD Services: /api/v1/namespaces/<ns>/services/<svc>/proxy/<path>, as the
// API server's (k8s.io/apiserver's proxy handler of the services/proxy subresource): <svc> is
// [http:|https:]<name>[:<port>]; the answer of the PD behind it is passed through (the scheme
// and port are not checked: a simulated PD speaks plain HTTP on the simulator's port).

namespace {

struct ServiceProxyPath {
  std::string ns;
  std::string service;  // as written: [scheme:]name[:port]
  std::string name;
  std::string path;  // after /proxy, "" or "/..."
};

std::optional<ServiceProxyPath> ParseServiceProxyPath(std::string_view rest) {
  static constexpr std::string_view kNamespaces = "/namespaces/";
  if (rest.rfind(kNamespaces, 0) != 0) return std::nullopt;
  rest.remove_prefix(kNamespaces.size());
  const size_t ns_end = rest.find('/');
  if (ns_end == std::string_view::npos) return std::nullopt;
  ServiceProxyPath out;
  out.ns = std::string(rest.substr(0, ns_end));
  rest.remove_prefix(ns_end);
  static constexpr std::string_view kServices = "/services/";
  if (rest.rfind(kServices, 0) != 0) return std::nullopt;
  rest.remove_prefix(kServices.size());
  const size_t svc_end = rest.find('/');
  if (svc_end == std::string_view::npos) return std::nullopt;
  out.service = std::string(rest.substr(0, svc_end));
  rest.remove_prefix(svc_end);
  static constexpr std::string_view kProxy = "/proxy";
  if (rest.rfind(kProxy, 0) != 0 || (rest.size() > kProxy.size() && rest[kProxy.size()] != '/')) {
    return std::nullopt;
  }
  out.path = std::string(rest.substr(kProxy.size()));
  std::string_view name = out.service;
  if (name.rfind("http:", 0) == 0) name.remove_prefix(5);
  if (name.rfind("https:", 0) == 0) name.remove_prefix(6);
  out.name = std::string(name.substr(0, name.find(':')));
  return out;
}

// The host of a URL ("http://basic-pd.tidb:2379" -> "basic-pd.tidb").
std::string_view UrlHost(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  return url.substr(0, url.find_first_of(":/"));
}

}  // namespace

std::string Simulator::ClusterOfPdService(const std::string& ns, const std::string& service) {
  if (service.size() > 3 && service.compare(service.size() - 3, 3, "-pd") == 0) {
    std::string cluster = service.substr(0, service.size() - 3);
    std::lock_guard<std::mutex> lock(pd_mu_);
    if (pd_.count(ns + "/" + cluster) != 0) return cluster;
  }
  const std::optional<Resource> clusters = ResourceFromPlural("clusters");
  if (!clusters) return "";
  for (const ObjectPtr& o : store_.Snapshot(*clusters, ns)) {
    rapidjson::Document doc;
    doc.Parse(o->json.c_str(), o->json.size());
    if (!doc.IsObject() || !doc.HasMember("status") || !doc["status"].IsObject()) continue;
    const rapidjson::Value& status = doc["status"];
    if (!status.HasMember("pd") || !status["pd"].IsString()) continue;
    const std::string_view host = UrlHost(status["pd"].GetString());
    if (host == service || host.rfind(service + ".", 0) == 0) return o->name;
  }
  return "";
}

bool Simulator::MaybeServeServiceProxy(const Request& req, Responder& resp, std::string_view rest) {
  const std::optional<ServiceProxyPath> p = ParseServiceProxyPath(rest);
  if (!p) return false;
  if (options_.forbid_service_proxy) {
    resp.Send(
        403, kJsonType,
        StatusJson(403, "Forbidden",
                   "services \"" + p->service +
                       "\" is forbidden: User \"sim-user\" cannot "
                       "get resource \"services/proxy\" in API group \"\" in the namespace \"" +
                       p->ns + "\""));
    return true;
  }
  if (req.method != "GET") {
    SendError(resp, 405, "MethodNotAllowed", "the simulator's service proxy serves GET only");
    return true;
  }
  const std::string cluster = ClusterOfPdService(p->ns, p->name);
  std::optional<PdState> state;
  {
    std::lock_guard<std::mutex> lock(pd_mu_);
    auto it = pd_.find(p->ns + "/" + cluster);
    if (!cluster.empty() && it != pd_.end()) state = it->second;
  }
  if (!state) {
    // A Service without a cluster behind it; a cluster whose PD has no pod Ready has no
    // endpoints (the API server: 503 "no endpoints available for service").
    const bool pd_name = p->name.size() > 3 && p->name.compare(p->name.size() - 3, 3, "-pd") == 0;
    if (cluster.empty() && !pd_name) {
      SendError(resp, 404, "NotFound", "services \"" + p->name + "\" not found");
    } else {
      SendError(resp, 503, "ServiceUnavailable",
                "no endpoints available for service \"" + p->service + "\"");
    }
    return true;
  }
  ServePdAnswer(*state, p->path, resp);
  return true;
}

}  // namespace podwait::sim
