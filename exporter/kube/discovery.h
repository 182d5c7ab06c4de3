#pragma once

// What the API server serves and allows, asked once at start: discovery (/apis and the resource
// lists of the group versions podwait reads), so that a collection it does not serve (a v2 kind,
// NodeClaims, ProvisioningRequests without their CRDs) is never requested, per namespace or at
// all; and SelfSubjectAccessReviews, so that many watched namespaces become one cluster-wide
// watch exactly when the account may list and watch in every namespace.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/kube/endpoint.h"
#include "exporter/kube/token_source.h"
#include "exporter/net/http_client.h"

namespace podwait {

// The group version and resource of a collection path: "/api/v1/namespaces/a/pods" ->
// ("v1", "pods"), "/apis/core.pingcap.com/v1alpha1/pds" -> ("core.pingcap.com/v1alpha1", "pds").
std::pair<std::string, std::string> CollectionOf(std::string_view path);
// The API group of an API path prefix: "/api/v1" -> "", "/apis/karpenter.sh/v1" -> "karpenter.sh".
std::string GroupOf(std::string_view api_prefix);

// The resources of the group versions discovery read. Filled before the reflectors start, read
// by them afterwards (not synchronized).
class ApiResources {
 public:
  // `group_version` was read: it serves exactly `plurals` (none: it is not served at all).
  void Add(const std::string& group_version, std::set<std::string> plurals);
  // Whether the collection at `path` is served; nullopt when its group version was not read
  // (then it is asked for, and a 404 disables it).
  std::optional<bool> Serves(std::string_view path) const;
  bool empty() const { return served_.empty(); }

 private:
  std::map<std::string, std::set<std::string>> served_;
};

// How to ask: the endpoint, its token and a blocking client (start-up only).
struct ApiQuery {
  const KubeEndpoint& endpoint;
  TokenSource* tokens = nullptr;
  HttpClient& http;
  int64_t timeout_ms = 10'000;
};

// Reads /apis and, for each of `group_versions` that it lists, /apis/<group version> (the core
// "v1" is always served and not read). A group version /apis does not list is served by nothing.
// An error when /apis cannot be read (then nothing is known).
Result<ApiResources> DiscoverResources(const ApiQuery& query,
                                       const std::set<std::string>& group_versions);

// A SelfSubjectAccessReview: whether this identity may `verb` `resource` of `group` in every
// namespace (no namespace in the review). An error when the API server does not answer one.
Result<bool> MayInEveryNamespace(const ApiQuery& query, const std::string& group,
                                 const std::string& resource, const std::string& verb);

}  // namespace podwait
