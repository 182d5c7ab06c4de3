#include "exporter/app/kube_setup.h"

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "exporter/common/log.h"
#include "exporter/kube/discovery.h"

namespace podwait {
namespace {

// SelfSubjectAccessReviews of list and watch in every namespace, one pair per resource.
class ClusterWideAccess {
 public:
  explicit ClusterWideAccess(const KubeContext& kube)
      : endpoint_(kube.endpoint), tokens_(kube.tokens), http_(kube.env.http()) {}

  bool Allowed(std::string_view api_prefix, const std::string& resource) {
    const std::string group = GroupOf(api_prefix);
    const std::string key = group + "/" + resource;
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = answers_.find(key); it != answers_.end()) return it->second;
    ApiQuery query{endpoint_, tokens_, *http_, kTimeoutMs};
    bool allowed = !unanswered_;
    std::string error;
    for (const char* verb : {"list", "watch"}) {
      if (!allowed) break;
      Result<bool> may = MayInEveryNamespace(query, group, resource, verb);
      if (!may.ok()) {
        error = may.error;
        unanswered_ = true;  // the next resources are not asked (a start is not held up)
      }
      allowed = may.ok() && *may;
    }
    answers_[key] = allowed;
    LogInfo(allowed ? "watching over all namespaces: the account may list and watch everywhere"
                    : "watching per namespace: the account may not list and watch everywhere",
            {{"resource", resource}, {"group", group}, {"error", error}});
    return allowed;
  }

 private:
  const KubeEndpoint endpoint_;
  TokenSource* tokens_;
  std::unique_ptr<HttpClient> http_;
  static constexpr int64_t kTimeoutMs = 5000;
  std::mutex mu_;
  std::map<std::string, bool> answers_;
  bool unanswered_ = false;  // a review failed: per namespace from then on
};

}  // namespace

void PrepareKube(Config* config, KubeContext* kube) {
  kube->loop = std::make_shared<KubeLoop>(kube->env.async_http);
  kube->served = std::make_shared<ApiResources>();
  auto access = std::make_shared<ClusterWideAccess>(*kube);
  config->may_watch_cluster_wide = [access](std::string_view api_prefix,
                                            const std::string& resource) {
    return access->Allowed(api_prefix, resource);
  };
}

void DiscoverServed(const KubeContext& kube,
                    const std::vector<std::unique_ptr<Reflector>>& reflectors) {
  if (!kube.served) return;
  std::set<std::string> group_versions;
  for (const auto& r : reflectors) group_versions.insert(CollectionOf(r->options().path).first);
  std::unique_ptr<HttpClient> http = kube.env.http();
  Result<ApiResources> found =
      DiscoverResources(ApiQuery{kube.endpoint, kube.tokens, *http, 5000}, group_versions);
  if (!found.ok()) {
    LogWarn("discovery failed; asking for every resource", {{"error", found.error}});
    return;
  }
  *kube.served = std::move(*found);
  std::set<std::string> logged;
  for (const auto& r : reflectors) {
    const auto [gv, plural] = CollectionOf(r->options().path);
    if (kube.served->Serves(r->options().path) != false ||
        !logged.insert(gv + "/" + plural).second) {
      continue;
    }
    // The exporter's one line of optional inputs that are off says it (app/optional_inputs.h).
    LogDebug("resource not served by the API server (discovery); not watching it",
             {{"resource", plural}, {"group_version", gv}});
  }
}

}  // namespace podwait
