#include "exporter/app/app.h"

#include <chrono>
#include <unordered_map>

#include "exporter/common/log.h"
#include "exporter/common/shard.h"
#include "exporter/metrics/exposition.h"
#include "exporter/metrics/process_collector.h"
#include "exporter/metrics/utf8_metrics.h"
#include "exporter/metrics/waiting_collector.h"

namespace podwait {
namespace {

constexpr Timestamp kEvaluationInterval = kSecond;

}  // namespace

ClassifierOptions ClassifierOptionsFromConfig(const Config& config) {
  ClassifierOptions o;
  o.decision_grace = config.autoscaler_decision_grace;
  o.provision_timeout = config.autoscaler_provision_timeout;
  o.dependency_ready_grace = config.dependency_ready_grace;
  o.dependency_init_containers = config.dependency_init_containers;
  o.dependency_map = config.dependency_map;
  return o;
}

App::App(Config config, const Clock& clock)
    : config_(std::move(config)),
      clock_(clock),
      classifier_options_(ClassifierOptionsFromConfig(config_)),
      pods_(&events_),
      registry_(config_),
      dependencies_(config_, clock_),
      tracker_([this](const PodRecord& pod, std::span<const EventRecord> events,
                      const ClusterDependencies* deps, const AutoscalerState& autoscaler,
                      Timestamp now) {
        return Classify(pod, events, deps, autoscaler, classifier_options_, now);
      }) {
  autoscaler_mode_ = ParseAutoscalerMode(config_.autoscaler).value_or(AutoscalerMode::kAuto);
  registry_.SetListener([this](const std::map<ClusterKey, ClusterInfo>& clusters) {
    dependencies_.SyncClusters(clusters);
  });
  collectables_.push_back(self_metrics_.registry());
  collectables_.push_back(std::make_shared<ProcessCollector>());
  waiting_collector_ = std::make_unique<WaitingCollector>([this] { return tracker_.Snapshot(); },
                                                          clock_, config_.metrics_pod_series);
  collectables_.push_back(std::make_shared<DependencyCollector>(dependencies_));
}

App::~App() { Stop(); }

AutoscalerState App::CurrentAutoscalerState(Timestamp now) {
  AutoscalerState state;
  if (ca_status_source_) {
    ConfigMapData cm = ca_status_source_->Get();
    autoscaler_signals_.ca_status_configmap = cm.present;
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
  }
  if (ca_status_) ApplyCaStatus(*ca_status_, &state);
  DetectAutoscaler(autoscaler_mode_, autoscaler_signals_, now, &state);
  return state;
}

void App::EvaluateOnce() {
  const Timestamp now = clock_.Now();
  std::vector<PodPtr> pods = pods_.Snapshot();
  if (config_.total_shards > 1) {
    std::erase_if(pods, [this](const PodPtr& p) {
      return ShardOf(p->namespace_, p->cluster, config_.total_shards) != config_.shard;
    });
  }

  // Autoscaler presence from the events the store has seen (cheap: kept as events arrive), before
  // any pod is classified.
  autoscaler_signals_.last_ca_event =
      events_.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler);
  autoscaler_signals_.last_karpenter_event =
      events_.LastAutoscalerEvent(AutoscalerKind::kKarpenter);

  const std::map<ClusterKey, ClusterDependencies> deps = dependencies_.Snapshot();
  const std::vector<FailureMember> failures = dependencies_.FailureMembers();
  EvaluationInput input;
  input.pods = pods;
  // Read one pod's events at a time, only for the pods the tracker classifies.
  input.events = [this](const PodRecord& pod) {
    return events_.EventsFor(pod.namespace_, pod.name, pod.uid);
  };
  input.dependencies = &deps;
  input.autoscaler = CurrentAutoscalerState(now);
  input.failure_members = failures;
  input.now = now;
  EvaluationSideFacts facts = tracker_.Evaluate(input);
  registry_.SetPodClusters(facts.clusters, facts.ready_pd_pods);
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
  m.waiting = tracker_.Snapshot();
  m.dependencies = dependencies_.Snapshot();
  m.synced = sync_.AllSynced();
  m.now = clock_.Now();
  return m;
}

TidbClusterCallbacks App::TidbClusterCallbacksFor(const std::string& scope) {
  TidbClusterCallbacks callbacks;
  if (scope.empty()) {
    // One reflector over all namespaces: its list is the complete set.
    callbacks.replace = [this](const std::vector<TidbClusterStatus>& all) {
      std::vector<ClusterKey> keys;
      for (const auto& tc : all) keys.push_back(tc.key);
      registry_.SetTidbClusters(keys);
      dependencies_.ReplaceTidbClusters(all);
    };
  } else {
    // One reflector per namespace: a (re)list replaces that namespace's TidbClusters only, so the
    // complete set is kept here to hand the stores, which take complete sets.
    callbacks.replace = [this, scope](const std::vector<TidbClusterStatus>& listed) {
      std::lock_guard<std::mutex> lock(tidbclusters_mu_);
      std::erase_if(tidbclusters_, [&](const auto& kv) { return kv.first.namespace_ == scope; });
      for (const auto& tc : listed) tidbclusters_[tc.key] = tc;
      std::vector<ClusterKey> keys;
      std::vector<TidbClusterStatus> all;
      for (const auto& [key, tc] : tidbclusters_) {
        keys.push_back(key);
        all.push_back(tc);
      }
      registry_.SetTidbClusters(keys);
      dependencies_.ReplaceTidbClusters(all);
    };
  }
  const bool keep = !scope.empty();
  callbacks.upsert = [this, keep](const TidbClusterStatus& tc) {
    std::lock_guard<std::mutex> lock(tidbclusters_mu_);
    if (keep) tidbclusters_[tc.key] = tc;
    registry_.UpsertTidbCluster(tc.key);
    dependencies_.OnTidbCluster(tc);
  };
  callbacks.remove = [this](const ClusterKey& key) {
    std::lock_guard<std::mutex> lock(tidbclusters_mu_);
    tidbclusters_.erase(key);
    registry_.RemoveTidbCluster(key);
    dependencies_.OnTidbClusterDeleted(key);
  };
  return callbacks;
}

void App::InstallHandlers() {
  server_.Handle(config_.telemetry_path, [this](const HttpServerRequest&) {
    const int64_t start = clock_.MonotonicMs();
    HttpServerReply reply;
    reply.content_type = kTextContentType;
    reply.body = RenderText(collectables_);
    waiting_collector_->AppendText(&reply.body);
    AppendInvalidUtf8Metrics(&reply.body);
    reply.compressible = true;
    self_metrics_.ScrapeDuration().Observe(static_cast<double>(clock_.MonotonicMs() - start) /
                                           1000);
    return reply;
  });
  server_.Handle("/healthz", [](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.body = "ok\n";
    return reply;
  });
  server_.Handle("/readyz", [this](const HttpServerRequest&) {
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
  });
  server_.Handle("/api/v1/pods", [this](const HttpServerRequest& request) {
    PodFilter filter;
    auto get = [&request](const char* key) {
      auto it = request.query.find(key);
      return it == request.query.end() ? std::string() : it->second;
    };
    filter.namespace_ = get("namespace");
    filter.cluster = get("cluster");
    filter.wait_class = get("class");
    HttpServerReply reply;
    reply.content_type = "application/json";
    reply.body = RenderPodsJson(MakeViewModel(), filter);
    reply.compressible = true;
    return reply;
  });
  server_.Handle("/", [this](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.content_type = "text/html; charset=utf-8";
    reply.body = RenderStatusPage(MakeViewModel(), config_.telemetry_path);
    reply.compressible = true;
    return reply;
  });
}

bool App::Start(std::string* error) {
  std::optional<KubeEndpoint> endpoint = ResolveKubeEndpoint(config_, ProcessEnv(), error);
  if (!endpoint) return false;
  LogKubeEndpoint(*endpoint);
  tokens_ = MakeTokenSource(*endpoint, clock_);
  kube_.endpoint = *endpoint;
  kube_.tokens = tokens_.get();
  kube_.clock = &clock_;
  kube_.metrics = &self_metrics_;
  kube_.sync = &sync_;

  const PodParseOptions pod_options = PodParseOptions::FromConfig(config_);
  for (ReflectorOptions& o : PodReflectorOptions(config_)) {
    pod_sources_.push_back(std::make_unique<PodSource>(pods_, pod_options, ReflectorNamespace(o)));
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
  if (config_.ca_status_enabled && autoscaler_mode_ != AutoscalerMode::kNone &&
      autoscaler_mode_ != AutoscalerMode::kKarpenter) {
    ca_status_source_ = std::make_unique<ConfigMapSource>(config_.ca_status_name);
    reflectors_.push_back(
        std::make_unique<Reflector>(kube_, ConfigMapReflectorOptions(config_), *ca_status_source_));
  }

  probe_observer_ = std::make_unique<SelfMetricsProbeObserver>(self_metrics_);
  prober_ = std::make_unique<PdProber>(
      config_, clock_, probe_observer_.get(), [this] { return registry_.Clusters(); },
      [this](const ClusterKey& cluster, PdFacts facts) {
        dependencies_.OnPdProbe(cluster, std::move(facts));
      });

  InstallHandlers();
  if (!server_.Start(config_.listen_address, error)) return false;
  for (auto& r : reflectors_) r->Start();
  prober_->Start();
  {
    std::lock_guard<std::mutex> lock(loop_mu_);
    stop_loop_ = false;
  }
  loop_ = std::thread([this] { EvaluationLoop(); });
  started_ = true;
  LogInfo("listening", {{"address", config_.listen_address},
                        {"port", std::to_string(server_.port())},
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
