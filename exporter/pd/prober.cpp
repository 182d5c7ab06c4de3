#include "exporter/pd/prober.h"

#include <sys/resource.h>

#include <algorithm>
#include <cctype>

#include "exporter/common/log.h"

namespace podwait {
namespace {

// A signal brings a full probe at once, but a cluster is not probed again within this long of its
// last probe's start (a PD that does not answer: within one interval).
constexpr int64_t kMinTriggerSpacingMs = 1000;
// A PD that does not answer is asked again after the interval, doubling up to this (or the
// interval when longer).
constexpr int64_t kMaxNoAnswerDelayMs = 60'000;
// How soon a probe through the API server asks the request budget again.
constexpr int64_t kBudgetRetryMs = 50;
// The loop looks at its signals and schedule at least this often.
constexpr int64_t kMaxWaitMs = 1000;

// Connections the prober keeps: one per fast-probed cluster and one per probe slot, but at most
// kMaxPdConnections and half of the descriptors the process may open (the API server's watches
// and the web server need the rest).
size_t ConnectionCacheSize(size_t fast, size_t slots) {
  size_t want = std::min(fast + slots, kMaxPdConnections);
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    want = std::min<size_t>(want, std::max<size_t>(limit.rlim_cur / 2, 1));
  }
  return std::max<size_t>(want, 1);
}

// The API server's refusal of a proxied request, as the probe sequence takes it: no answer from
// PD (the probe stops), with the API server's words as the error.
HttpResponse AsNoAnswer(const HttpResponse& response, const ApiServerStatus& status) {
  HttpResponse out;
  out.duration_ms = response.duration_ms;
  out.error = "API server answered HTTP " + std::to_string(status.code) +
              (status.reason.empty() ? "" : " " + status.reason) +
              (status.message.empty() ? "" : ": " + status.message);
  return out;
}

}  // namespace

PdProber::PdProber(PdProberOptions options, const Environment& env, PdProbeObserver* observer,
                   TargetLister lister, ResultSink sink, UrgentResult urgent)
    : options_(options),
      clock_(*env.clock),
      observer_(observer),
      lister_(std::move(lister)),
      sink_(std::move(sink)),
      urgent_(std::move(urgent)),
      factory_(env.async_http) {}

PdProber::~PdProber() { Stop(); }

void PdProber::Start() {
  if (started_) return;
  started_ = true;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
  LogInfo("PD prober started", {{"interval_ms", std::to_string(options_.interval_ms)},
                                {"idle_interval_ms", std::to_string(options_.idle_interval_ms)},
                                {"timeout_ms", std::to_string(options_.timeout_ms)},
                                {"concurrency", std::to_string(slots())}});
}

void PdProber::Stop() {
  if (!started_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    if (http_ != nullptr) http_->Wake();
  }
  if (thread_.joinable()) thread_.join();
  clusters_.clear();
  answering_.clear();
  failing_.clear();
  parked_.clear();
  round_pending_.clear();
  in_flight_ = failing_in_flight_ = pool_size_ = 0;
  pool_dirty_ = true;
  next_list_ms_ = 0;
  last_list_ms_ = -1;
  round_started_ms_ = 0;
  started_ = false;
}

void PdProber::Signal(std::map<ClusterKey, PdClusterSignal> signals) {
  std::lock_guard<std::mutex> lock(mu_);
  inbox_ = std::move(signals);
  has_inbox_ = true;
  if (http_ != nullptr) http_->Wake();
}

void PdProber::ListAgain() {
  std::lock_guard<std::mutex> lock(mu_);
  list_again_ = true;
  if (http_ != nullptr) http_->Wake();
}

size_t PdProber::slots() const { return static_cast<size_t>(std::max(1, options_.concurrency)); }

void PdProber::Loop() {
  std::unique_ptr<AsyncHttp> http = factory_();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    http_ = http.get();
  }
  while (!stop_) {
    const int64_t now = clock_.MonotonicMs();
    TakeSignals(now);
    if (now >= next_list_ms_) Relist(*http, now);
    RetryParked(*http);
    Launch(*http, now);
    UpdatePool(*http);
    http->Run(WaitMs(clock_.MonotonicMs()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  http_ = nullptr;
  // `http` goes here: transfers in flight end without their completions.
}

// Until the next due probe that a free slot may start, the next listing, or a parked probe's
// next try at the budget; at most kMaxWaitMs (a completion or Wake() ends the wait sooner).
int64_t PdProber::WaitMs(int64_t now) const {
  int64_t next = next_list_ms_;
  if (in_flight_ < slots()) {
    if (!answering_.empty()) next = std::min(next, answering_.begin()->first);
    if (!failing_.empty() && failing_in_flight_ < std::max<size_t>(1, slots() / 2)) {
      next = std::min(next, failing_.begin()->first);
    }
  }
  if (!parked_.empty()) next = std::min(next, now + kBudgetRetryMs);
  return std::clamp<int64_t>(next - now, 0, kMaxWaitMs);
}

void PdProber::TakeSignals(int64_t now) {
  std::map<ClusterKey, PdClusterSignal> signals;
  bool list_again = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    list_again = list_again_;
    list_again_ = false;
    if (!has_inbox_) {
      if (list_again && now >= last_list_ms_ + kMinTriggerSpacingMs) next_list_ms_ = now;
      return;
    }
    signals = std::move(inbox_);
    inbox_.clear();
    has_inbox_ = false;
  }
  if (list_again && now >= last_list_ms_ + kMinTriggerSpacingMs) next_list_ms_ = now;
  // A cluster's first signal is what the evaluation found, not a change: it sets the cadence
  // (the cluster's first probe is a full one anyway) but brings no probe forward.
  for (auto& [key, c] : clusters_) {
    auto it = signals.find(key);
    const PdClusterSignal signal = it == signals.end() ? PdClusterSignal{} : it->second;
    const bool starts_waiting = signal.waiting && !c.waiting;
    bool trigger = c.signaled && starts_waiting;
    if (signal.status) {
      trigger = trigger || (c.status && *c.status != *signal.status);
      c.status = signal.status;
    }
    if (it != signals.end()) signals.erase(it);
    pool_dirty_ = pool_dirty_ || c.waiting != signal.waiting;
    c.waiting = signal.waiting;
    if (trigger) {
      LogDebug("PD probe at once",
               {{"namespace", key.namespace_},
                {"cluster", key.name},
                {"why", starts_waiting ? "a pod started waiting" : "its status changed"}});
      Trigger(key, c, now);
    } else if (starts_waiting && !c.in_flight && c.last_start_ms >= 0) {
      Bring(key, c, std::max(now, c.last_start_ms + options_.interval_ms));  // the fast cadence
    }
    c.signaled = true;
  }
  // A cluster the prober does not know yet: list again soon rather than at the next interval.
  if (!signals.empty() && now >= last_list_ms_ + kMinTriggerSpacingMs) next_list_ms_ = now;
}

void PdProber::Trigger(const ClusterKey& key, Cluster& c, int64_t now) {
  c.urgent = true;
  c.full_next = true;
  if (c.in_flight) return;  // Reschedule() brings it forward when the probe ends
  const int64_t spacing = c.failures > 0 ? options_.interval_ms : kMinTriggerSpacingMs;
  Bring(key, c, c.last_start_ms < 0 ? now : std::max(now, c.last_start_ms + spacing));
}

void PdProber::Bring(const ClusterKey& key, Cluster& c, int64_t due) {
  if (c.in_flight || due >= c.due_ms) return;
  Unschedule(key, c);
  Schedule(key, c, due);
}

void PdProber::Schedule(const ClusterKey& key, Cluster& c, int64_t due) {
  c.due_ms = due;
  (c.failures > 0 ? failing_ : answering_).emplace(due, key);
}

void PdProber::Unschedule(const ClusterKey& key, const Cluster& c) {
  answering_.erase({c.due_ms, key});
  failing_.erase({c.due_ms, key});
}

void PdProber::Relist(AsyncHttp& http, int64_t now) {
  next_list_ms_ = now + std::max<int64_t>(options_.interval_ms, 10);
  last_list_ms_ = now;
  std::vector<PdTarget> targets = lister_();
  std::set<ClusterKey> listed;
  for (auto& t : targets) {
    const ClusterKey key = t.cluster;
    listed.insert(key);
    auto [it, added] = clusters_.try_emplace(key);
    it->second.target = std::move(t);
    if (added) {
      it->second.id = next_cluster_id_++;
      Schedule(key, it->second, now);
    }
  }
  for (auto it = clusters_.begin(); it != clusters_.end();) {
    if (listed.count(it->first) != 0) {
      ++it;
      continue;
    }
    Unschedule(it->first, it->second);
    round_pending_.erase(it->first);
    it = clusters_.erase(it);
  }
  pool_dirty_ = true;
  UpdatePool(http);
  StartRoundIfDone(now);
}

void PdProber::StartRoundIfDone(int64_t now) {
  if (!round_pending_.empty() || clusters_.empty()) return;
  if (round_started_ms_ > 0 || rounds_completed_ > 0) {
    // Every cluster of the round has been probed (or is gone): the round is over.
    const int64_t took = now - round_started_ms_;
    last_round_ms_ = took;
    ++rounds_completed_;
    if (observer_ != nullptr) observer_->OnRound(static_cast<double>(took) / 1000.0);
  }
  round_started_ms_ = std::max<int64_t>(now, 1);
  for (const auto& [key, c] : clusters_) round_pending_.insert(key);
}

void PdProber::CountTowardsRound(const ClusterKey& key, int64_t started_ms, int64_t now) {
  if (started_ms < round_started_ms_ || round_pending_.erase(key) == 0) return;
  StartRoundIfDone(now);
}

void PdProber::Launch(AsyncHttp& http, int64_t now) {
  const size_t failing_slots = std::max<size_t>(1, slots() / 2);
  while (!stop_ && in_flight_ < slots()) {
    // Clusters whose PD answers go first; those that do not answer take at most half the slots.
    Queue* queue = &answering_;
    if (answering_.empty() || answering_.begin()->first > now) {
      if (failing_in_flight_ >= failing_slots) break;
      queue = &failing_;
    }
    if (queue->empty() || queue->begin()->first > now) break;
    const ClusterKey key = queue->begin()->second;
    queue->erase(queue->begin());
    StartProbe(http, key, now);
  }
}

void PdProber::StartProbe(AsyncHttp& http, const ClusterKey& key, int64_t now) {
  Cluster& c = clusters_.at(key);
  const bool full = c.full_next || c.urgent || !Idle(c);
  bool with_config = false;
  if (full) with_config = c.full_probes++ % kConfigEveryRounds == 0 || !c.max_replicas;
  auto probe = std::make_shared<Probe>(
      key, c.id,
      PdProbeSequence(clock_.Now(), with_config,
                      full ? PdProbeKind::kFull : PdProbeKind::kHealthOnly));
  probe->via = c.target.via;
  probe->client.base_url = c.target.base_url;
  if (c.target.via == nullptr) probe->client.tls = c.target.tls;
  probe->client.timeout_ms = options_.timeout_ms;
  probe->client.cancel = &stop_;
  probe->started_ms = now;
  probe->urgent = c.urgent;
  probe->failing = c.failures > 0;
  probe->keep_connection = full || KeepsConnection(c);
  c.in_flight = true;
  c.urgent = false;
  c.last_start_ms = now;
  ++in_flight_;
  if (probe->failing) ++failing_in_flight_;
  ++probes_started_;
  Ask(http, std::move(probe));
}

void PdProber::Ask(AsyncHttp& http, std::shared_ptr<Probe> probe) {
  if (probe->via != nullptr && !probe->via->TryTake(clock_.MonotonicMs())) {
    parked_.push_back(std::move(probe));
    return;
  }
  const PdEndpoint endpoint = *probe->sequence.next();
  HttpRequest request = PdRequest(probe->client, endpoint);
  request.keep_connection = probe->keep_connection;
  if (probe->via != nullptr) probe->via->Authorize(&request);
  http.Get(std::move(request), kPdMaxBody,
           [this, &http, probe = std::move(probe), endpoint](HttpResponse response) {
             OnAnswer(http, probe, endpoint, std::move(response));
           });
}

void PdProber::RetryParked(AsyncHttp& http) {
  if (parked_.empty()) return;
  std::vector<std::shared_ptr<Probe>> parked = std::move(parked_);
  parked_.clear();
  for (auto& probe : parked) Ask(http, std::move(probe));
}

void PdProber::OnAnswer(AsyncHttp& http, const std::shared_ptr<Probe>& probe, PdEndpoint endpoint,
                        HttpResponse response) {
  if (stop_) return;
  std::optional<PdErrorKind> reported;
  if (probe->via != nullptr) {
    probe->via->OnAnswer(response);
    if (std::optional<ApiServerStatus> status = ApiServerStatusOf(response)) {
      response = AsNoAnswer(response, *status);
      probe->refusal = std::move(status);
      reported = PdErrorKind::kHttpStatus;
    }
  }
  const PdErrorKind kind = probe->sequence.OnResponse(response);
  ReportPdRequest(observer_, endpoint, response, reported.value_or(kind));
  if (probe->sequence.next()) {
    Ask(http, probe);
  } else {
    Finish(probe);
  }
}

void PdProber::Finish(const std::shared_ptr<Probe>& probe) {
  --in_flight_;
  if (probe->failing) --failing_in_flight_;
  const int64_t now = clock_.MonotonicMs();
  const ClusterKey& key = probe->cluster;
  PdFacts facts = probe->sequence.Finish();
  if (probe->refusal) NoteRefusal(*probe, &facts);
  auto it = clusters_.find(key);
  const bool known = it != clusters_.end() && it->second.id == probe->cluster_id;
  const bool full = probe->sequence.kind() == PdProbeKind::kFull;
  if (full) {
    if (known && facts.max_replicas) {
      it->second.max_replicas = facts.max_replicas;
    } else if (known) {
      facts.max_replicas = it->second.max_replicas;  // the last answer stands until the next one
    }
    if (!facts.success) {
      LogDebug("PD probe failed",
               {{"namespace", key.namespace_}, {"cluster", key.name}, {"error", facts.error}});
    }
  }
  if (!known) {
    if (full) sink_(key, std::move(facts));
    return;
  }
  Cluster& c = it->second;
  c.in_flight = false;
  Reschedule(key, c, facts, *probe, now);
  CountTowardsRound(key, probe->started_ms, now);
  if (!full) return;  // a healthy /health confirms the last full answer: nothing new to hand on
  sink_(key, std::move(facts));
  if (probe->urgent && urgent_) urgent_();
}

bool PdProber::Idle(const Cluster& c) const {
  return options_.idle_interval_ms > options_.interval_ms && c.healthy && !c.waiting &&
         c.failures == 0;
}

// A slow-cadence check over plain HTTP closes its connection (a reconnect costs little); over
// TLS it keeps it: libcurl sets up each new TLS connection from scratch (with OpenSSL 3, loading
// the CA, the client certificate and key: ~4 ms of CPU, measured in BENCHMARKS.md), more than a
// minute of keeping it costs. One through the API server shares the API server's connection.
bool PdProber::KeepsConnection(const Cluster& c) const {
  if (!Idle(c) || c.target.via != nullptr) return true;
  return c.target.base_url.size() >= 8 &&
         std::equal(
             c.target.base_url.begin(), c.target.base_url.begin() + 8, "https://",
             [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

int64_t PdProber::NoAnswerDelay(int failures) const {
  const int64_t interval = std::max<int64_t>(options_.interval_ms, 10);
  const int64_t cap = std::max(interval, kMaxNoAnswerDelayMs);
  int64_t delay = interval;
  for (int i = 1; i < failures && delay < cap; ++i) delay *= 2;
  return std::min(delay, cap);
}

void PdProber::Reschedule(const ClusterKey& key, Cluster& c, const PdFacts& facts,
                          const Probe& probe, int64_t now) {
  const bool full = probe.sequence.kind() == PdProbeKind::kFull;
  const bool was_idle = Idle(c);
  c.failures = probe.sequence.no_answer() ? c.failures + 1 : 0;
  c.healthy = full ? PdFactsHealthy(facts) : c.healthy && facts.success;
  int64_t due = 0;
  if (!full && !c.healthy) {
    c.full_next = true;  // the check found something: the full probe at once
    due = now;
  } else if (Idle(c)) {
    c.full_next = false;
    due = c.last_start_ms + options_.idle_interval_ms;
  } else {
    c.full_next = true;
    due = c.last_start_ms + (c.failures > 0 ? NoAnswerDelay(c.failures) : options_.interval_ms);
  }
  if (c.urgent) {  // a signal came while the probe ran
    c.full_next = true;
    const int64_t spacing = c.failures > 0 ? options_.interval_ms : kMinTriggerSpacingMs;
    due = std::min(due, c.last_start_ms + spacing);
  }
  Schedule(key, c, std::max(due, now));
  pool_dirty_ = pool_dirty_ || was_idle != Idle(c);
}

void PdProber::UpdatePool(AsyncHttp& http) {
  if (!pool_dirty_) return;
  pool_dirty_ = false;
  size_t fast = 0;
  for (const auto& [key, c] : clusters_) fast += c.target.via == nullptr && KeepsConnection(c);
  const size_t size = ConnectionCacheSize(fast, slots());
  if (size == pool_size_) return;
  pool_size_ = size;
  http.SetMaxConnections(size);
}

// A refusal of the user's credentials (401, 403 on services/proxy) says nothing about PD: its
// state is not known from here. One log line names the first namespace refused and the RBAC to
// grant; later namespaces are logged at debug level.
void PdProber::NoteRefusal(const Probe& probe, PdFacts* facts) {
  const ApiServerStatus& status = *probe.refusal;
  if (!status.forbidden()) return;
  const std::string& ns = probe.cluster.namespace_;
  facts->not_reachable_from_here = "the API server refused the PD service proxy (HTTP " +
                                   std::to_string(status.code) +
                                   "): grant get on services/proxy in namespace " + ns;
  if (!refused_namespaces_.insert(ns).second) return;
  const bool first = refused_namespaces_.size() == 1;
  Log(first ? LogLevel::kWarn : LogLevel::kDebug,
      "PD is not reachable from here: the API server refuses its service proxy",
      {{"namespace", ns},
       {"cluster", probe.cluster.name},
       {"status", std::to_string(status.code)},
       {"message", status.message},
       {"grant", ServiceProxyGrant(ns)}});
}

}  // namespace podwait
