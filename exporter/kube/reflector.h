#pragma once

// A reflector keeps a local copy of one Kubernetes resource collection up to date: its state from
// a watch-list (KEP-3157: one watch with sendInitialEvents that ends its initial events with a
// bookmark) or, where the API server does not serve that, a paginated list; then a watch from that
// resourceVersion, resumed after every disconnect and replaced by a fresh sync when the server
// says the resourceVersion is too old (410 Gone / Expired). Every reflector runs on the event loop
// of its context (kube_loop.h): no thread of its own.

#include <rapidjson/document.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/json.h"
#include "exporter/common/sync_status.h"
#include "exporter/kube/discovery.h"
#include "exporter/kube/endpoint.h"
#include "exporter/kube/kube_loop.h"
#include "exporter/kube/list_stream.h"
#include "exporter/kube/request_budget.h"
#include "exporter/kube/token_source.h"
#include "exporter/kube/watch_protocol.h"
#include "exporter/net/environment.h"
#include "exporter/net/http_client.h"

namespace podwait {

// What a reflector feeds. Every call comes from the reflector's event loop thread, one at a time,
// so an implementation needs locking only for what it shares with other threads (its store).
//
// Contract (it makes the handler's state equal to the server's, with no lost or ghost objects):
//  - A list (paged, or the initial events of a watch-list) is OnListBegin(), then OnListItem()
//    for every object of the collection, then
//    OnListEnd(). The items between Begin and End are the COMPLETE collection: on OnListEnd the
//    handler must replace its whole state with exactly those items (objects it held that were not
//    listed are gone on the server and must be dropped). A list that fails midway ends with
//    OnListAbort() instead: the handler drops what it staged and keeps its previous state (the
//    reflector lists again later). The first list after Start() and every relist (after 410 Gone)
//    follow the same sequence.
//  - Between lists, OnEvent() delivers ADDED, MODIFIED and DELETED in server order. BOOKMARK and
//    ERROR events are handled by the reflector and never reach the handler.
//  - A handler returns false from OnListItem/OnEvent for an object it cannot parse; the reflector
//    counts it in podwait_parse_errors_total{resource} and carries on.
//  - `object` is only valid during the call: copy what you keep.
//  - OnNotFound(): the list answered 404 (e.g. a CRD that is not installed). Return true to stop
//    the reflector for good (it then unregisters from SyncStatus so /readyz does not wait for
//    it), false to keep retrying with backoff.
//  - OnForbidden(): the list answered 403 (the service account may not list it). Return true to
//    stop the reflector for good the same way (an optional input whose RBAC was not granted),
//    false to treat it as any failed list.
class ReflectorHandler {
 public:
  virtual ~ReflectorHandler() = default;
  virtual void OnListBegin() = 0;
  virtual bool OnListItem(const rapidjson::Value& object) = 0;
  virtual void OnListEnd(const std::string& resource_version) = 0;
  virtual void OnListAbort() = 0;
  // type is kAdded, kModified or kDeleted.
  virtual bool OnEvent(WatchEventType type, const rapidjson::Value& object) = 0;
  virtual bool OnNotFound() { return false; }
  virtual bool OnForbidden() { return false; }
  // Objects held, for podwait_objects{resource}; nullopt to leave the gauge alone.
  virtual std::optional<size_t> ObjectCount() const { return std::nullopt; }
};

// Receives one reflector's health as it changes: the exporter turns it into its self-metrics
// (podwait_watch_*, podwait_objects, podwait_parse_errors_total; the adapter is in app/). Called
// from the reflector's event loop thread only.
class ReflectorObserver {
 public:
  virtual ~ReflectorObserver() = default;
  // A watch event arrived (BOOKMARK and ERROR included) at wall-clock time `now`.
  virtual void OnWatchEvent(WatchEventType type, Timestamp now) = 0;
  // The watch or list had to start again; `reason` is a short label (closed, gone, ...).
  virtual void OnRestart(const std::string& reason) = 0;
  // A full relist after 410 Gone.
  virtual void OnRelist() = 0;
  virtual void OnSynced(bool synced) = 0;
  virtual void OnObjects(size_t count) = 0;
  // An object or line that could not be parsed was skipped.
  virtual void OnParseError() = 0;
  // The API server does not serve the resource (404, its CRD is not installed) or forbids listing
  // it (403, for an optional input) and the handler disabled it: nothing will be synced, and that
  // is not a fault.
  virtual void OnDisabled() {}
};
// Makes the observer of one reflector, by its resource (pods, events, tidbclusters, ...).
using ReflectorObserverFactory =
    std::function<std::unique_ptr<ReflectorObserver>(const std::string& resource)>;

// Which collections of one API server answer a watch-list (sendInitialEvents), learned by the
// first reflector of each that tries and remembered for the others and for every later sync.
// Keyed by the collection's path without its namespace ("/api/v1/pods"). Thread-safe.
class WatchListSupport {
 public:
  enum class State : uint8_t { kUnknown, kSupported, kUnsupported };
  State Get(const std::string& key) const;
  // True when this call changed what was known (the caller logs it once).
  bool Set(const std::string& key, State state);

 private:
  mutable std::mutex mu_;
  std::map<std::string, State> states_;
};

// What every reflector of a process shares. The pointers must outlive the reflectors.
struct KubeContext {
  KubeEndpoint endpoint;
  TokenSource* tokens = nullptr;       // nullptr: no Authorization header
  Environment env;                     // clock and HTTP clients (env.async_http for the loop)
  ReflectorObserverFactory observers;  // empty: health is not reported
  SyncStatus* sync = nullptr;          // required
  // Shared by every reflector made from this context and its copies (one API server): the
  // client-side request budget (client-go's default is 5 QPS, burst 10; podwait lists pages of
  // many resources at start, so more) and the log of its connection failures.
  std::shared_ptr<RequestBudget> budget = std::make_shared<RequestBudget>(20, 100);
  std::shared_ptr<ApiServerLog> server_log = std::make_shared<ApiServerLog>();
  // The event loop every reflector of this context runs on (one thread, one multiplexed
  // transport); null: each reflector makes a loop of its own (tests of one reflector).
  std::shared_ptr<KubeLoop> loop;
  // What the API server serves (discovery, learned once at start); null: unknown, every
  // collection is asked for (and a 404 disables it).
  std::shared_ptr<ApiResources> served;
  std::shared_ptr<WatchListSupport> watch_list = std::make_shared<WatchListSupport>();
};

struct ReflectorOptions {
  std::string resource;  // metric label: pods, events, tidbclusters, configmaps
  std::string name;      // unique name for SyncStatus and logs ("pods/tidb-prod"); default resource
  std::string path;      // collection path, e.g. /api/v1/namespaces/x/pods
  std::string label_selector;
  std::string field_selector;
  // Sorted; when not empty, objects of other namespaces are dropped before the handler sees them
  // (one watch over all namespaces standing for many per-namespace ones).
  std::vector<std::string> only_namespaces;
  // Sync by watch-list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan,
  // allowWatchBookmarks=true, up to the bookmark annotated k8s.io/initial-events-end) unless the
  // API server refused it for this collection (a 400/422 or an ERROR to the parameters) or
  // ignored it (a bookmark, a change or a clean close before the end bookmark): then in pages,
  // and so for every later sync of the collection (WatchListSupport). A watch-list without a
  // line for watch_list_idle_ms is listed in pages too, but only that once and for that
  // reflector (a busy server is silent too). false: always in pages.
  bool watch_list = true;
  int64_t watch_list_idle_ms = 30'000;
  int64_t page_size = 500;
  Timestamp watch_timeout = 5 * kMinute;  // server-side timeoutSeconds
  // A watch that receives no byte for this long is a dead connection (the API server sends
  // bookmarks about once a minute). Also the client-side deadline of a list page is list_timeout.
  int64_t idle_timeout_s = 180;
  Timestamp list_timeout = kMinute;
  // Every restart of the list or the watch (a failure, a watch that ended without a real event
  // within short_watch_ms, a relist after 410 Gone, a bad continue token) waits one step of one
  // backoff: drawn from [d/2, d], d = backoff_initial_ms doubling up to backoff_max_ms, so
  // 0.8-1.6 s first and 15-30 s at the cap, like client-go's reflector (800 ms, factor 2,
  // jitter 1.0, 30 s). The steps start again from the first once backoff_reset_ms pass without
  // a restart (client-go's resetDuration).
  int64_t backoff_initial_ms = 1600;
  int64_t backoff_max_ms = 30'000;
  int64_t backoff_reset_ms = 2 * 60'000;
  // A watch that closes cleanly within this time without an ADDED, MODIFIED or DELETED event
  // failed (client-go: "very short watch"); one that lasts longer or brings events is resumed at
  // once. A watch counts as healthy (synced again) on a real event or any event after this time.
  int64_t short_watch_ms = 1000;
  // Failed restarts in a row after which the resource counts as out of sync for /readyz.
  int unready_after_failures = 3;
  // A list longer than this many pages, or whose continue token repeats, is an error.
  int64_t max_list_pages = 10'000;
  // Longer watch lines and list items (oversized objects) are skipped alone.
  size_t max_line_bytes = 16u << 20;
  // A list page is parsed item by item as it arrives (never held whole); one larger than this
  // fails the list (the deadline, list_timeout, bounds it too).
  size_t max_page_bytes = 256u << 20;
  // Subtrees of each object that the handler never reads: list items and watch events are parsed
  // without them (json::SkipPaths; paths from the object's root, e.g. "spec.containers").
  // managedFields (server-side apply bookkeeping, about a third of a pod) is read by no handler.
  std::vector<std::string> skip_fields = {"metadata.managedFields"};
  uint64_t seed = 0;  // backoff jitter; 0 picks a random seed
};

// One ReflectorOptions per namespace of `namespaces`, or one over all namespaces when it is
// empty: resource "pods" under "/api/v1" gives the path /api/v1/pods (name "pods") or
// /api/v1/namespaces/<ns>/pods (name "pods/<ns>"). Each is a copy of `base` (page size, watch
// timeout, ...). Selectors are the caller's to add. With more namespaces than
// `cluster_wide_above` (when not 0), one over all namespaces that keeps only `namespaces`
// (only_namespaces), for the price of a cluster-wide list and watch (RBAC) and of the other
// namespaces' objects on the wire.
std::vector<ReflectorOptions> ReflectorOptionsPerNamespace(
    const ReflectorOptions& base, const std::vector<std::string>& namespaces,
    const std::string& resource, std::string_view api_prefix, size_t cluster_wide_above = 0);
// The namespace of a per-namespace reflector ("pods/<ns>" -> "<ns>"), "" for all namespaces.
std::string ReflectorNamespace(const ReflectorOptions& options);

// Runs the sync and the watch of one collection on its context's event loop, as a state machine
// whose every step is a callback of that loop (a transfer's data or end, a timer). While it
// parses a list page, the next page is already being fetched. Start() and Stop() may be called
// from any thread but the loop's; Stop() returns once nothing of this reflector runs any more
// (in-flight requests cancelled). Not copyable.
class Reflector {
 public:
  // Registers options.name with ctx.sync (not ready until the first full list).
  Reflector(const KubeContext& ctx, ReflectorOptions options, ReflectorHandler& handler);
  ~Reflector();
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  void Start();
  void Stop();

  const ReflectorOptions& options() const { return opts_; }
  // Whether a full list has completed at least once.
  bool synced() const { return synced_once_.load(); }
  // The last resourceVersion seen (list, event or bookmark).
  std::string resource_version() const;
  // Full syncs done (the first one included; a watch-list's initial events count as one) and
  // watch requests started.
  uint64_t lists() const { return lists_.load(); }
  uint64_t watches() const { return watches_.load(); }
  // True once the reflector gave up because the collection does not exist (discovery, or
  // OnNotFound) or may not be listed (OnForbidden).
  bool disabled() const { return disabled_.load(); }
  // Why it gave up (kNone while it has not).
  enum class DisabledBy : uint8_t { kNone, kNotServed, kForbidden };
  DisabledBy disabled_by() const { return disabled_by_.load(); }

 private:
  enum class Outcome { kNotFound, kForbidden, kGone, kRetry, kClosed };
  // One list page in flight: its transfer, the token it asked with, and, for a page fetched ahead
  // of need, its bytes and answer until it becomes the page being read.
  struct Page {
    AsyncHttp::TransferId id = 0;
    std::string token;
    bool current = false;
    bool finished = false;
    bool too_large = false;
    size_t bytes = 0;
    std::string buffered;
    HttpResponse response;
    ListSplitter splitter;
    std::string rv;
    std::string next;  // the continue token of its metadata
    explicit Page(size_t max_item) : splitter(max_item) {}
  };

  // The steps, all on the loop thread.
  void Begin();
  void Attempt();
  void Next(Outcome outcome);
  // Sends through the request budget: `send` runs now or after the wait (a reflector's first
  // request is its own token: RequestBudget::TakeGranted).
  void WithBudget(std::function<void()> send);
  void Disable(DisabledBy why);
  bool UseWatchList() const;
  std::string WatchListKey() const;

  // The paged list.
  void StartList();
  void RequestPage(const std::string& token);
  std::unique_ptr<Page> StartPage(const std::string& token, bool current);
  bool OnPageData(Page* page, std::string_view chunk);
  bool FeedPage(Page& page, std::string_view chunk);
  void OnPageDone(Page* page, HttpResponse response);
  void HandlePage(std::unique_ptr<Page> page);
  // The failed page's outcome, or nullopt when the page was good.
  std::optional<Outcome> PageFailure(Page& page);
  void PageMetadata(Page& page, std::string& text);
  void StartPrefetch(const std::string& token);
  void DropPrefetch();
  void FinishList(const std::string& rv);
  // The sync's items are complete: the handler replaces its state, and the reflector is synced.
  void CompleteSync(const std::string& rv);
  void ListSucceeded();
  void FailList(Outcome outcome);
  // Hands one object of a sync to the handler (unless of another namespace); counts it.
  void ListItem(const rapidjson::Value& object);
  void ListItemText(std::string& text);

  // The watch, and the watch-list's initial events.
  void StartWatch(bool initial);
  void SendWatch(bool initial);
  bool OnWatchData(std::string_view chunk);
  void OnWatchDone(HttpResponse response);
  std::optional<Outcome> InitialFailure(const HttpResponse& response, bool transport_error);
  Outcome WatchOutcome(const HttpResponse& response, bool transport_error);
  void HandleWatchLine(std::string_view line);
  void HandleInitialEvent(const WatchEvent& ev);
  void HandleErrorEvent(const rapidjson::Value& object);
  void EndInitialEvents(std::string_view rv);
  // The server did not serve the watch-list: remember it, drop what was staged, list in pages.
  // `remember`: for every reflector of the collection (a refusal, or a server that sent what a
  // watch-list never does); else for this one only.
  void FallBack(const std::string& why, bool remember = true);
  void CheckIdle();

  // Whether an object belongs to the watched namespaces (always, without only_namespaces).
  bool InScope(const rapidjson::Value& object) const;
  HttpRequest PageRequest(const std::string& continue_token) const;
  HttpRequest NewRequest(std::string url) const;
  std::string Url(bool watch, bool initial, const std::string& continue_token) const;
  // Classifies a failed response; returns the restart reason label.
  std::string FailureReason(const HttpResponse& response);
  void Restart(const std::string& reason);
  // Schedules one backoff step before the next attempt (the one way to restart after a failure).
  void BackOff();
  // A watch proved it stays open: in sync again.
  void Healthy();
  // Feeds the API server's connection log; true when the failure was a transport error.
  bool ReportTransport(const HttpResponse& response);
  void LogFailure(const char* what, const std::string& reason, const HttpResponse& response);
  void SetResourceVersion(std::string_view rv);
  void UpdateObjects();
  void CountParseError(const std::string& what);
  int64_t NowMs() const { return ctx_.env.clock->MonotonicMs(); }
  void CancelAll();

  const KubeContext ctx_;
  const ReflectorOptions opts_;
  ReflectorHandler& handler_;
  std::unique_ptr<KubeLoop> own_loop_;  // when the context has none
  KubeLoop* loop_ = nullptr;
  Backoff backoff_;

  std::unique_ptr<ReflectorObserver> observer_;  // never null (a no-op one when none is given)

  std::atomic<bool> synced_once_{false};
  std::atomic<bool> disabled_{false};
  std::atomic<DisabledBy> disabled_by_{DisabledBy::kNone};
  std::atomic<uint64_t> lists_{0};
  std::atomic<uint64_t> watches_{0};
  bool started_ = false;   // Start()/Stop() callers
  mutable std::mutex mu_;  // guards rv_
  std::string rv_;

  // Loop thread only from here on.
  bool stopping_ = false;
  bool need_list_ = true;
  bool page_next_sync_ = false;  // the next sync in pages (a silent watch-list), once
  bool first_request_ = true;
  KubeLoop::TimerId timer_ = 0;               // the backoff step or budget wait
  int64_t retry_after_s_ = -1;                // from the last failed response
  int64_t last_backoff_ms_ = -1'000'000'000;  // monotonic time of the last backoff step
  int failures_in_a_row_ = 0;
  bool out_of_sync_ = false;  // reported to SyncStatus as out of sync

  // The sync in progress (a paged list or a watch-list's initial events).
  bool listing_ = false;
  size_t list_items_ = 0;
  int64_t list_pages_ = 0;
  int64_t list_start_ms_ = 0;
  std::unordered_set<size_t> tokens_seen_;  // hashes of this list's continue tokens
  std::unique_ptr<Page> page_;
  std::unique_ptr<Page> prefetch_;
  const json::SkipPaths item_skip_;  // opts_.skip_fields from an item's root
  rapidjson::Document item_doc_;

  // The watch stream.
  AsyncHttp::TransferId watch_id_ = 0;
  bool initial_ = false;  // reading a watch-list's initial events
  KubeLoop::TimerId idle_timer_ = 0;
  int64_t last_line_ms_ = 0;
  const json::SkipPaths event_skip_;  // opts_.skip_fields under "object"
  LineSplitter splitter_;
  uint64_t oversized_seen_ = 0;
  rapidjson::Document event_doc_;
  bool stream_gone_ = false;
  bool stream_error_ = false;
  bool stream_refused_ = false;
  std::string stream_fallback_;  // why the watch-list is not served, when it is not
  uint64_t stream_lines_ = 0;
  uint64_t stream_real_events_ = 0;  // ADDED, MODIFIED, DELETED
  int64_t stream_start_ms_ = 0;
  bool stream_healthy_ = false;
  int64_t last_parse_warn_ms_ = -1'000'000;
};

}  // namespace podwait
