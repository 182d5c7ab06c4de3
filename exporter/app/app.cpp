#include "exporter/app/app.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "exporter/app/inputs.h"
#include "exporter/app/kube_setup.h"
#include "exporter/app/options.h"
#include "exporter/common/log.h"
#include "exporter/http/runbook.h"
#include "exporter/metrics/exposition.h"
#include "exporter/metrics/process_collector.h"
#include "exporter/metrics/utf8_metrics.h"
#include "exporter/metrics/waiting_collector.h"
#include "exporter/model/vocabulary.h"
#include "podwait/version.h"

namespace podwait {
namespace {

constexpr Timestamp kEvaluationInterval = kSecond;
// The longest the first evaluation waits for every input to be read once (App::EvaluateOnce).
constexpr int64_t kFirstEvaluationHold = 5000;

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
      pipeline_(config_, clock_),
      server_(ServerLimits(config_)) {
  // --web.disable-exporter-metrics drops the exporter's metrics about itself (as node_exporter's
  // does the process and Go ones); podwait_build_info stays.
  std::vector<std::shared_ptr<const prometheus::Collectable>> self;
  if (!config_.disable_exporter_metrics) {
    self = {self_metrics_.registry(), std::make_shared<ProcessCollector>()};
  } else {
    self = {self_metrics_.build_info_registry()};
  }
  metric_writers_.push_back(std::make_unique<CollectableWriter>(std::move(self)));
  metric_writers_.push_back(
      std::make_unique<DependencyCollector>([this] { return pipeline_.DependencyViews(); }));
  metric_writers_.push_back(std::make_unique<WaitingCollector>(
      [this] { return pipeline_.Snapshot(); }, clock_, config_.metrics_pod_series));
  if (!config_.disable_exporter_metrics) {
    metric_writers_.push_back(std::make_unique<InvalidUtf8Writer>());
  }
}

App::~App() { Stop(); }

void App::EvaluateOnce() {
  if (ca_status_) pipeline_.SetCaStatus(ca_status_->Read());
  for (const OptionalInputs::State& s : optional_inputs_.Observe(clock_.MonotonicMs())) {
    self_metrics_.InputEnabled(s.input).Set(s.off == OptionalInputs::Off::kOn ? 1 : 0);
  }
  // Read before the evaluation: a list that completes during it is in the next one.
  const bool listed = sync_.AllSynced();
  // The clusters first, so that the prober learns them while the first evaluation waits.
  pipeline_.DiscoverClusters();
  // Once every input has been read (listed, every cluster's PD probed once), a dependency seen
  // not ready and then ready is dated by podwait's clock; before, from the objects
  // (DependencyStore::OnInputsSynced).
  if (!inputs_read_ && listed && (!prober_ || pipeline_.dependencies().EveryClusterProbed())) {
    inputs_read_ = true;
    pipeline_.dependencies().OnInputsSynced();
  }
  // The first evaluation waits for that too (kFirstEvaluationHold at most): a verdict from half
  // the inputs (the pods before the TidbCluster, a v2 cluster before PD answers) is what a
  // restarted exporter must not show (docs/DESIGN.md §4).
  const bool held = !first_evaluated_ && !inputs_read_ &&
                    clock_.MonotonicMs() - started_ms_ < kFirstEvaluationHold;
  if (!held) {
    first_evaluated_ = true;
    pipeline_.Evaluate(clock_.Now());
  }
  // While the first evaluation waits, the prober lists the clusters the pods name (no signal
  // yet: a cluster's first signal is its baseline, which must say whether its pods wait).
  if (prober_ && held) prober_->ListAgain();
  // What the prober should probe at once and at the fast cadence (pd_access.h); only once every
  // input has listed and been evaluated, when the views no longer change because lists arrive.
  if (prober_ && listed && !held) {
    auto signals =
        pd_signals_.Next(pipeline_.Snapshot(), [this] { return pipeline_.DependencyViews(); });
    if (signals) prober_->Signal(std::move(*signals));
  }
  if (held) return;
  status_log_.Observe(
      sync_.AllSynced(), pipeline_.Snapshot(),
      [this] {
        return std::pair<size_t, size_t>(pipeline_.Clusters().size(), pipeline_.PodCount());
      },
      clock_.MonotonicMs());
  if (class_events_) class_events_->Observe(sync_.AllSynced(), pipeline_.Snapshot(), clock_.Now());
}

void App::EvaluationLoop() {
  std::unique_lock<std::mutex> lock(loop_mu_);
  while (!stop_loop_) {
    lock.unlock();
    EvaluateOnce();
    lock.lock();
    loop_cv_.wait_for(lock, std::chrono::milliseconds(kEvaluationInterval),
                      [this] { return stop_loop_ || evaluate_now_; });
    evaluate_now_ = false;
  }
}

ViewModel App::MakeViewModel() const {
  ViewModel m;
  m.waiting = pipeline_.Snapshot();
  m.evaluated_at = pipeline_.LastEvaluated();
  m.dependencies = pipeline_.Dependencies();
  m.synced = sync_.AllSynced();
  m.now = clock_.Now();
  // What keeps the data from being current (docs/DESIGN.md §7, "No data is not good news").
  SyncStatus::Unsynced unsynced = sync_.NotSynced();
  m.health.not_synced_yet = std::move(unsynced.not_yet);
  m.health.out_of_sync = std::move(unsynced.lost);
  // The pods first: they are what the page shows.
  for (auto* names : {&m.health.not_synced_yet, &m.health.out_of_sync}) {
    std::stable_partition(names->begin(), names->end(), [](const std::string& n) {
      return n == "pods" || n.rfind("pods/", 0) == 0;
    });
  }
  const ApiServerLog::Reach reach = kube_.server_log->Current();
  m.health.api_address = kube_.endpoint.api_url;
  m.health.api_reachable = reach.reachable;
  m.health.api_error = reach.error;
  if (!reach.reachable) {
    m.health.api_unreachable_since = m.now - (clock_.MonotonicMs() - reach.down_since_ms);
  }
  m.health.last_data = freshness_.Oldest("pods");
  m.health.started_at = started_at_;
  return m;
}

void App::BuildReflectors() {
  InputContext ctx{config_, pipeline_, clock_, handlers_, ca_status_, [this](const std::string& e) {
                     self_metrics_.ParseErrors("configmaps").Increment();
                     LogWarn("cannot parse the cluster-autoscaler status", {{"err", e}});
                   }};
  reflectors_ = BuildInputReflectors(ctx, kube_, &optional_inputs_);
}

// The reporting instance is this pod's name (HOSTNAME in a pod), as kube components name theirs.
void App::BuildEventWriter() {
  EventWriterOptions options;
  options.reporting_controller = std::string(kEventReportingController);
  options.reporting_instance = env_.env("HOSTNAME").value_or("");
  if (options.reporting_instance.empty()) options.reporting_instance = "podwait-exporter";
  event_observer_ = std::make_unique<SelfMetricsEventObserver>(self_metrics_);
  event_writer_ = std::make_unique<EventWriter>(kube_, options, event_observer_.get());
  class_events_ = std::make_unique<ClassEvents>(*event_writer_);
  LogInfo(
      "writing Events on pods when their class changes",
      {{"api", "events.k8s.io/v1"},
       {"reporting_controller", options.reporting_controller},
       {"reporting_instance", options.reporting_instance},
       {"per_pod", "burst " + std::to_string(static_cast<int>(options.pod_burst)) +
                       ", then one per " + std::to_string(options.pod_refill_ms / 1000) + "s"}});
}

void App::BuildProber() {
  probe_observer_ = std::make_unique<SelfMetricsProbeObserver>(self_metrics_);
  if (config_.readiness_source == ReadinessSource::kTidbCluster) {
    LogInfo("PD prober disabled",
            {{"readiness_source", std::string(ReadinessSourceName(config_.readiness_source))}});
    return;
  }
  if (PdViaApiServer(config_.pd_via, kube_.endpoint)) {
    pd_route_ = std::make_unique<KubePdRoute>(kube_);
    LogInfo("PD through the API server's service proxy where PD's address is a cluster Service",
            {{"pd_via", std::string(PdViaName(config_.pd_via))},
             {"kube_api", kube_.endpoint.api_url},
             {"needs", "get on services/proxy in the TiDB clusters' namespaces"}});
  }
  prober_ = std::make_unique<PdProber>(
      PdProberOptionsFromConfig(config_), env_, probe_observer_.get(),
      [this] {
        std::vector<PdTarget> targets =
            PdTargetsFor(pipeline_.Clusters(), config_, pipeline_.PdUrls(), pipeline_.PdSources());
        if (!pd_route_) return targets;
        return ThroughApiServer(std::move(targets), kube_.endpoint.api_url, pd_route_.get());
      },
      [this](const ClusterKey& cluster, PdFacts facts) {
        pipeline_.OnPdProbe(cluster, std::move(facts));
      },
      [this] {
        {
          std::lock_guard<std::mutex> lock(loop_mu_);
          evaluate_now_ = true;
        }
        loop_cv_.notify_all();
      });
}

namespace {

StatusPageOptions StatusPageOptionsFor(const Config& c) {
  StatusPageOptions o;
  o.telemetry_path = c.telemetry_path;
  o.version = kVersion;
  o.selector = c.selector;
  o.selector_v2 = c.v2_enabled ? c.selector_v2 : std::string();
  o.namespaces = c.namespaces;
  o.external_url = c.external_url;
  return o;
}

}  // namespace

// Every endpoint is served under --web.route-prefix; the status page at "<prefix>/" (its links
// are relative, so it works behind kubectl proxy and ingress sub-paths alike).
void App::InstallHandlers() {
  const std::string& prefix = config_.route_prefix;
  server_.Handle(prefix + config_.telemetry_path, [this](const HttpServerRequest&) {
    const int64_t start = clock_.MonotonicMs();
    HttpServerReply reply;
    reply.content_type = kTextContentType;
    const WebConfigReloadStatus web_config = server_.WebConfigStatus();
    self_metrics_.SetWebConfigReload(web_config.successful, web_config.last_success);
    // About as long as the last one: one allocation instead of a doubling series of copies.
    reply.body.reserve(last_scrape_bytes_.load(std::memory_order_relaxed) + 64 * 1024);
    AppendAll(metric_writers_, &reply.body);
    last_scrape_bytes_.store(reply.body.size(), std::memory_order_relaxed);
    reply.compressible = true;
    self_metrics_.ScrapeDuration().Observe(static_cast<double>(clock_.MonotonicMs() - start) /
                                           1000);
    return reply;
  });
  // /livez and /healthz: the process answers (as the Kubernetes components' /livez). The probes
  // are not counted by --web.max-requests.
  for (const char* path : {"/healthz", "/livez"}) {
    server_.Handle(
        prefix + path,
        [](const HttpServerRequest&) {
          HttpServerReply reply;
          reply.body = "ok\n";
          return reply;
        },
        /*probe=*/true);
  }
  server_.Handle(
      prefix + "/readyz",
      [this](const HttpServerRequest&) {
        HttpServerReply reply;
        if (sync_.AllSynced()) {
          reply.body = "ready\n";
        } else {
          reply.status = 503;
          reply.body = "not ready: not in sync with the API server:";
          for (const auto& [name, synced] : sync_.Snapshot()) {
            if (!synced) reply.body += " " + name;
          }
          reply.body += "\n";
        }
        return reply;
      },
      /*probe=*/true);
  // An unknown parameter or class is 400 naming it (the status page shows its empty state).
  server_.Handle(prefix + "/api/v1/pods", [this](const HttpServerRequest& request) {
    HttpServerReply reply;
    const Result<PodFilter> filter = ParsePodFilter(request.query);
    if (!filter.ok()) {
      reply.status = 400;
      reply.body = filter.error + "\n";
      return reply;
    }
    reply.content_type = "application/json";
    reply.body = RenderPodsJson(MakeViewModel(), *filter);
    reply.compressible = true;
    return reply;
  });
  server_.Handle(prefix + "/", [this](const HttpServerRequest& request) {
    HttpServerReply reply;
    reply.content_type = "text/html; charset=utf-8";
    reply.body = RenderStatusPage(MakeViewModel(), StatusPageOptionsFor(config_),
                                  PodFilter::FromQuery(request.query));
    reply.headers = StatusPageHeaders();
    reply.compressible = true;
    return reply;
  });
  server_.Handle(prefix + "/runbook", [](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.content_type = "text/html; charset=utf-8";
    reply.body = RunbookPage();
    reply.headers = RunbookPageHeaders();
    reply.compressible = true;
    return reply;
  });
  if (!prefix.empty()) {
    // "<prefix>" alone: to "<prefix>/", so that the page's relative links resolve under it.
    server_.Handle(prefix, [prefix](const HttpServerRequest&) {
      HttpServerReply reply;
      reply.status = 302;
      reply.headers = {{"Location", prefix + "/"}};
      reply.body = "Found\n";
      return reply;
    });
  }
}

Result<bool> App::Start() {
  started_at_ = clock_.Now();
  started_ms_ = clock_.MonotonicMs();
  if (Result<bool> web = server_.UseWebConfig(config_.web_config_file); !web.ok()) return web;
  Result<KubeEndpoint> endpoint =
      ResolveKubeEndpoint(KubeEndpointFlagsFromConfig(config_), env_.env);
  if (!endpoint.ok()) return Result<bool>::Fail(endpoint.error);
  LogKubeEndpoint(*endpoint);
  LogWatchScope(config_);
  tokens_ = MakeTokenSource(*endpoint, env_);
  kube_.endpoint = *endpoint;
  kube_.tokens = tokens_.get();
  kube_.env = env_;
  kube_.observers =
      WithFreshness(MakeSelfMetricsReflectorObservers(self_metrics_), freshness_, clock_);
  kube_.sync = &sync_;
  kube_.budget = std::make_shared<RequestBudget>(config_.kube_api_qps, config_.kube_api_burst);
  PrepareKube(&config_, &kube_);

  BuildReflectors();
  DiscoverServed(kube_, reflectors_);
  if (config_.events_write) BuildEventWriter();

  BuildProber();
  InstallHandlers();
  if (Result<bool> started = server_.Start(config_.listen_addresses); !started.ok()) {
    return started;
  }
  for (auto& r : reflectors_) r->Start();
  if (prober_) prober_->Start();
  if (event_writer_) event_writer_->Start();
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
                        {"route_prefix", config_.route_prefix.empty() ? "/" : config_.route_prefix},
                        {"telemetry_path", config_.route_prefix + config_.telemetry_path},
                        {"kube_api", kube_.endpoint.api_url}});
  return Result<bool>::Ok(true);
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
  // well within Kubernetes' grace period. The reflectors stop on their event loop, at once.
  std::vector<std::thread> stoppers;
  stoppers.emplace_back([this] {
    for (auto& r : reflectors_) r->Stop();
    if (kube_.loop) kube_.loop->Stop();
  });
  if (prober_) stoppers.emplace_back([this] { prober_->Stop(); });
  if (event_writer_) stoppers.emplace_back([this] { event_writer_->Stop(); });
  stoppers.emplace_back([this] { server_.Stop(); });
  for (auto& t : stoppers) t.join();
}

}  // namespace podwait
