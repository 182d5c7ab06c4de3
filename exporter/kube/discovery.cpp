#include "exporter/kube/discovery.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "exporter/common/json.h"

namespace podwait {
namespace {

// The request, or nullopt when its token is not at hand: a start never waits for a credential
// plugin (one that hangs would hold the start and its SIGTERM; the reflectors fetch the token).
std::optional<HttpRequest> Request(const ApiQuery& query, const std::string& path) {
  HttpRequest req;
  req.url = query.endpoint.api_url + path;
  req.tls = query.endpoint.tls;
  req.timeout_ms = query.timeout_ms;
  req.headers.emplace_back("Accept", "application/json");
  if (query.tokens != nullptr) {
    const std::string token =
        query.tokens->may_block() ? query.tokens->CachedToken() : query.tokens->Token();
    if (token.empty() && query.tokens->may_block()) return std::nullopt;
    if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
  }
  return req;
}

constexpr const char* kNoToken = "no token at hand yet (the credential plugin has not run)";

std::string Failure(const std::string& what, const HttpResponse& resp) {
  return what + ": " + (resp.error.empty() ? "HTTP " + std::to_string(resp.status) : resp.error);
}

Result<rapidjson::Document> GetJson(const ApiQuery& query, const std::string& path) {
  std::optional<HttpRequest> req = Request(query, path);
  if (!req) return Result<rapidjson::Document>::Fail(kNoToken);
  const HttpResponse resp = query.http.Get(*req, 16u << 20);
  if (!resp.ok()) return Result<rapidjson::Document>::Fail(Failure("GET " + path, resp));
  return json::Parse(resp.body);
}

// The group versions /apis lists.
std::set<std::string> ListedGroupVersions(const rapidjson::Value& groups) {
  std::set<std::string> out;
  const rapidjson::Value* list = json::Member(groups, "groups");
  if (list == nullptr || !list->IsArray()) return out;
  for (const auto& group : list->GetArray()) {
    const rapidjson::Value* versions = json::Member(group, "versions");
    if (versions == nullptr || !versions->IsArray()) continue;
    for (const auto& v : versions->GetArray()) {
      const std::string_view gv = json::Str(&v, "groupVersion");
      if (!gv.empty()) out.emplace(gv);
    }
  }
  return out;
}

std::set<std::string> Plurals(const rapidjson::Value& resource_list) {
  std::set<std::string> out;
  const rapidjson::Value* resources = json::Member(resource_list, "resources");
  if (resources == nullptr || !resources->IsArray()) return out;
  for (const auto& r : resources->GetArray()) {
    const std::string_view name = json::Str(&r, "name");
    if (!name.empty() && name.find('/') == std::string_view::npos) out.emplace(name);
  }
  return out;
}

}  // namespace

std::pair<std::string, std::string> CollectionOf(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    if (slash != 0) parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  if (parts.size() >= 3 && parts[0] == "api") {
    return {std::string(parts[1]), std::string(parts.back())};
  }
  if (parts.size() >= 4 && parts[0] == "apis") {
    return {std::string(parts[1]) + "/" + std::string(parts[2]), std::string(parts.back())};
  }
  return {};
}

std::string GroupOf(std::string_view api_prefix) {
  constexpr std::string_view kApis = "/apis/";
  if (api_prefix.substr(0, kApis.size()) != kApis) return "";
  api_prefix.remove_prefix(kApis.size());
  return std::string(api_prefix.substr(0, api_prefix.find('/')));
}

void ApiResources::Add(const std::string& group_version, std::set<std::string> plurals) {
  served_[group_version] = std::move(plurals);
}

std::optional<bool> ApiResources::Serves(std::string_view path) const {
  const auto [gv, plural] = CollectionOf(path);
  auto it = served_.find(gv);
  if (gv.empty() || it == served_.end()) return std::nullopt;
  return it->second.count(plural) > 0;
}

Result<ApiResources> DiscoverResources(const ApiQuery& query,
                                       const std::set<std::string>& group_versions) {
  using R = Result<ApiResources>;
  Result<rapidjson::Document> groups = GetJson(query, "/apis");
  if (!groups.ok()) return R::Fail(groups.error);
  const std::set<std::string> listed = ListedGroupVersions(*groups);
  ApiResources out;
  for (const std::string& gv : group_versions) {
    if (gv == "v1" || gv.empty()) continue;
    if (listed.count(gv) == 0) {
      out.Add(gv, {});
      continue;
    }
    Result<rapidjson::Document> resources = GetJson(query, "/apis/" + gv);
    if (resources.ok()) out.Add(gv, Plurals(*resources));  // else unknown: asked for later
  }
  return R::Ok(std::move(out));
}

Result<bool> MayInEveryNamespace(const ApiQuery& query, const std::string& group,
                                 const std::string& resource, const std::string& verb) {
  rapidjson::StringBuffer body;
  rapidjson::Writer<rapidjson::StringBuffer> w(body);
  w.StartObject();
  w.Key("kind");
  w.String("SelfSubjectAccessReview");
  w.Key("apiVersion");
  w.String("authorization.k8s.io/v1");
  w.Key("spec");
  w.StartObject();
  w.Key("resourceAttributes");
  w.StartObject();
  w.Key("verb");
  w.String(verb.c_str());
  w.Key("group");
  w.String(group.c_str());
  w.Key("resource");
  w.String(resource.c_str());
  w.EndObject();
  w.EndObject();
  w.EndObject();
  std::optional<HttpRequest> req =
      Request(query, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
  if (!req) return Result<bool>::Fail(kNoToken);
  req->method = "POST";
  req->body = body.GetString();
  req->headers.emplace_back("Content-Type", "application/json");
  const HttpResponse resp = query.http.Write(*req, 1 << 20);
  if (!resp.ok()) {
    return Result<bool>::Fail(Failure("SelfSubjectAccessReview of " + verb + " " + resource, resp));
  }
  Result<rapidjson::Document> doc = json::Parse(resp.body);
  if (!doc.ok()) return Result<bool>::Fail(doc.error);
  const rapidjson::Value* allowed = json::Member(json::Object(&*doc, "status"), "allowed");
  return Result<bool>::Ok(allowed != nullptr && allowed->IsBool() && allowed->GetBool());
}

}  // namespace podwait
