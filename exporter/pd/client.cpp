#include "exporter/pd/client.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace podwait {
namespace {

bool ContainsNoCase(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != haystack.end();
}

// A short, single-line excerpt of a body for error messages.
std::string Excerpt(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, 120)) out += (c == '\n' || c == '\r') ? ' ' : c;
  if (body.size() > 120) out += "...";
  return out;
}

// Whether an HTTP answer came from PD rather than from something in front of it. PD answers
// with JSON, or with short plain-text errors (its redirector's "no leader"); proxies answer with
// HTML pages, empty bodies, 502/504, or a plain-text 503 ("no healthy upstream").
bool LooksLikePd(const HttpResponse& response, bool parsed) {
  if (parsed) return true;
  // A 2xx whose body does not parse is garbage, whoever sent it.
  if (response.status >= 200 && response.status < 300) return false;
  std::string_view body = response.body;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front()))) {
    body.remove_prefix(1);
  }
  if (body.empty() || body.front() == '<') return false;
  // PD's own 5xx errors are JSON-quoted strings ("no leader"); a proxy's are not.
  if ((response.status == 502 || response.status == 503 || response.status == 504) &&
      body.front() != '"') {
    return false;
  }
  return true;
}

bool FileExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

PdErrorKind ClassifyTransportError(const HttpResponse& response) {
  if (response.cancelled) return PdErrorKind::kCancelled;
  if (response.timed_out) return PdErrorKind::kTimeout;
  // An answer came, but more of it than any PD sends: not a connection problem.
  if (response.too_large) return PdErrorKind::kTooLarge;
  if (ContainsNoCase(response.error, "ssl") || ContainsNoCase(response.error, "tls") ||
      ContainsNoCase(response.error, "certificate")) {
    return PdErrorKind::kTls;
  }
  if (ContainsNoCase(response.error, "timeout") || ContainsNoCase(response.error, "timed out")) {
    return PdErrorKind::kTimeout;
  }
  return PdErrorKind::kConnect;
}

PdClient::PdClient(HttpClient& http, PdClientOptions options, PdProbeObserver* observer)
    : http_(http), options_(std::move(options)), observer_(observer) {}

HttpRequest PdRequest(const PdClientOptions& options, PdEndpoint endpoint) {
  HttpRequest request;
  request.url = options.base_url + std::string(PdEndpointPath(endpoint));
  request.timeout_ms = options.timeout_ms;
  request.connect_timeout_ms = options.timeout_ms;
  request.tls = options.tls;
  request.cancel = options.cancel;
  request.headers.emplace_back("Accept", "application/json");
  return request;
}

template <typename T>
PdAnswer<T> InterpretPdResponse(PdEndpoint endpoint, const HttpResponse& response,
                                PdParse<T> (*parse)(std::string_view)) {
  PdAnswer<T> answer;
  answer.http_status = response.status;
  const std::string what = std::string(PdEndpointName(endpoint)) + ": ";
  if (!response.error.empty()) {
    answer.error_kind = ClassifyTransportError(response);
    answer.error = what + response.error;
    return answer;
  }
  // PD answers /health with 503 and the usual body when some members are unreachable: take the
  // body whenever it parses, but still count the status as an error.
  auto parsed = parse(std::string_view(response.body));
  answer.pd_answered = LooksLikePd(response, parsed.ok());
  if (response.status >= 200 && response.status < 300) {
    if (parsed.ok()) {
      answer.value = std::move(*parsed.value);
    } else {
      answer.error_kind = PdErrorKind::kParse;
      answer.error = what + parsed.error;
    }
  } else if (endpoint == PdEndpoint::kStores &&
             IsPdNotBootstrapped(response.status, response.body)) {
    answer.not_bootstrapped = true;
    answer.error = what + "TiKV cluster not bootstrapped";
  } else {
    answer.error_kind = PdErrorKind::kHttpStatus;
    answer.error = what + "HTTP " + std::to_string(response.status) + ": " + Excerpt(response.body);
    if (endpoint == PdEndpoint::kHealth && parsed.ok()) answer.value = std::move(*parsed.value);
  }
  return answer;
}

template PdAnswer<std::vector<PdMemberHealth>> InterpretPdResponse(
    PdEndpoint, const HttpResponse&, PdParse<std::vector<PdMemberHealth>> (*)(std::string_view));
template PdAnswer<std::optional<PdMember>> InterpretPdResponse(
    PdEndpoint, const HttpResponse&, PdParse<std::optional<PdMember>> (*)(std::string_view));
template PdAnswer<PdMembers> InterpretPdResponse(PdEndpoint, const HttpResponse&,
                                                 PdParse<PdMembers> (*)(std::string_view));
template PdAnswer<PdClusterStatus> InterpretPdResponse(
    PdEndpoint, const HttpResponse&, PdParse<PdClusterStatus> (*)(std::string_view));
template PdAnswer<PdStores> InterpretPdResponse(PdEndpoint, const HttpResponse&,
                                                PdParse<PdStores> (*)(std::string_view));
template PdAnswer<PdReplicateConfig> InterpretPdResponse(
    PdEndpoint, const HttpResponse&, PdParse<PdReplicateConfig> (*)(std::string_view));

void ReportPdRequest(PdProbeObserver* observer, PdEndpoint endpoint, const HttpResponse& response,
                     PdErrorKind kind) {
  if (observer == nullptr || kind == PdErrorKind::kCancelled) return;
  observer->OnRequest(endpoint, static_cast<double>(response.duration_ms) / 1000.0, kind);
}

HttpResponse PdClient::Get(PdEndpoint endpoint) {
  return http_.Get(PdRequest(options_, endpoint), kPdMaxBody);
}

template <typename T>
PdAnswer<T> PdClient::Fetch(PdEndpoint endpoint, PdParse<T> (*parse)(std::string_view)) {
  const HttpResponse response = Get(endpoint);
  PdAnswer<T> answer = InterpretPdResponse(endpoint, response, parse);
  ReportPdRequest(observer_, endpoint, response, answer.error_kind);
  return answer;
}

PdAnswer<std::vector<PdMemberHealth>> PdClient::Health() {
  return Fetch<std::vector<PdMemberHealth>>(PdEndpoint::kHealth, ParsePdHealth);
}
PdAnswer<std::optional<PdMember>> PdClient::Leader() {
  return Fetch<std::optional<PdMember>>(PdEndpoint::kLeader, ParsePdLeader);
}
PdAnswer<PdMembers> PdClient::Members() {
  return Fetch<PdMembers>(PdEndpoint::kMembers, ParsePdMembers);
}
PdAnswer<PdClusterStatus> PdClient::ClusterStatus() {
  return Fetch<PdClusterStatus>(PdEndpoint::kClusterStatus, ParsePdClusterStatus);
}
PdAnswer<PdStores> PdClient::Stores() {
  return Fetch<PdStores>(PdEndpoint::kStores, ParsePdStores);
}
PdAnswer<PdReplicateConfig> PdClient::ReplicateConfig() {
  return Fetch<PdReplicateConfig>(PdEndpoint::kConfigReplicate, ParsePdReplicateConfig);
}

std::string PdBaseUrl(std::string_view url_template, const ClusterKey& cluster) {
  std::string out;
  out.reserve(url_template.size() + cluster.name.size() + cluster.namespace_.size());
  for (size_t i = 0; i < url_template.size();) {
    if (url_template.compare(i, 9, "{cluster}") == 0) {
      out += cluster.name;
      i += 9;
    } else if (url_template.compare(i, 11, "{namespace}") == 0) {
      out += cluster.namespace_;
      i += 11;
    } else {
      out += url_template[i++];
    }
  }
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

TlsOptions PdTlsFor(const PdTlsFlags& flags, const ClusterKey& cluster) {
  if (!flags.dir.empty()) {
    const std::string dir = flags.dir + "/" + cluster.namespace_ + "/" + cluster.name + "/";
    const bool ca = FileExists(dir + "ca.crt");
    const bool cert = FileExists(dir + "tls.crt") && FileExists(dir + "tls.key");
    if (ca || cert) {
      TlsOptions tls;
      if (ca) tls.ca_file = dir + "ca.crt";
      if (cert) {
        tls.cert_file = dir + "tls.crt";
        tls.key_file = dir + "tls.key";
      }
      return tls;
    }
  }
  TlsOptions tls;
  tls.ca_file = flags.ca_file;
  tls.cert_file = flags.cert_file;
  tls.key_file = flags.key_file;
  return tls;
}

}  // namespace podwait
