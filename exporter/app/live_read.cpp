#include "exporter/app/live_read.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "exporter/app/inputs.h"
#include "exporter/app/kube_setup.h"
#include "exporter/app/options.h"
#include "exporter/app/pd_access.h"
#include "exporter/common/log.h"
#include "exporter/common/sync_status.h"
#include "exporter/common/time_format.h"
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

// The pods a label selector selects: names only, kept current by the watch.
class PodKeyCollector final : public ReflectorHandler {
 public:
  void OnListBegin() override { staged_.clear(); }
  bool OnListItem(const rapidjson::Value& object) override {
    staged_.insert(KeyOf(object));
    return true;
  }
  void OnListEnd(const std::string&) override {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.insert(staged_.begin(), staged_.end());
  }
  void OnListAbort() override { staged_.clear(); }
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (type == WatchEventType::kDeleted) {
      keys_.erase(KeyOf(object));
    } else {
      keys_.insert(KeyOf(object));
    }
    return true;
  }
  PodKeySet keys() const {
    std::lock_guard<std::mutex> lock(mu_);
    return keys_;
  }

 private:
  static std::pair<std::string, std::string> KeyOf(const rapidjson::Value& object) {
    const rapidjson::Value* meta = json::Member(object, "metadata");
    return {std::string(json::Str(meta, "namespace")), std::string(json::Str(meta, "name"))};
  }

  PodKeySet staged_;  // reflector thread only
  mutable std::mutex mu_;
  PodKeySet keys_;
};

// Monotonic milliseconds left before `deadline_ms`, at least 0.
Timestamp Remaining(const Clock& clock, int64_t deadline_ms) {
  return std::max<int64_t>(0, deadline_ms - clock.MonotonicMs());
}

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

// Where the endpoint came from, for errors: " (context "prod" of ~/.kube/config)".
std::string WhereFrom(const KubeEndpoint& ep) {
  if (ep.kubeconfig.empty()) return " (" + ep.source + ")";
  return " (context \"" + ep.context + "\" of " + ep.kubeconfig + ")";
}

// The token, then GET /version: the first request to the API server tells a server that
// refuses, does not resolve or hangs, and refused credentials, apart from a list that fails;
// every later failure is a reflector's to retry. Both within `deadline_ms` (the end of
// `timeout`, the flag's value errors name), the request within `request_timeout` too (when not 0).
Result<bool> Reach(const KubeEndpoint& ep, TokenSource* tokens, const KubeContext& kube,
                   int64_t deadline_ms, Timestamp timeout, Timestamp request_timeout) {
  std::string token;
  if (tokens != nullptr) {
    Result<std::string> got = tokens->TokenOrError();
    if (!got.ok()) return Result<bool>::Fail(got.error + " (--timeout)");
    token = std::move(*got);
  }
  const Clock& clock = *kube.env.clock;
  Timestamp bound = Remaining(clock, deadline_ms);
  std::string bound_flag = "--timeout";
  Timestamp flag_value = timeout;
  if (request_timeout > 0 && request_timeout < bound) {
    bound = request_timeout;
    bound_flag = "--request-timeout";
    flag_value = request_timeout;
  }
  if (const int64_t wait = kube.budget->Reserve(clock.MonotonicMs()); wait > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
  HttpRequest req;
  req.url = ep.api_url + "/version";
  req.tls = ep.tls;
  req.timeout_ms = std::max<Timestamp>(1, bound);
  req.connect_timeout_ms = req.timeout_ms;
  req.headers = {{"Accept", "application/json"}};
  if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
  const HttpResponse r = kube.env.http()->Get(req, 64 << 10);
  const std::string server = "the API server " + ep.api_url + WhereFrom(ep);
  if (r.timed_out) {
    return Result<bool>::Fail(server + " did not answer within " + FormatDuration(flag_value) +
                              " (" + bound_flag + ")");
  }
  if (!r.error.empty()) {
    return Result<bool>::Fail("cannot reach " + server + ": " + r.error +
                              " (is the server's address right, and is it up?)");
  }
  if (r.status == 401) {
    return Result<bool>::Fail(
        server + " refused the credentials (401 Unauthorized; auth: " + DescribeAuth(ep) + ")");
  }
  return Result<bool>::Ok(true);
}

// The pods -l selects, listed (and watched) beside the inputs.
void AddSelectedPods(const KubeContext& kube, const Config& config, const std::string& selector,
                     Timestamp request_timeout, PodKeyCollector& selected,
                     std::vector<std::unique_ptr<Reflector>>& reflectors) {
  ReflectorOptions base;
  base.label_selector = selector;
  if (request_timeout > 0) base.list_timeout = request_timeout;
  for (ReflectorOptions& o :
       ReflectorOptionsPerNamespace(base, config.namespaces, "pods", "/api/v1")) {
    o.name = "selected-" + o.name;
    reflectors.push_back(std::make_unique<Reflector>(kube, std::move(o), selected));
  }
}

// Waits up to `timeout` for every reflector's first list; an error names those that did not
// list and why, and the flag (`flag`, its value `flag_value`) that bounded the wait.
Result<bool> WaitListed(std::vector<std::unique_ptr<Reflector>>& reflectors, const SyncStatus& sync,
                        const FailureLog& failures, Timestamp timeout, Timestamp flag_value,
                        const std::string& timeout_flag) {
  const bool listed = WaitUntil(
      [&] {
        return std::all_of(reflectors.begin(), reflectors.end(),
                           [](const auto& r) { return r->synced() || r->disabled(); });
      },
      timeout);
  if (listed) return Result<bool>::Ok(true);
  std::string missing;
  for (const auto& [name, synced] : sync.Snapshot()) {
    if (synced) continue;
    const std::string why = failures.Last(name.substr(0, name.find('/')));
    missing += (missing.empty() ? "" : ", ") + name + (why.empty() ? "" : " (" + why + ")");
  }
  return Result<bool>::Fail("not listed within " + FormatDuration(flag_value) + " (" +
                            timeout_flag + "): " + missing +
                            "; check the API server and the RBAC of the account "
                            "(deploy/ grants what the exporter lists)");
}

}  // namespace

// Everything a read keeps running; members are destroyed in reverse order, after ~LiveCluster
// stopped the threads.
struct LiveCluster::State {
  std::unique_ptr<TokenSource> tokens;
  SyncStatus sync;
  FailureLog failures;
  KubeContext kube;
  std::vector<std::unique_ptr<ReflectorHandler>> handlers;
  std::unique_ptr<CaStatusSource> ca_status;
  PodKeyCollector selected;
  bool has_selector = false;
  std::vector<std::unique_ptr<Reflector>> reflectors;
  std::unique_ptr<KubePdRoute> pd_route;  // PD through the API server (--pd.via), or null
  PdSignalSource pd_signals;              // -w: what the evaluations tell the prober
  std::unique_ptr<PdProber> prober;

  ~State() {
    StopReflectors();
    if (prober) prober->Stop();
  }
  // A running exec plugin is killed first, so that no reflector waits for it.
  void StopReflectors() {
    if (tokens) tokens->Cancel();
    StopAll(reflectors, kube.loop.get());
    reflectors.clear();
  }
};

LiveCluster::LiveCluster(std::unique_ptr<State> state) : state_(std::move(state)) {}

LiveCluster::~LiveCluster() = default;

std::optional<std::set<std::pair<std::string, std::string>>> LiveCluster::Selected() const {
  if (!state_->has_selector) return std::nullopt;
  return state_->selected.keys();
}

void LiveCluster::Refresh(Pipeline& pipeline) const {
  if (state_->ca_status) pipeline.SetCaStatus(state_->ca_status->Read());
  // The last evaluation's waiting clusters and status stamps, as the exporter tells its prober:
  // a pod that starts waiting gets a full probe at once and the fast cadence.
  if (!state_->prober) return;
  auto signals = state_->pd_signals.Next(pipeline.Snapshot(),
                                         [&pipeline] { return pipeline.DependencyViews(); });
  if (signals) state_->prober->Signal(std::move(*signals));
}

namespace {

// The exporter's PD prober over the pipeline's clusters (through the API server at `api_url` with
// `route` when it is set): one round, or with `keep` on the exporter's cadences (Refresh signals
// it). Returns it running (nullptr when PD is not probed); waits up to `timeout` for the first
// round.
std::unique_ptr<PdProber> Probe(const Config& config, Pipeline& pipeline, const Environment& env,
                                Timestamp timeout, bool keep, const std::string& api_url,
                                KubePdRoute* route) {
  if (config.readiness_source == ReadinessSource::kTidbCluster) return nullptr;
  pipeline.DiscoverClusters();
  PdProberOptions options = PdProberOptionsFromConfig(config);
  if (!keep) options.interval_ms = 24 * 3600 * 1000;  // one round
  auto prober = std::make_unique<PdProber>(
      options, env, nullptr,
      [&config, &pipeline, api_url, route] {
        std::vector<PdTarget> targets =
            PdTargetsFor(pipeline.Clusters(), config, pipeline.PdUrls(), pipeline.PdSources());
        if (route == nullptr) return targets;
        return ThroughApiServer(std::move(targets), api_url, route);
      },
      [&pipeline](const ClusterKey& cluster, PdFacts facts) {
        pipeline.OnPdProbe(cluster, std::move(facts));
      });
  prober->Start();
  WaitUntil([&] { return prober->rounds_completed() >= 1; }, timeout);
  return prober;
}

}  // namespace

Result<std::unique_ptr<LiveCluster>> ReadCluster(Config* config, const LiveReadOptions& options,
                                                 Pipeline& pipeline, const Environment& env) {
  using R = Result<std::unique_ptr<LiveCluster>>;
  const int64_t deadline = env.clock->MonotonicMs() + options.timeout;
  Result<KubeEndpoint> endpoint =
      ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(*config), env.env);
  if (!endpoint.ok()) return R::Fail(endpoint.error);
  if (options.context_namespace) {
    config->namespaces = {endpoint->namespace_.empty() ? "default" : endpoint->namespace_};
  }
  auto s = std::make_unique<LiveCluster::State>();
  ExecTokenOptions exec;
  exec.timeout_ms = std::min<Timestamp>(exec.timeout_ms, options.timeout);
  s->tokens = MakeTokenSource(*endpoint, env, exec);
  s->kube.endpoint = *endpoint;
  s->kube.tokens = s->tokens.get();
  s->kube.env = env;
  s->kube.observers = s->failures.Factory();
  s->kube.sync = &s->sync;
  s->kube.budget = std::make_shared<RequestBudget>(config->kube_api_qps, config->kube_api_burst);
  if (Result<bool> reached = Reach(*endpoint, s->tokens.get(), s->kube, deadline, options.timeout,
                                   config->kube_request_timeout);
      !reached.ok()) {
    return R::Fail(reached.error);
  }
  PrepareKube(config, &s->kube);

  // The handlers outlive this call (they run until the LiveCluster goes): nothing of its frame.
  InputContext ctx{
      *config, pipeline, *env.clock, s->handlers, s->ca_status, [](const std::string& e) {
        LogWarn("cannot parse the cluster-autoscaler status", {{"err", e}});
      }};
  s->reflectors = BuildInputReflectors(ctx, s->kube);
  s->has_selector = !options.label_selector.empty();
  if (s->has_selector) {
    AddSelectedPods(s->kube, *config, options.label_selector, config->kube_request_timeout,
                    s->selected, s->reflectors);
  }
  DiscoverServed(s->kube, s->reflectors);
  for (auto& r : s->reflectors) r->Start();
  Result<bool> listed = WaitListed(s->reflectors, s->sync, s->failures,
                                   Remaining(*env.clock, deadline), options.timeout, "--timeout");
  // The watches run on until the LiveCluster goes (after the answer is printed: stopping takes
  // up to a second).
  if (!listed.ok()) return R::Fail(listed.error);
  if (s->ca_status) pipeline.SetCaStatus(s->ca_status->Read());
  if (PdViaApiServer(config->pd_via, s->kube.endpoint)) {
    s->pd_route = std::make_unique<KubePdRoute>(s->kube);
  }
  s->prober = Probe(*config, pipeline, env, Remaining(*env.clock, deadline), options.keep_watching,
                    s->kube.endpoint.api_url, s->pd_route.get());
  // Everything read once: what -w sees change from now on is dated by the clock.
  pipeline.dependencies().OnInputsSynced();
  if (!options.keep_watching && s->prober) {
    s->prober->Stop();
    s->prober.reset();
  }
  auto live = std::make_unique<LiveCluster>(std::move(s));
  return R::Ok(std::move(live));
}

}  // namespace podwait
