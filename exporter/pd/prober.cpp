#include "exporter/pd/prober.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "exporter/common/label_values.h"
#include "exporter/common/log.h"

namespace podwait {
namespace {

template <typename T>
void NoteError(const PdAnswer<T>& answer, PdFacts* facts) {
  if (facts->error.empty() && !answer.error.empty() && !answer.not_bootstrapped) {
    facts->error = answer.error;
  }
  if (answer.pd_answered) facts->reachable = true;
}

}  // namespace

PdFacts ProbePd(PdClient& client, Timestamp now, bool with_config) {
  PdProbeSequence sequence(now, with_config);
  while (std::optional<PdEndpoint> endpoint = sequence.next()) {
    const HttpResponse response = client.Get(*endpoint);
    ReportPdRequest(client.observer(), *endpoint, response, sequence.OnResponse(response));
  }
  return sequence.Finish();
}

PdProbeSequence::PdProbeSequence(Timestamp now, bool with_config) : with_config_(with_config) {
  facts_.probed_at = now;
}

PdErrorKind PdProbeSequence::OnResponse(const HttpResponse& response) {
  if (!next_) return PdErrorKind::kNone;
  switch (*next_) {
    case PdEndpoint::kHealth:
      return OnHealth(response);
    case PdEndpoint::kLeader:
      return OnLeader(response);
    case PdEndpoint::kMembers:
      return OnMembers(response);
    case PdEndpoint::kClusterStatus:
      return OnClusterStatus(response);
    case PdEndpoint::kStores:
      return OnStores(response);
    case PdEndpoint::kConfigReplicate: {
      // Informs only: its failure is not the probe's.
      auto replicate = InterpretPdResponse(*next_, response, ParsePdReplicateConfig);
      if (replicate.ok()) facts_.max_replicas = replicate.value->max_replicas;
      next_.reset();
      return replicate.error_kind;
    }
  }
  next_.reset();
  return PdErrorKind::kNone;
}

PdErrorKind PdProbeSequence::OnHealth(const HttpResponse& response) {
  auto health = InterpretPdResponse(PdEndpoint::kHealth, response, ParsePdHealth);
  NoteError(health, &facts_);
  if (health.ok()) {
    facts_.health_known = true;
    for (const auto& m : *health.value) {
      (m.health ? facts_.members_healthy : facts_.members_unhealthy)++;
    }
  }
  health_ok_ = health.ok() && health.error_kind == PdErrorKind::kNone;
  next_ = health.transport_failed() ? std::nullopt : std::optional(PdEndpoint::kLeader);
  return health.error_kind;
}

PdErrorKind PdProbeSequence::OnLeader(const HttpResponse& response) {
  auto leader = InterpretPdResponse(PdEndpoint::kLeader, response, ParsePdLeader);
  NoteError(leader, &facts_);
  if (leader.ok()) {
    facts_.leader_known = true;
    facts_.has_leader = leader.value->has_value();
    if (facts_.has_leader) facts_.leader_name = (*leader.value)->name;
    next_ = PdEndpoint::kClusterStatus;
  } else if (leader.transport_failed()) {
    next_.reset();
  } else {
    next_ = PdEndpoint::kMembers;  // PD before /leader, or a proxy answering it
  }
  return leader.error_kind;
}

PdErrorKind PdProbeSequence::OnMembers(const HttpResponse& response) {
  auto members = InterpretPdResponse(PdEndpoint::kMembers, response, ParsePdMembers);
  NoteError(members, &facts_);
  if (members.ok()) {
    facts_.leader_known = true;
    facts_.has_leader = members.value->leader.has_value();
    if (facts_.has_leader) facts_.leader_name = members.value->leader->name;
  }
  next_ = members.transport_failed() ? std::nullopt : std::optional(PdEndpoint::kClusterStatus);
  return members.error_kind;
}

PdErrorKind PdProbeSequence::OnClusterStatus(const HttpResponse& response) {
  auto status = InterpretPdResponse(PdEndpoint::kClusterStatus, response, ParsePdClusterStatus);
  NoteError(status, &facts_);
  if (status.ok()) {
    facts_.cluster_status_known = true;
    facts_.is_initialized = status.value->is_initialized;
  }
  next_ = status.transport_failed() ? std::nullopt : std::optional(PdEndpoint::kStores);
  return status.error_kind;
}

PdErrorKind PdProbeSequence::OnStores(const HttpResponse& response) {
  auto stores = InterpretPdResponse(PdEndpoint::kStores, response, ParsePdStores);
  NoteError(stores, &facts_);
  if (stores.ok()) {
    facts_.stores_known = true;
    for (const auto& s : stores.value->stores) {
      if (s.IsTiFlash()) {
        ++facts_.tiflash_stores;
      } else {
        ++facts_.tikv_stores[std::string(StoreStateLabel(s.state_name))];
      }
    }
  } else if (stores.not_bootstrapped) {
    facts_.stores_known = true;
    facts_.not_bootstrapped = true;
  }
  next_ = stores.transport_failed() ? std::nullopt : AfterStores();
  return stores.error_kind;
}

std::optional<PdEndpoint> PdProbeSequence::AfterStores() const {
  if (with_config_) return PdEndpoint::kConfigReplicate;
  return std::nullopt;
}

PdFacts PdProbeSequence::Finish() {
  facts_.success =
      health_ok_ && facts_.leader_known && facts_.cluster_status_known && facts_.stores_known;
  return std::move(facts_);
}

namespace {

// Connections the prober keeps: one per target and one per probe slot, but at most half of the
// descriptors the process may open (the API server's watches and the web server need the rest).
// Fewer than the targets means every probe opens a connection again (the oldest idle one, which
// is the next cluster's, closes first).
size_t ConnectionCacheSize(size_t targets, int concurrency) {
  size_t want = targets + static_cast<size_t>(std::max(1, concurrency));
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    want = std::min<size_t>(want, std::max<size_t>(limit.rlim_cur / 2, 1));
  }
  return want;
}

}  // namespace

PdProber::PdProber(PdProberOptions options, const Environment& env, PdProbeObserver* observer,
                   TargetLister lister, ResultSink sink)
    : options_(options),
      clock_(*env.clock),
      observer_(observer),
      lister_(std::move(lister)),
      sink_(std::move(sink)),
      factory_(env.async_http) {}

PdProber::~PdProber() { Stop(); }

void PdProber::Start() {
  if (started_) return;
  started_ = true;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
  LogInfo("PD prober started",
          {{"interval_ms", std::to_string(options_.interval_ms)},
           {"timeout_ms", std::to_string(options_.timeout_ms)},
           {"concurrency", std::to_string(std::max(1, options_.concurrency))}});
}

void PdProber::Stop() {
  if (!started_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    if (http_ != nullptr) http_->Wake();
  }
  if (thread_.joinable()) thread_.join();
  queue_.clear();
  pending_.clear();
  rounds_.clear();
  in_flight_ = 0;
  started_ = false;
}

void PdProber::Loop() {
  std::unique_ptr<AsyncHttp> http = factory_();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    http_ = http.get();
  }
  const auto interval = std::chrono::milliseconds(std::max<int64_t>(options_.interval_ms, 10));
  auto next = std::chrono::steady_clock::now();
  while (!stop_) {
    if (std::chrono::steady_clock::now() >= next) {
      StartRound(*http);
      next += interval;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // a late tick never causes a burst of catch-up rounds
    }
    LaunchQueued(*http);
    const auto until_next = std::chrono::duration_cast<std::chrono::milliseconds>(
        next - std::chrono::steady_clock::now());
    http->Run(std::clamp<int64_t>(until_next.count(), 0, 1000));
  }
  std::lock_guard<std::mutex> lock(mu_);
  http_ = nullptr;
  // `http` goes here: transfers in flight end without their completions.
}

void PdProber::StartRound(AsyncHttp& http) {
  std::vector<PdTarget> targets = lister_();
  http.SetMaxConnections(ConnectionCacheSize(targets.size(), options_.concurrency));
  // Clusters that are gone leave no configuration state behind.
  std::set<ClusterKey> listed;
  for (const auto& t : targets) listed.insert(t.cluster);
  std::erase_if(config_, [&](const auto& entry) { return listed.count(entry.first) == 0; });
  const uint64_t round = next_round_++;
  RoundState& state = rounds_[round];
  state.started_ms = clock_.MonotonicMs();
  for (auto& t : targets) {
    // Still queued or running from an earlier round.
    if (!pending_.insert(t.cluster).second) continue;
    queue_.push_back(Item{std::move(t), round});
    ++state.outstanding;
  }
  if (state.outstanding == 0) rounds_.erase(round);
}

void PdProber::LaunchQueued(AsyncHttp& http) {
  const size_t slots = static_cast<size_t>(std::max(1, options_.concurrency));
  while (!stop_ && in_flight_ < slots && !queue_.empty()) {
    Item item = std::move(queue_.front());
    queue_.pop_front();
    ConfigState& c = config_[item.target.cluster];
    const bool with_config = c.probes++ % kConfigEveryRounds == 0 || !c.max_replicas;
    PdClientOptions client;
    client.base_url = item.target.base_url;
    client.tls = item.target.tls;
    client.timeout_ms = options_.timeout_ms;
    client.cancel = &stop_;
    auto probe = std::make_shared<Probe>(
        Probe{std::move(item), std::move(client), PdProbeSequence(clock_.Now(), with_config)});
    ++in_flight_;
    Ask(http, std::move(probe));
  }
}

void PdProber::Ask(AsyncHttp& http, std::shared_ptr<Probe> probe) {
  const PdEndpoint endpoint = *probe->sequence.next();
  HttpRequest request = PdRequest(probe->client, endpoint);
  http.Get(std::move(request), kPdMaxBody,
           [this, &http, probe = std::move(probe), endpoint](HttpResponse response) {
             OnAnswer(http, probe, endpoint, response);
           });
}

void PdProber::OnAnswer(AsyncHttp& http, const std::shared_ptr<Probe>& probe, PdEndpoint endpoint,
                        const HttpResponse& response) {
  if (stop_) return;
  ReportPdRequest(observer_, endpoint, response, probe->sequence.OnResponse(response));
  if (probe->sequence.next()) {
    Ask(http, probe);
  } else {
    Finish(probe);
  }
}

void PdProber::Finish(const std::shared_ptr<Probe>& probe) {
  --in_flight_;
  const ClusterKey& cluster = probe->item.target.cluster;
  PdFacts facts = probe->sequence.Finish();
  ConfigState& c = config_[cluster];
  if (facts.max_replicas) {
    c.max_replicas = facts.max_replicas;
  } else {
    facts.max_replicas = c.max_replicas;  // the last answer stands until the next one
  }
  if (!facts.success) {
    LogDebug(
        "PD probe failed",
        {{"namespace", cluster.namespace_}, {"cluster", cluster.name}, {"error", facts.error}});
  }
  sink_(cluster, std::move(facts));
  pending_.erase(cluster);
  FinishItem(probe->item.round);
}

void PdProber::FinishItem(uint64_t round) {
  auto it = rounds_.find(round);
  if (it == rounds_.end()) return;
  if (--it->second.outstanding != 0) return;
  const int64_t finished_round_ms = clock_.MonotonicMs() - it->second.started_ms;
  rounds_.erase(it);
  last_round_ms_ = finished_round_ms;
  ++rounds_completed_;
  if (observer_ != nullptr) observer_->OnRound(static_cast<double>(finished_round_ms) / 1000.0);
}

}  // namespace podwait
