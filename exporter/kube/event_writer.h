#pragma once

// Writes Events about pods (events.k8s.io/v1) the way client-go's tools/events does, without ever
// being the reason an API server is flooded or the caller waits (docs/DESIGN.md §8, "Events"):
//  - An Event is created once per (pod, series key); the same key again within the series window
//    is the same Event with its `series` (`count`, `lastObservedTime`) patched, not a new one.
//  - Every write of a pod takes a token of that pod's bucket (a few a minute whatever the pod
//    does); a write without one is dropped and counted, its occurrence still counted in the
//    series, which the next write carries.
//  - Writes wait in a bounded queue (Record never blocks; overflow is dropped and counted), then
//    for a token of the writer's global bucket and of the API server's request budget
//    (KubeContext::budget), and after any failed write (transport error, 429, 5xx, 409, 422, ...)
//    for one backoff step.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "exporter/common/clock.h"
#include "exporter/kube/reflector.h"
#include "exporter/kube/request_budget.h"
#include "exporter/kube/watch_protocol.h"

namespace podwait {

// What to say about one pod.
struct PodEventNote {
  std::string namespace_;
  std::string pod;
  std::string pod_uid;
  std::string type;        // "Normal" or "Warning"
  std::string reason;      // CamelCase, from a fixed set
  std::string note;        // for humans; cut to kMaxEventNoteBytes
  std::string series_key;  // equal keys of one pod are one Event (a series), e.g. class + reason
};

// events.k8s.io/v1 refuses a longer note (validation's NoteLengthLimit).
inline constexpr size_t kMaxEventNoteBytes = 1024;
// An Event's name is a DNS subdomain (ValidateObjectMeta): at most 253 characters.
inline constexpr size_t kMaxEventNameBytes = 253;

// The name of an Event about pod `pod`: client-go's "<pod>.<unique in hex>" (the time in
// nanoseconds), for a pod name too long for that (over 236 characters with a 16-digit suffix)
// the name cut and "-<16 hex digits of its FNV-1a hash>" put before the suffix, so it stays
// within kMaxEventNameBytes, a valid DNS subdomain, and distinct for pods that share the cut part.
std::string EventName(std::string_view pod, uint64_t unique);

struct EventWriterOptions {
  std::string reporting_controller = "podwait.pingcap.com/exporter";
  std::string reporting_instance;  // the writer's pod name; required
  std::string action = "Classified";
  // Per pod: `pod_burst` writes at once, then one every `pod_refill_ms` (2 + 2 in the first
  // minute, 2 a minute after that).
  double pod_burst = 2;
  int64_t pod_refill_ms = 30'000;
  // All pods together: `global_burst` writes, then `global_qps` a second; writes wait for it.
  double global_burst = 20;
  double global_qps = 1;
  size_t queue_size = 256;
  // An Event whose series was last observed longer ago is finished: the key again is a new Event
  // (client-go's tools/events: 6 minutes).
  int64_t series_window_ms = 6 * 60'000;
  // Pods remembered for deduplication and rate limits; past it, the least recently written go.
  size_t max_pods = 20'000;
  int64_t request_timeout_ms = 10'000;
  int64_t backoff_initial_ms = 800;
  int64_t backoff_max_ms = 30'000;
};

enum class EventWriteResult { kCreated, kSeriesUpdated, kFailed };
enum class EventDropReason { kPodRateLimited, kQueueFull };
const char* EventWriteResultName(EventWriteResult r);  // created, series_updated, failed
const char* EventDropReasonName(EventDropReason r);    // pod_rate_limited, queue_full

// One write the planner decided on: a new Event (POST) or a series update (PATCH).
struct EventWrite {
  bool create = true;
  std::string namespace_;
  std::string name;        // the Event's name
  std::string event_json;  // the whole Event (POST, and the re-create after a PATCH's 404)
  std::string patch_json;  // the strategic merge patch of a series update
};

// The pure part: deduplication, series and the per-pod buckets. Not thread-safe.
class EventPlanner {
 public:
  explicit EventPlanner(EventWriterOptions options);

  // What to write for `note` observed at wall-clock `now` and monotonic `mono_ms`; nullopt when
  // the pod's bucket is empty (*dropped says so).
  std::optional<EventWrite> Plan(const PodEventNote& note, Timestamp now, int64_t mono_ms,
                                 EventDropReason* dropped);
  size_t pods() const { return pods_.size(); }

 private:
  struct Series {
    std::string name;
    int64_t count = 0;             // occurrences (1: no series yet)
    Timestamp event_time = 0;      // the first occurrence
    int64_t last_observed_ms = 0;  // monotonic
  };
  struct Pod {
    double tokens = 0;
    int64_t last_refill_ms = 0;
    int64_t last_used_ms = 0;
    std::map<std::string, Series> series;  // uid + series key -> Series
  };
  bool TakeToken(Pod& pod, int64_t mono_ms) const;
  void Forget(int64_t mono_ms);
  std::string EventJson(const PodEventNote& note, const Series& s, Timestamp now) const;
  // The strategic-merge patch of a series' next occurrence: its series and the latest note.
  static std::string PatchJson(const PodEventNote& note, const Series& s, Timestamp now);

  const EventWriterOptions opts_;
  std::map<std::string, Pod> pods_;  // namespace/pod
  int64_t last_forget_ms_ = 0;
  uint64_t names_ = 0;  // makes names unique within one millisecond
};

// Receives what happened to each Event (the exporter counts them in its metrics). Called from
// Record's caller (drops) and the writer's thread (results).
class EventWriterObserver {
 public:
  virtual ~EventWriterObserver() = default;
  virtual void OnWritten(EventWriteResult result) = 0;
  virtual void OnDropped(EventDropReason reason) = 0;
};

// The writer: Record() plans and queues; one thread sends. Stop() returns within about a second
// (an in-flight request is cancelled; what is still queued is not written).
class EventWriter {
 public:
  // `ctx` (endpoint, tokens, clock, HTTP clients, request budget, server log) must outlive the
  // writer; `observer` may be null.
  EventWriter(const KubeContext& ctx, EventWriterOptions options, EventWriterObserver* observer);
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  void Start();
  void Stop();
  // Never blocks on the API server. Thread-safe.
  void Record(const PodEventNote& note);
  // Waits until the queue is empty and nothing is in flight, at most timeout_ms; true if so.
  bool WaitIdle(int64_t timeout_ms);

 private:
  void Run();
  // Sends one write and reports its result; a failure to reach the server backs off.
  void Send(const EventWrite& write);
  HttpResponse Do(const std::string& method, const std::string& url, const std::string& body,
                  const std::string& content_type);
  void Sleep(int64_t ms);
  void OnHttpError(const std::string& what, const HttpResponse& response);

  const KubeContext& ctx_;
  const EventWriterOptions opts_;
  EventWriterObserver* const observer_;
  RequestBudget global_;
  Backoff backoff_;
  std::unique_ptr<HttpClient> http_;  // writer thread only

  std::mutex mu_;
  std::condition_variable cv_;
  EventPlanner planner_;          // guarded by mu_
  std::deque<EventWrite> queue_;  // guarded by mu_
  bool busy_ = false;             // a write is in flight; guarded by mu_
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int64_t next_error_log_ms_ = 0;  // writer thread only
  uint64_t errors_not_logged_ = 0;
};

}  // namespace podwait
