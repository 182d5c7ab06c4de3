#include "exporter/pd/prober.h"

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
  PdFacts f;
  f.probed_at = now;

  auto health = client.Health();
  NoteError(health, &f);
  if (health.ok()) {
    f.health_known = true;
    for (const auto& m : *health.value) (m.health ? f.members_healthy : f.members_unhealthy)++;
  }
  if (health.transport_failed()) return f;

  auto leader = client.Leader();
  NoteError(leader, &f);
  if (leader.ok()) {
    f.leader_known = true;
    f.has_leader = leader.value->has_value();
    if (f.has_leader) f.leader_name = (*leader.value)->name;
  } else if (leader.transport_failed()) {
    return f;
  } else {
    auto members = client.Members();
    NoteError(members, &f);
    if (members.ok()) {
      f.leader_known = true;
      f.has_leader = members.value->leader.has_value();
      if (f.has_leader) f.leader_name = members.value->leader->name;
    } else if (members.transport_failed()) {
      return f;
    }
  }

  auto status = client.ClusterStatus();
  NoteError(status, &f);
  if (status.ok()) {
    f.cluster_status_known = true;
    f.is_initialized = status.value->is_initialized;
  } else if (status.transport_failed()) {
    return f;
  }

  auto stores = client.Stores();
  NoteError(stores, &f);
  if (stores.ok()) {
    f.stores_known = true;
    for (const auto& s : stores.value->stores) {
      if (s.IsTiFlash()) {
        ++f.tiflash_stores;
      } else {
        ++f.tikv_stores[std::string(StoreStateLabel(s.state_name))];
      }
    }
  } else if (stores.not_bootstrapped) {
    f.stores_known = true;
    f.not_bootstrapped = true;
  } else if (stores.transport_failed()) {
    return f;
  }

  if (with_config) {
    auto replicate = client.ReplicateConfig();
    if (replicate.ok()) f.max_replicas = replicate.value->max_replicas;
  }

  f.success = health.ok() && health.error_kind == PdErrorKind::kNone && f.leader_known &&
              f.cluster_status_known && f.stores_known;
  return f;
}

PdProber::PdProber(PdProberOptions options, const Environment& env, PdProbeObserver* observer,
                   TargetLister lister, ResultSink sink)
    : options_(options),
      clock_(*env.clock),
      observer_(observer),
      lister_(std::move(lister)),
      sink_(std::move(sink)),
      factory_(env.http) {}

PdProber::~PdProber() { Stop(); }

void PdProber::Start() {
  if (started_) return;
  started_ = true;
  stop_ = false;
  const int workers = std::max(1, options_.concurrency);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  scheduler_ = std::thread([this] { SchedulerLoop(); });
  LogInfo("PD prober started", {{"interval_ms", std::to_string(options_.interval_ms)},
                                {"timeout_ms", std::to_string(options_.timeout_ms)},
                                {"concurrency", std::to_string(workers)}});
}

void PdProber::Stop() {
  if (!started_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  sched_cv_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  queue_.clear();
  pending_.clear();
  rounds_.clear();
  started_ = false;
}

void PdProber::SchedulerLoop() {
  const auto interval = std::chrono::milliseconds(std::max<int64_t>(options_.interval_ms, 10));
  auto next = std::chrono::steady_clock::now();
  while (!stop_) {
    StartRound();
    next += interval;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a late tick never causes a burst of catch-up rounds
    std::unique_lock<std::mutex> lock(mu_);
    sched_cv_.wait_until(lock, next, [this] { return stop_.load(); });
  }
}

void PdProber::StartRound() {
  std::vector<PdTarget> targets = lister_();
  std::lock_guard<std::mutex> lock(mu_);
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
  if (state.outstanding == 0) {
    rounds_.erase(round);
    return;
  }
  work_cv_.notify_all();
}

void PdProber::FinishItem(uint64_t round) {
  int64_t finished_round_ms = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = rounds_.find(round);
    if (it == rounds_.end()) return;
    if (--it->second.outstanding == 0) {
      finished_round_ms = clock_.MonotonicMs() - it->second.started_ms;
      rounds_.erase(it);
    }
  }
  if (finished_round_ms >= 0) {
    last_round_ms_ = finished_round_ms;
    ++rounds_completed_;
    if (observer_ != nullptr) observer_->OnRound(static_cast<double>(finished_round_ms) / 1000.0);
  }
}

void PdProber::WorkerLoop() {
  std::unique_ptr<HttpClient> http = factory_();
  while (true) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    PdClientOptions options;
    options.base_url = item.target.base_url;
    options.tls = item.target.tls;
    options.timeout_ms = options_.timeout_ms;
    options.cancel = &stop_;
    PdClient client(*http, std::move(options), observer_);
    bool with_config = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ConfigState& c = config_[item.target.cluster];
      with_config = c.probes++ % kConfigEveryRounds == 0 || !c.max_replicas;
    }
    PdFacts facts = ProbePd(client, clock_.Now(), with_config);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ConfigState& c = config_[item.target.cluster];
      if (facts.max_replicas) {
        c.max_replicas = facts.max_replicas;
      } else {
        facts.max_replicas = c.max_replicas;  // the last answer stands until the next one
      }
    }
    if (stop_) return;
    if (!facts.success) {
      LogDebug("PD probe failed", {{"namespace", item.target.cluster.namespace_},
                                   {"cluster", item.target.cluster.name},
                                   {"error", facts.error}});
    }
    sink_(item.target.cluster, std::move(facts));
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_.erase(item.target.cluster);
    }
    FinishItem(item.round);
  }
}

}  // namespace podwait
