#include "exporter/app/app.h"

#include <chrono>
#include <unordered_map>

#include "exporter/app/options.h"
#include "exporter/common/log.h"
#include "exporter/metrics/exposition.h"
#include "exporter/metrics/process_collector.h"
#include "exporter/metrics/utf8_metrics.h"
#include "exporter/metrics/waiting_collector.h"

namespace podwait {
namespace {

constexpr Timestamp kEvaluationInterval = kSecond;

HttpServerLimits ServerLimits(const Config& config) {
  HttpServerLimits limits;
  limits.max_requests = config.web_max_requests;
  return limits;
}

}  // namespace

App::App(Config config, const Clock& clock)
    : config_(std::move(config)),
      clock_(clock),
      env_{&clock},
      pods_(&events_),
      registry_(config_),
      dependencies_(config_, clock_),
      evaluator_(EvaluatorOptionsFromConfig(config_)),
      changes_(pods_, &events_, &v2_),
      server_(ServerLimits(config_)) {
  registry_.SetListener([this](const std::map<ClusterKey, ClusterInfo>& clusters) {
    dependencies_.SyncClusters(clusters);
  });
  tidbclusters_.SetListener(TidbClusterListener{[this](const std::vector<TidbClusterStatus>& all) {
                                                  std::vector<ClusterKey> keys;
                                                  keys.reserve(all.size());
                                                  for (const auto& tc : all) keys.push_back(tc.key);
                                                  registry_.SetTidbClusters(keys);
                                                  dependencies_.ReplaceTidbClusters(all);
                                                },
                                                [this](const TidbClusterStatus& tc) {
                                                  registry_.UpsertTidbCluster(tc.key);
                                                  dependencies_.OnTidbCluster(tc);
                                                },
                                                [this](const ClusterKey& key) {
                                                  registry_.RemoveTidbCluster(key);
                                                  dependencies_.OnTidbClusterDeleted(key);
                                                }});
  v2_.SetListener([this](const ClusterKey& key, const v2::ClusterFacts& facts) {
    dependencies_.OnV2Cluster(key, facts);
  });
  // --web.disable-exporter-metrics drops the exporter's metrics about itself (as node_exporter's
  // does the process and Go ones); podwait_build_info stays.
  if (!config_.disable_exporter_metrics) {
    collectables_.push_back(self_metrics_.registry());
    collectables_.push_back(std::make_shared<ProcessCollector>());
  } else {
    collectables_.push_back(self_metrics_.build_info_registry());
  }
  waiting_collector_ = std::make_unique<WaitingCollector>([this] { return evaluator_.Snapshot(); },
                                                          clock_, config_.metrics_pod_series);
  dependency_collector_ = std::make_unique<DependencyCollector>(dependencies_);
}

App::~App() { Stop(); }

const CaStatus* App::CurrentCaStatus() {
  if (!ca_status_source_) return nullptr;
  ConfigMapData cm = ca_status_source_->Get();
  ca_status_present_ = cm.present;
  if (cm.version != ca_status_version_) {
    ca_status_version_ = cm.version;
    ca_status_.reset();
    auto it = cm.data.find("status");
    if (cm.present && it != cm.data.end()) {
      CaStatusParse parsed = ParseCaStatus(it->second);
      if (parsed.ok()) {
        ca_status_ = std::move(parsed.value);
      } else {
        self_metrics_.ParseErrors("configmaps").Increment();
        LogWarn("cannot parse the cluster-autoscaler status", {{"err", parsed.error}});
      }
    }
  }
  return ca_status_ ? &*ca_status_ : nullptr;
}

void App::EvaluateOnce() {
  // Cluster discovery follows the pod store (kept as pods change, no scan).
  registry_.SetPodClusters(pods_.Clusters());
  // Only what changed since the last evaluation (the evaluator finds the rest: clusters whose
  // dependency state changed, classifications whose time has come).
  const ChangeFeed::Changes changes = changes_.Read();
  const std::map<ClusterKey, ClusterDependencies> deps = dependencies_.Snapshot();
  const std::vector<FailureMember> failures = dependencies_.FailureMembers();
  EvaluatorInputs in;
  if (changes.full) {
    in.pods = changes.all;
  } else {
    in.changes = &changes.set;
  }
  // Read one pod's events at a time, only for the pods the evaluation classifies.
  in.events = [this](const PodRecord& pod) {
    return events_.EventsFor(pod.namespace_, pod.name, pod.uid);
  };
  in.instance = InstanceLookup(v2_);
  in.ca_status = CurrentCaStatus();
  // Autoscaler presence from the events the store has seen (cheap: kept as events arrive).
  in.autoscaler_signals.ca_status_configmap = ca_status_present_;
  in.autoscaler_signals.last_ca_event =
      events_.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler);
  in.autoscaler_signals.last_karpenter_event =
      events_.LastAutoscalerEvent(AutoscalerKind::kKarpenter);
  in.dependencies = &deps;
  in.failure_members = failures;
  in.now = clock_.Now();
  evaluator_.Evaluate(in);
}

void App::EvaluationLoop() {
  std::unique_lock<std::mutex> lock(loop_mu_);
  while (!stop_loop_) {
    lock.unlock();
    EvaluateOnce();
    lock.lock();
    loop_cv_.wait_for(lock, std::chrono::milliseconds(kEvaluationInterval),
                      [this] { return stop_loop_; });
  }
}

ViewModel App::MakeViewModel() const {
  ViewModel m;
  m.waiting = evaluator_.Snapshot();
  m.evaluated_at = evaluator_.LastEvaluated();
  m.dependencies = dependencies_.Snapshot();
  m.synced = sync_.AllSynced();
  m.now = clock_.Now();
  return m;
}

TidbClusterCallbacks App::TidbClusterCallbacksFor(const std::string& scope) {
  TidbClusterCallbacks callbacks;
  callbacks.replace = [this, scope](const std::vector<TidbClusterStatus>& listed) {
    tidbclusters_.Replace(scope, listed);
  };
  callbacks.upsert = [this](const TidbClusterStatus& tc) { tidbclusters_.Upsert(tc); };
  callbacks.remove = [this](const ClusterKey& key) { tidbclusters_.Remove(key); };
  return callbacks;
}

void App::InstallHandlers() {
  server_.Handle(config_.telemetry_path, [this](const HttpServerRequest&) {
    const int64_t start = clock_.MonotonicMs();
    HttpServerReply reply;
    reply.content_type = kTextContentType;
    const WebConfigReloadStatus web_config = server_.WebConfigStatus();
    self_metrics_.SetWebConfigReload(web_config.successful, web_config.last_success);
    reply.body = RenderText(collectables_);
    // About as long as the last one: one allocation instead of a doubling series of copies.
    reply.body.reserve(last_scrape_bytes_.load(std::memory_order_relaxed) + 64 * 1024);
    dependency_collector_->AppendText(&reply.body);
    waiting_collector_->AppendText(&reply.body);
    if (!config_.disable_exporter_metrics) AppendInvalidUtf8Metrics(&reply.body);
    last_scrape_bytes_.store(reply.body.size(), std::memory_order_relaxed);
    reply.compressible = true;
    self_metrics_.ScrapeDuration().Observe(static_cast<double>(clock_.MonotonicMs() - start) /
                                           1000);
    return reply;
  });
  // /livez and /healthz: the process answers (as the Kubernetes components' /livez).
  for (const char* path : {"/healthz", "/livez"}) {
    server_.Handle(
        path,
        [](const HttpServerRequest&) {
          HttpServerReply reply;
          reply.body = "ok\n";
          return reply;
        },
        /*probe=*/true);
  }
  server_.Handle(
      "/readyz",
      [this](const HttpServerRequest&) {
        HttpServerReply reply;
        if (sync_.AllSynced()) {
          reply.body = "ready\n";
        } else {
          reply.status = 503;
          reply.body = "not ready: waiting for the first sync of:";
          for (const auto& [name, synced] : sync_.Snapshot()) {
            if (!synced) reply.body += " " + name;
          }
          reply.body += "\n";
        }
        return reply;
      },
      /*probe=*/true);
  server_.Handle("/api/v1/pods", [this](const HttpServerRequest& request) {
    HttpServerReply reply;
    std::string error;
    const std::optional<PodFilter> filter = ParsePodFilter(request.query, &error);
    if (!filter) {
      reply.status = 400;
      reply.body = error + "\n";
      return reply;
    }
    reply.content_type = "application/json";
    reply.body = RenderPodsJson(MakeViewModel(), *filter);
    reply.compressible = true;
    return reply;
  });
  server_.Handle("/", [this](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.content_type = "text/html; charset=utf-8";
    reply.body = RenderStatusPage(MakeViewModel(), config_.telemetry_path);
    reply.headers = StatusPageHeaders();
    reply.compressible = true;
    return reply;
  });
}

bool App::Start(std::string* error) {
  if (!server_.UseWebConfig(config_.web_config_file, error)) return false;
  std::optional<KubeEndpoint> endpoint =
      ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(config_), env_.env, error);
  if (!endpoint) return false;
  LogKubeEndpoint(*endpoint);
  tokens_ = MakeTokenSource(*endpoint, env_);
  kube_.endpoint = *endpoint;
  kube_.tokens = tokens_.get();
  kube_.env = env_;
  kube_.observers = MakeSelfMetricsReflectorObservers(self_metrics_);
  kube_.sync = &sync_;

  const PodParseOptions pod_options = PodParseOptions::FromConfig(config_);
  for (ReflectorOptions& o : PodReflectorOptions(config_)) {
    PodParseOptions options = pod_options;
    options.source = PodSourceTag(o);
    pod_sources_.push_back(std::make_unique<PodSource>(pods_, options, ReflectorNamespace(o)));
    reflectors_.push_back(std::make_unique<Reflector>(kube_, std::move(o), *pod_sources_.back()));
  }
  for (ReflectorOptions& o : EventReflectorOptions(config_)) {
    event_sources_.push_back(
        std::make_unique<EventSource>(events_, &pods_, clock_, ReflectorNamespace(o)));
    reflectors_.push_back(std::make_unique<Reflector>(kube_, std::move(o), *event_sources_.back()));
  }
  if (config_.tidbcluster_enabled) {
    for (ReflectorOptions& o :
         ReflectorOptionsPerNamespace(config_, "tidbclusters", "/apis/pingcap.com/v1alpha1")) {
      tidbcluster_sources_.push_back(
          std::make_unique<TidbClusterSource>(TidbClusterCallbacksFor(ReflectorNamespace(o))));
      reflectors_.push_back(
          std::make_unique<Reflector>(kube_, std::move(o), *tidbcluster_sources_.back()));
    }
  }
  if (config_.v2_enabled) {
    // One reflector per v2 resource (and watched namespace); a resource whose CRD is not
    // installed answers 404 and is skipped (one log line, /readyz not held).
    for (const V2Resource& r : V2Resources()) {
      for (ReflectorOptions& o : ReflectorOptionsPerNamespace(
               config_, r.plural, "/apis/" + std::string(v2::kApiVersion))) {
        v2_sources_.push_back(std::make_unique<V2Source>(v2_, r, ReflectorNamespace(o)));
        reflectors_.push_back(
            std::make_unique<Reflector>(kube_, std::move(o), *v2_sources_.back()));
      }
    }
  }
  const AutoscalerMode mode = evaluator_.options().autoscaler_mode;
  if (config_.ca_status_enabled && mode != AutoscalerMode::kNone &&
      mode != AutoscalerMode::kKarpenter) {
    ca_status_source_ = std::make_unique<ConfigMapSource>(config_.ca_status_name);
    reflectors_.push_back(
        std::make_unique<Reflector>(kube_, ConfigMapReflectorOptions(config_), *ca_status_source_));
  }

  probe_observer_ = std::make_unique<SelfMetricsProbeObserver>(self_metrics_);
  if (config_.readiness_source == "tidbcluster") {
    LogInfo("PD prober disabled", {{"readiness_source", config_.readiness_source}});
  } else {
    prober_ = std::make_unique<PdProber>(
        PdProberOptionsFromConfig(config_), env_, probe_observer_.get(),
        [this] { return PdTargetsFor(registry_.Clusters(), config_, v2_.PdUrls()); },
        [this](const ClusterKey& cluster, PdFacts facts) {
          dependencies_.OnPdProbe(cluster, std::move(facts));
        });
  }

  InstallHandlers();
  if (!server_.Start(config_.listen_addresses, error)) return false;
  for (auto& r : reflectors_) r->Start();
  if (prober_) prober_->Start();
  {
    std::lock_guard<std::mutex> lock(loop_mu_);
    stop_loop_ = false;
  }
  loop_ = std::thread([this] { EvaluationLoop(); });
  started_ = true;
  std::string addresses, ports;
  for (const auto& a : config_.listen_addresses) addresses += (addresses.empty() ? "" : ",") + a;
  for (int p : server_.ports()) ports += (ports.empty() ? "" : ",") + std::to_string(p);
  LogInfo("listening", {{"address", addresses},
                        {"port", ports},
                        {"telemetry_path", config_.telemetry_path},
                        {"kube_api", kube_.endpoint.api_url}});
  return true;
}

void App::Stop() {
  if (!started_) return;
  started_ = false;
  {
    std::lock_guard<std::mutex> lock(loop_mu_);
    stop_loop_ = true;
  }
  loop_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  // A credential plugin that hangs must not hold the watch threads (killed within ~100 ms).
  if (tokens_) tokens_->Cancel();
  // Every source stops within about a second; stop them side by side so the whole shutdown stays
  // well within Kubernetes' grace period.
  std::vector<std::thread> stoppers;
  for (auto& r : reflectors_) stoppers.emplace_back([&r] { r->Stop(); });
  if (prober_) stoppers.emplace_back([this] { prober_->Stop(); });
  stoppers.emplace_back([this] { server_.Stop(); });
  for (auto& t : stoppers) t.join();
}

}  // namespace podwait
