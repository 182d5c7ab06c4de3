#pragma once

// One probe of one cluster's PD: the requests it makes, one at a time, the next chosen by the last
// answer, and what they add up to (PdFacts). No scheduling and no I/O of its own: ProbePd drives
// it with a blocking client, the prober (prober.h) with many probes on one thread.

#include <optional>

#include "exporter/common/clock.h"
#include "exporter/model/pd_facts.h"
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

// What a probe asks.
enum class PdProbeKind {
  kFull,        // every endpoint above
  kHealthOnly,  // /health alone: the cheap check of a healthy cluster nobody waits on
};

// ProbePd's steps, one request at a time, for callers that perform the requests themselves (the
// prober, many probes on one thread): ask next(), perform it, hand the response to OnResponse().
class PdProbeSequence {
 public:
  PdProbeSequence(Timestamp now, bool with_config, PdProbeKind kind = PdProbeKind::kFull);
  // The endpoint to ask next; nullopt once the probe is over.
  std::optional<PdEndpoint> next() const { return next_; }
  // Takes the response to next() and chooses the next step. Returns the request's error kind
  // (kNone on success), for the observer.
  PdErrorKind OnResponse(const HttpResponse& response);
  // The facts gathered (call once next() is nullopt). A health-only probe knows /health alone:
  // its `success` says that /health answered 200 with every member healthy.
  PdFacts Finish();
  // No HTTP answer came at all (the first request failed in transport): the PD does not answer.
  bool no_answer() const { return no_answer_; }
  PdProbeKind kind() const { return kind_; }

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
  PdProbeKind kind_;
  bool health_ok_ = false;
  bool no_answer_ = false;
  std::optional<PdEndpoint> next_ = PdEndpoint::kHealth;
};

// A full probe's facts say PD and TiKV are fine: every endpoint answered, a leader, every member
// healthy, bootstrapped and initialized (or a PD too old to say), at least one TiKV store Up and
// none Disconnected, Down or Offline. The prober probes such a cluster at the slow cadence while
// none of its pods waits.
bool PdFactsHealthy(const PdFacts& facts);

}  // namespace podwait
