#pragma once

// Probes the PD API of every target (one per TiDB cluster), each cluster on its own clock, with at
// most PdProberOptions::concurrency probes at once (docs/DESIGN.md §3, "PD HTTP API").
//
// Design: one thread drives every probe's requests through one AsyncHttp (libcurl multi): no
// thread per probe. Each cluster has its own next-due time, so a PD that hangs delays only itself:
// - *Fast cadence* (`interval_ms`): a full probe (probe.h) of a cluster a pod of which waits, or
//   whose last answer was not healthy (PdFactsHealthy), or that a signal asked about.
// - *Slow cadence* (`idle_interval_ms`): a cluster none of whose pods waits and whose last full
//   answer was healthy gets one /health request; an answer that is not healthy brings the full
//   probe at once and the fast cadence.
// - *Signals* (Signal(), from the evaluation side): a cluster whose pod starts waiting, or whose
//   TidbCluster/v2 status or Ready PD pods change, is probed in full at once (at most once a
//   second; a PD that does not answer, at most once an interval).
// - *No answer*: a cluster whose probe got no HTTP answer at all (timeout, refused, TLS) is asked
//   again after `interval_ms`, doubling to one minute (or the interval when longer), and such
//   clusters hold at most half of the slots, answering clusters going first: 900 hung PDs out of
//   1,000 leave the other 100 on their interval.
// - *Connections*: the multi handle keeps a connection (and TLS session) for each fast-probed
//   cluster, up to kMaxPdConnections and half the descriptor limit; a slow-cadence /health over
//   plain HTTP closes its connection after the answer (one over TLS keeps it: a new TLS
//   connection costs more CPU than keeping one costs memory).
// - *Through the API server* (PdTarget::via): every request takes a token of the API server's
//   request budget (only one at hand: a probe waits while the other API calls use the budget) and
//   carries the user's credentials; the API server's own refusals (a Kubernetes Status: 403 on
//   services/proxy, 404, 503) are told apart from PD's answers (via.h).
// Every request is bounded by `timeout_ms`, and a probe stops at the first transport failure.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/model/pd_facts.h"
#include "exporter/model/types.h"
#include "exporter/net/async_http.h"
#include "exporter/net/environment.h"
#include "exporter/net/http_client.h"
#include "exporter/pd/client.h"
#include "exporter/pd/probe.h"
#include "exporter/pd/via.h"

namespace podwait {

// One cluster's PD, as the prober reaches it.
struct PdTarget {
  ClusterKey cluster;
  std::string base_url;  // e.g. http://basic-pd.default:2379 (no trailing slash)
  TlsOptions tls;
  // Set: base_url is PD's Service through the API server's service proxy (ServiceProxyBaseUrl),
  // and every request goes through this route (`tls` is then unused). Outlives the prober.
  PdApiServerRoute* via = nullptr;
};

struct PdProberOptions {
  int64_t interval_ms = 15000;  // the fast cadence: a full probe
  // The slow cadence of a healthy cluster none of whose pods waits: one /health this often. 0 (or
  // not above interval_ms): every cluster is probed in full every interval_ms.
  int64_t idle_interval_ms = 0;
  int64_t timeout_ms = 3000;  // per request
  int concurrency = 8;        // probes in flight at once
};

// What the evaluation side knows of one cluster (PdProber::Signal).
struct PdClusterSignal {
  // A pod of the cluster waits in a stage PD's answer may decide (scheduled, not ready).
  bool waiting = false;
  // A stamp of what else may tell of PD (the TidbCluster's and v2 objects' status, the Ready PD
  // pods): a change brings a full probe at once. Unset: not known (the last one stands).
  std::optional<uint64_t> status;
};

// Connections kept to PDs at most (each TLS one holds ~57 KB in libcurl): beyond as many
// fast-probed clusters, the longest unused connection closes first.
inline constexpr size_t kMaxPdConnections = 1024;

class PdProber {
 public:
  // The targets to probe (called every interval and when a signal names an unknown cluster, from
  // the prober's thread).
  using TargetLister = std::function<std::vector<PdTarget>()>;
  // Receives each full probe's result (called from the prober's thread).
  using ResultSink = std::function<void(const ClusterKey&, PdFacts)>;
  // Called after the sink received a result a signal asked for (a pod started waiting, a status
  // changed): the evaluation may want to run at once rather than at its next tick.
  using UrgentResult = std::function<void()>;

  // `observer` (may be null) receives per-request durations/errors and round times; it and the
  // callbacks must outlive the prober. The callbacks run on the prober's thread. The
  // environment's clock (its monotonic time schedules the probes) and AsyncHttp factory are used.
  PdProber(PdProberOptions options, const Environment& env, PdProbeObserver* observer,
           TargetLister lister, ResultSink sink, UrgentResult urgent = {});
  ~PdProber();
  PdProber(const PdProber&) = delete;
  PdProber& operator=(const PdProber&) = delete;

  void Start();
  // Returns within about a second: requests in flight are cancelled.
  void Stop();

  // Thread-safe; cheap (the signals are handed over and read by the prober's thread). Every
  // cluster's signal: a cluster missing from `signals` has no waiting pod and an unchanged status.
  // A cluster's first signal is its baseline: it sets the cadence and probes nothing at once.
  void Signal(std::map<ClusterKey, PdClusterSignal> signals);
  // Thread-safe; cheap: the targets are listed again now (at most once a second), not at the next
  // interval. For the evaluation side's first seconds, when it knows of clusters the prober may
  // not and has no signal to give yet (a first signal is a baseline).
  void ListAgain();

  // Rounds completed: a round ends when every cluster listed at its start has been probed (in
  // full or, at the slow cadence, its /health) since it began, or is gone.
  uint64_t rounds_completed() const { return rounds_completed_.load(); }
  // Duration of the last completed round in milliseconds (-1 before the first).
  int64_t last_round_ms() const { return last_round_ms_.load(); }
  // Probes begun, full and /health-only.
  uint64_t probes_started() const { return probes_started_.load(); }

 private:
  // One cluster's schedule (the prober's thread only).
  struct Cluster {
    uint64_t id = 0;  // tells a cluster listed again apart from the one a late answer was for
    PdTarget target;
    int64_t due_ms = 0;
    int64_t last_start_ms = -1;
    bool in_flight = false;
    bool full_next = true;
    bool urgent = false;    // a signal asked for a full probe
    bool waiting = false;   // from the last signal
    bool signaled = false;  // a signal was taken for it: the next ones are changes
    std::optional<uint64_t> status;
    bool healthy = false;  // the last full answer was healthy and no /health since said otherwise
    int failures = 0;      // probes in a row without an answer
    int full_probes = 0;   // for /config/replicate every kConfigEveryRounds
    std::optional<int64_t> max_replicas;
  };
  // One probe in flight.
  struct Probe {
    Probe(ClusterKey key, uint64_t id, PdProbeSequence seq)
        : cluster(std::move(key)), cluster_id(id), sequence(std::move(seq)) {}
    ClusterKey cluster;
    uint64_t cluster_id = 0;
    PdApiServerRoute* via = nullptr;
    PdClientOptions client;
    PdProbeSequence sequence;
    int64_t started_ms = 0;
    bool urgent = false;
    bool failing = false;  // counted in failing_in_flight_
    bool keep_connection = true;
    std::optional<ApiServerStatus> refusal;  // the API server's own answer, not PD's
  };
  using Queue = std::set<std::pair<int64_t, ClusterKey>>;

  void Loop();
  void TakeSignals(int64_t now);
  void Trigger(const ClusterKey& key, Cluster& c, int64_t now);
  // Moves a cluster that is not in flight to `due` when that is sooner.
  void Bring(const ClusterKey& key, Cluster& c, int64_t due);
  void Relist(AsyncHttp& http, int64_t now);
  void Launch(AsyncHttp& http, int64_t now);
  void StartProbe(AsyncHttp& http, const ClusterKey& key, int64_t now);
  void Ask(AsyncHttp& http, std::shared_ptr<Probe> probe);
  void RetryParked(AsyncHttp& http);
  void OnAnswer(AsyncHttp& http, const std::shared_ptr<Probe>& probe, PdEndpoint endpoint,
                HttpResponse response);
  void Finish(const std::shared_ptr<Probe>& probe);
  void Reschedule(const ClusterKey& key, Cluster& c, const PdFacts& facts, const Probe& probe,
                  int64_t now);
  void Schedule(const ClusterKey& key, Cluster& c, int64_t due);
  void Unschedule(const ClusterKey& key, const Cluster& c);
  void UpdatePool(AsyncHttp& http);
  void StartRoundIfDone(int64_t now);
  void CountTowardsRound(const ClusterKey& key, int64_t started_ms, int64_t now);
  void NoteRefusal(const Probe& probe, PdFacts* facts);
  bool Idle(const Cluster& c) const;
  bool KeepsConnection(const Cluster& c) const;
  int64_t NoAnswerDelay(int failures) const;
  int64_t WaitMs(int64_t now) const;
  size_t slots() const;

  const PdProberOptions options_;
  const Clock& clock_;
  PdProbeObserver* observer_;
  TargetLister lister_;
  ResultSink sink_;
  UrgentResult urgent_;
  const AsyncHttpFactory factory_;

  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> rounds_completed_{0};
  std::atomic<int64_t> last_round_ms_{-1};
  std::atomic<uint64_t> probes_started_{0};

  std::mutex mu_;              // guards the four below
  AsyncHttp* http_ = nullptr;  // the thread's, while it runs
  std::map<ClusterKey, PdClusterSignal> inbox_;
  bool has_inbox_ = false;
  bool list_again_ = false;

  // Everything below belongs to the prober's thread.
  std::map<ClusterKey, Cluster> clusters_;
  uint64_t next_cluster_id_ = 1;
  Queue answering_;  // (due, cluster) of clusters not in flight whose PD answered last
  Queue failing_;    // the same for clusters whose last probe got no answer
  std::vector<std::shared_ptr<Probe>> parked_;  // waiting for a token of the API server's budget
  size_t in_flight_ = 0;
  size_t failing_in_flight_ = 0;
  int64_t next_list_ms_ = 0;
  int64_t last_list_ms_ = -1;
  size_t pool_size_ = 0;    // what SetMaxConnections was last given
  bool pool_dirty_ = true;  // a cluster's cadence changed since
  std::set<ClusterKey> round_pending_;
  int64_t round_started_ms_ = 0;
  std::set<std::string> refused_namespaces_;  // where the service proxy was forbidden (logged)

  std::thread thread_;
  bool started_ = false;
};

}  // namespace podwait
