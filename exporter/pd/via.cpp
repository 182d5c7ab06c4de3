#include "exporter/pd/via.h"

#include <cctype>
#include <vector>

#include "exporter/common/json.h"
#include "exporter/common/label_values.h"

namespace podwait {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// <name>.<namespace>[.svc[.<domain>...]], every label DNS-1123.
bool SetServiceHost(std::string_view host, PdServiceAddress* out) {
  const std::vector<std::string_view> labels = Split(host, '.');
  if (labels.size() < 2) return false;
  for (std::string_view label : labels) {
    if (!IsDns1123Label(label)) return false;
  }
  if (labels.size() >= 3 && labels[2] != "svc") return false;
  if (AllDigits(labels.back())) return false;  // an IPv4 address
  out->name = std::string(labels[0]);
  out->namespace_ = std::string(labels[1]);
  return true;
}

}  // namespace

std::optional<PdServiceAddress> PdServiceOf(std::string_view base_url) {
  const size_t colon_slashes = base_url.find("://");
  if (colon_slashes == std::string_view::npos) return std::nullopt;
  const std::string scheme = Lower(base_url.substr(0, colon_slashes));
  if (scheme != "http" && scheme != "https") return std::nullopt;
  std::string_view rest = base_url.substr(colon_slashes + 3);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos || authority.find('[') == 0) {
    return std::nullopt;
  }
  PdServiceAddress out;
  out.https = scheme == "https";
  const size_t port_colon = authority.find(':');
  out.port = out.https ? "443" : "80";
  if (port_colon != std::string_view::npos) {
    const std::string_view port = authority.substr(port_colon + 1);
    if (!AllDigits(port) || port.size() > 5) return std::nullopt;
    out.port = std::string(port);
    authority = authority.substr(0, port_colon);
  }
  if (!SetServiceHost(Lower(authority), &out)) return std::nullopt;
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find_first_of("?#") != std::string_view::npos) return std::nullopt;
  out.path = std::string(path);
  return out;
}

std::string ServiceProxyBaseUrl(std::string_view api_url, const PdServiceAddress& service) {
  std::string url(api_url);
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/api/v1/namespaces/" + service.namespace_ + "/services/";
  if (service.https) url += "https:";
  url += service.name + ":" + service.port + "/proxy" + service.path;
  return url;
}

std::optional<ApiServerStatus> ApiServerStatusOf(const HttpResponse& response) {
  if (!response.error.empty() || (response.status >= 200 && response.status < 300)) {
    return std::nullopt;
  }
  if (response.body.find("\"Status\"") == std::string::npos) return std::nullopt;
  Result<rapidjson::Document> doc = json::Parse(response.body);
  if (!doc.ok() || !doc.value->IsObject()) return std::nullopt;
  const rapidjson::Value* root = &*doc.value;
  if (json::Str(root, "kind") != "Status" || json::Str(root, "apiVersion") != "v1") {
    return std::nullopt;
  }
  ApiServerStatus status;
  status.code = response.status;
  status.reason = std::string(json::Str(root, "reason"));
  status.message = std::string(json::Str(root, "message").substr(0, 300));
  return status;
}

std::string ServiceProxyGrant(std::string_view namespace_) {
  const std::string ns(namespace_);
  return "kubectl -n " + ns + " create role pd-proxy --verb=get --resource=services/proxy && " +
         "kubectl -n " + ns + " create rolebinding pd-proxy --role=pd-proxy --user=<you>";
}

}  // namespace podwait
