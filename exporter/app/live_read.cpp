#include "exporter/app/live_read.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "exporter/app/inputs.h"
#include "exporter/app/kube_setup.h"
#include "exporter/app/options.h"
#include "exporter/common/sync_status.h"
#include "exporter/kube/reflector.h"
#include "exporter/kube/token_source.h"
#include "exporter/pd/prober.h"
#include "exporter/sources/ca_status_source.h"

namespace podwait {
namespace {

using PodKeySet = std::set<std::pair<std::string, std::string>>;

// The last restart reason of each reflector (what to say when one never lists).
class FailureLog {
 public:
  ReflectorObserverFactory Factory() {
    return [this](const std::string& resource) -> std::unique_ptr<ReflectorObserver> {
      return std::make_unique<Observer>(this, resource);
    };
  }
  std::string Last(const std::string& resource) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = last_.find(resource);
    return it == last_.end() ? "" : it->second;
  }

 private:
  class Observer final : public ReflectorObserver {
   public:
    Observer(FailureLog* log, std::string resource) : log_(log), resource_(std::move(resource)) {}
    void OnWatchEvent(WatchEventType, Timestamp) override {}
    void OnRestart(const std::string& reason) override {
      std::lock_guard<std::mutex> lock(log_->mu_);
      log_->last_[resource_] = reason;
    }
    void OnRelist() override {}
    void OnSynced(bool) override {}
    void OnObjects(size_t) override {}
    void OnParseError() override {}

   private:
    FailureLog* log_;
    std::string resource_;
  };

  mutable std::mutex mu_;
  std::map<std::string, std::string> last_;
};

// The pods a label selector selects: names only.
class PodKeyCollector final : public ReflectorHandler {
 public:
  void OnListBegin() override { staged_.clear(); }
  bool OnListItem(const rapidjson::Value& object) override {
    const rapidjson::Value* meta = json::Member(object, "metadata");
    staged_.insert(
        {std::string(json::Str(meta, "namespace")), std::string(json::Str(meta, "name"))});
    return true;
  }
  void OnListEnd(const std::string&) override {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.insert(staged_.begin(), staged_.end());
  }
  void OnListAbort() override { staged_.clear(); }
  bool OnEvent(WatchEventType, const rapidjson::Value&) override { return true; }
  PodKeySet keys() const {
    std::lock_guard<std::mutex> lock(mu_);
    return keys_;
  }

 private:
  PodKeySet staged_;  // reflector thread only
  mutable std::mutex mu_;
  PodKeySet keys_;
};

// Waits until `done` or the deadline; false on the deadline.
bool WaitUntil(const std::function<bool()>& done, Timestamp timeout) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The reflectors stop on their event loop (each at once), then the loop.
void StopAll(std::vector<std::unique_ptr<Reflector>>& reflectors, KubeLoop* loop) {
  for (auto& r : reflectors) r->Stop();
  if (loop != nullptr) loop->Stop();
}

// Lists every reflector once; an error names those that did not list and why.
Result<bool> ListOnce(std::vector<std::unique_ptr<Reflector>>& reflectors, KubeLoop* loop,
                      const SyncStatus& sync, const FailureLog& failures, Timestamp timeout) {
  for (auto& r : reflectors) r->Start();
  const bool listed = WaitUntil(
      [&] {
        return std::all_of(reflectors.begin(), reflectors.end(),
                           [](const auto& r) { return r->synced() || r->disabled(); });
      },
      timeout);
  StopAll(reflectors, loop);
  if (listed) return Result<bool>::Ok(true);
  std::string missing;
  for (const auto& [name, synced] : sync.Snapshot()) {
    if (synced) continue;
    const std::string why = failures.Last(name.substr(0, name.find('/')));
    missing += (missing.empty() ? "" : ", ") + name + (why.empty() ? "" : " (" + why + ")");
  }
  return Result<bool>::Fail("not listed within " + FormatDuration(timeout) + ": " + missing +
                            "; check the API server and the RBAC of the account "
                            "(deploy/ grants what the exporter lists)");
}

// One probe of every cluster's PD with the exporter's prober.
void ProbeOnce(const Config& config, Pipeline& pipeline, const Environment& env,
               Timestamp timeout) {
  if (config.readiness_source == ReadinessSource::kTidbCluster) return;
  pipeline.DiscoverClusters();
  const std::vector<PdTarget> targets =
      PdTargetsFor(pipeline.registry().Clusters(), config, pipeline.v2().PdUrls());
  if (targets.empty()) return;
  PdProberOptions options = PdProberOptionsFromConfig(config);
  options.interval_ms = 24 * 3600 * 1000;  // one round
  PdProber prober(
      options, env, nullptr, [targets] { return targets; },
      [&pipeline](const ClusterKey& cluster, PdFacts facts) {
        pipeline.dependencies().OnPdProbe(cluster, std::move(facts));
      });
  prober.Start();
  WaitUntil([&] { return prober.rounds_completed() >= 1; }, timeout);
  prober.Stop();
}

}  // namespace

Result<std::optional<PodKeySet>> ReadClusterOnce(Config* config, bool context_namespace,
                                                 const std::string& label_selector,
                                                 Timestamp timeout, Pipeline& pipeline,
                                                 const Environment& env) {
  using R = Result<std::optional<PodKeySet>>;
  Result<KubeEndpoint> endpoint =
      ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(*config), env.env);
  if (!endpoint.ok()) return R::Fail(endpoint.error);
  if (context_namespace) {
    config->namespaces = {endpoint->namespace_.empty() ? "default" : endpoint->namespace_};
  }
  std::unique_ptr<TokenSource> tokens = MakeTokenSource(*endpoint, env);
  SyncStatus sync;
  FailureLog failures;
  KubeContext kube;
  kube.endpoint = *endpoint;
  kube.tokens = tokens.get();
  kube.env = env;
  kube.observers = failures.Factory();
  kube.sync = &sync;
  PrepareKube(config, &kube);

  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  std::string ca_error;
  InputContext ctx{*config,  pipeline,  *env.clock,
                   handlers, ca_status, [&ca_error](const std::string& e) { ca_error = e; }};
  std::vector<std::unique_ptr<Reflector>> reflectors = BuildInputReflectors(ctx, kube);
  PodKeyCollector selected;
  if (!label_selector.empty()) {
    ReflectorOptions base;
    base.label_selector = label_selector;
    for (ReflectorOptions& o :
         ReflectorOptionsPerNamespace(base, config->namespaces, "pods", "/api/v1")) {
      o.name = "selected-" + o.name;
      reflectors.push_back(std::make_unique<Reflector>(kube, std::move(o), selected));
    }
  }
  DiscoverServed(kube, reflectors);
  Result<bool> listed = ListOnce(reflectors, kube.loop.get(), sync, failures, timeout);
  if (tokens) tokens->Cancel();
  if (!listed.ok()) return R::Fail(listed.error);
  if (ca_status) pipeline.SetCaStatus(ca_status->Read());
  ProbeOnce(*config, pipeline, env, timeout);
  if (label_selector.empty()) return R::Ok(std::nullopt);
  return R::Ok(selected.keys());
}

}  // namespace podwait
