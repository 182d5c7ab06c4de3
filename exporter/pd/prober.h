#pragma once

// Probes the PD API of every target (one per TiDB cluster), every PdProberOptions::interval_ms,
// with at most PdProberOptions::concurrency clusters at once.
//
// Design: one thread starts a round per interval and drives every probe's requests through one
// AsyncHttp (libcurl multi): no thread per probe, and one connection cache for the fleet, sized to
// the number of targets, so each PD's connection (and TLS session) is reused from one round to the
// next instead of reopened per request. A probe is a PdProbeSequence: one request at a time, the
// next chosen by the last answer. Every request is bounded by PdProberOptions::timeout_ms and a
// probe stops at the first transport failure, so a PD that hangs holds one of the `concurrency`
// slots for at most one timeout and never stalls the other clusters. A cluster whose probe from the
// previous round is still queued or running is not queued twice.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/model/pd_facts.h"
#include "exporter/model/types.h"
#include "exporter/net/async_http.h"
#include "exporter/net/environment.h"
#include "exporter/net/http_client.h"
#include "exporter/pd/client.h"

namespace podwait {

// Probes one cluster's PD once: /health, /leader (/members when /leader fails), /cluster/status,
// /stores, /config/replicate. Stops at the first transport failure (the API cannot be reached).
// `success` ignores /config/replicate, which only informs; without `with_config` it is not asked
// (the prober asks it once every kConfigEveryRounds probes of a cluster: it is configuration, not
// state, and one request in five).
PdFacts ProbePd(PdClient& client, Timestamp now, bool with_config = true);
inline constexpr int kConfigEveryRounds = 20;

// ProbePd's steps, one request at a time, for callers that perform the requests themselves (the
// prober, many probes on one thread): ask next(), perform it, hand the response to OnResponse().
class PdProbeSequence {
 public:
  PdProbeSequence(Timestamp now, bool with_config);
  // The endpoint to ask next; nullopt once the probe is over.
  std::optional<PdEndpoint> next() const { return next_; }
  // Takes the response to next() and chooses the next step. Returns the request's error kind
  // (kNone on success), for the observer.
  PdErrorKind OnResponse(const HttpResponse& response);
  // The facts gathered (call once next() is nullopt).
  PdFacts Finish();

 private:
  PdErrorKind OnHealth(const HttpResponse& response);
  PdErrorKind OnLeader(const HttpResponse& response);
  PdErrorKind OnMembers(const HttpResponse& response);
  PdErrorKind OnClusterStatus(const HttpResponse& response);
  PdErrorKind OnStores(const HttpResponse& response);
  // After /stores: /config/replicate when asked for, else the end.
  std::optional<PdEndpoint> AfterStores() const;

  PdFacts facts_;
  bool with_config_;
  bool health_ok_ = false;
  std::optional<PdEndpoint> next_ = PdEndpoint::kHealth;
};

// One cluster's PD, as the prober reaches it.
struct PdTarget {
  ClusterKey cluster;
  std::string base_url;  // e.g. http://basic-pd.default:2379 (no trailing slash)
  TlsOptions tls;
};

struct PdProberOptions {
  int64_t interval_ms = 15000;
  int64_t timeout_ms = 3000;  // per request
  int concurrency = 8;        // clusters probed at once
};

class PdProber {
 public:
  // The targets to probe (called once per round, from the scheduler thread).
  using TargetLister = std::function<std::vector<PdTarget>()>;
  // Receives each probe's result (called from the prober's thread).
  using ResultSink = std::function<void(const ClusterKey&, PdFacts)>;

  // `observer` (may be null) receives per-request durations/errors and round times; it and the
  // callbacks must outlive the prober. Both callbacks run on the prober's thread.
  // The environment's clock and AsyncHttp factory are used.
  PdProber(PdProberOptions options, const Environment& env, PdProbeObserver* observer,
           TargetLister lister, ResultSink sink);
  ~PdProber();
  PdProber(const PdProber&) = delete;
  PdProber& operator=(const PdProber&) = delete;

  void Start();
  // Returns within about a second: requests in flight are cancelled.
  void Stop();

  // Rounds that have completed (every cluster of the round probed).
  uint64_t rounds_completed() const { return rounds_completed_.load(); }
  // Duration of the last completed round in milliseconds (-1 before the first).
  int64_t last_round_ms() const { return last_round_ms_.load(); }

 private:
  struct Item {
    PdTarget target;
    uint64_t round = 0;
  };
  // One probe in flight.
  struct Probe {
    Item item;
    PdClientOptions client;
    PdProbeSequence sequence;
  };

  void Loop();
  void StartRound(AsyncHttp& http);
  void LaunchQueued(AsyncHttp& http);
  void Ask(AsyncHttp& http, std::shared_ptr<Probe> probe);
  void OnAnswer(AsyncHttp& http, const std::shared_ptr<Probe>& probe, PdEndpoint endpoint,
                const HttpResponse& response);
  void Finish(const std::shared_ptr<Probe>& probe);
  void FinishItem(uint64_t round);

  const PdProberOptions options_;
  const Clock& clock_;
  PdProbeObserver* observer_;
  TargetLister lister_;
  ResultSink sink_;
  const AsyncHttpFactory factory_;

  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> rounds_completed_{0};
  std::atomic<int64_t> last_round_ms_{-1};

  // Everything below belongs to the prober's thread (no lock: nothing else touches it).
  std::mutex mu_;              // guards the wake-up of Stop() against the thread's start
  AsyncHttp* http_ = nullptr;  // the thread's, while it runs (under mu_)
  std::deque<Item> queue_;
  std::set<ClusterKey> pending_;  // queued or being probed
  size_t in_flight_ = 0;          // probes started and not finished
  // Per cluster: probes since /config/replicate was last asked, and what it said.
  struct ConfigState {
    int probes = 0;
    std::optional<int64_t> max_replicas;
  };
  std::map<ClusterKey, ConfigState> config_;
  struct RoundState {
    int64_t started_ms = 0;
    size_t outstanding = 0;
  };
  std::map<uint64_t, RoundState> rounds_;
  uint64_t next_round_ = 1;

  std::thread thread_;
  bool started_ = false;
};

}  // namespace podwait
