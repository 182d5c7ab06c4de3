#pragma once

#include <rapidjson/document.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "exporter/common/clock.h"
#include "tests/sim/http_server.h"
#include "tests/sim/pd.h"
#include "tests/sim/printers.h"
#include "tests/sim/store.h"

namespace podwait::sim {

struct SimOptions {
  std::string token_file;                // when set: Bearer token required on /api and /apis
  int64_t bookmark_interval_ms = 10000;  // BOOKMARK events on watches that allow them
  bool gone_as_event = false;            // too-old resourceVersion: ERROR event instead of HTTP 410
  int64_t default_watch_timeout_s = 1800;  // when the client gives no timeoutSeconds
  size_t history = 200000;                 // watch history (events) kept
  double time_scale = 1.0;                 // timeline speed-up (2 = twice as fast)
  bool manual = false;                     // steps run only via POST /_sim/advance
  bool loop = false;  // after the last step and the cycle's end, the story starts again
  uint64_t seed = 1;
  int64_t churn_per_second = 0;
  // The watch-list (sendInitialEvents): served (on, as Kubernetes 1.32+), refused with 422 as a
  // server with the WatchList feature off, or ignored (the parameters unknown, as a server or a
  // proxy that drops them: a plain watch).
  enum class WatchList { kOn, kOff, kIgnore };
  WatchList watch_list = WatchList::kOn;
  // Not empty: the account's Roles, as a namespaced install has them: list, watch and get in
  // these namespaces only (sorted); every cluster-wide request, and every other namespace, is
  // 403 Forbidden, and SelfSubjectAccessReviews answer so. Empty: everything allowed.
  std::vector<std::string> rbac_namespaces;
  // The service proxy of PD Services answers 403 Forbidden, as for a user without get on
  // services/proxy.
  bool forbid_service_proxy = false;
};

// The scenario simulator: a Kubernetes API (pods, events, configmaps, TidbClusters and the
// tidb-operator v2 resources of core.pingcap.com), a PD API per
// TiDB cluster, kube-state-metrics-shaped series and a control API, all driven by a scenario.
// Thread-safe: HTTP handlers run on many threads.
class Simulator {
 public:
  Simulator(SimOptions options, const Clock& clock);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Loads a scenario (JSON text): applies its initial objects, remembers its steps.
  bool LoadScenario(const std::string& text, std::string* error);
  // Applies one op, or an array of ops, or {"apply":[ops]}.
  bool Apply(const rapidjson::Value& ops, std::string* error);
  // Runs the next step now (false when none is left).
  bool AdvanceOne(std::string* error);
  // Runs steps up to and including the named one.
  bool AdvanceTo(const std::string& name, std::string* error);

  // N TiDB clusters with M pods each (see README, "Load generation"), as tidb-operator v1 makes
  // them (TidbCluster, StatefulSet pods) or as v2 does (Cluster, groups, instances and their pods).
  enum class Shape { kV1, kV2 };
  bool Generate(int clusters, int pods_per_cluster, std::string* error, Shape shape = Shape::kV1);

  // Starts the real-time timeline (unless manual) and the churn thread.
  void Start();
  void Stop();

  void Handle(const Request& req, Responder& resp);

  Store& store() { return store_; }
  size_t steps_done() const;

 private:
  struct Step {
    std::string name;
    int64_t at_ms = 0;
    std::string ops_json;  // the "apply" array, re-parsed when the step runs
  };
  // A fault that answers the next matching Kubernetes API requests.
  struct RequestFault {
    std::string kind;  // "status", "hang", "gone", "close", "reset"
    std::optional<Resource> resource;
    std::string verb;  // list, watch, get, any
    int count = 1;
    int code = 500;
    int64_t retry_after_s = -1;
    int64_t hang_ms = 30000;
    bool gone_as_event = false;
  };
  struct WatchRequest;

  bool ApplyOne(const rapidjson::Value& op, std::string* error);
  bool ApplyFault(const rapidjson::Value& op, std::string* error);
  // {"<plural>": bool, "v2": bool, ...}: installs or removes CRDs ("v2" or "core.pingcap.com":
  // every tidb-operator v2 resource).
  bool ApplyCrds(const rapidjson::Value& crds, std::string* error);
  bool Served(Resource r) const;
  // GET /api/v1, /apis and /apis/<group>/<version>: the discovery documents of what is installed.
  void ServeDiscovery(std::string_view path, Responder& resp);
  // GET /openapi/v3 and /openapi/v3/<api path>: only what kubectl reads before a write — whether
  // the server validates fields itself (the fieldValidation parameter of the Event PATCH).
  void ServeOpenApiV3(std::string_view path, Responder& resp);
  // POST, PUT, PATCH, DELETE: only Events are writable (core v1, and events.k8s.io/v1 when
  // `events_v1`, converted to and from the core form they are stored in); 405 for the others.
  void ServeWrite(const Request& req, Responder& resp, Resource r, bool events_v1,
                  const std::string& ns, const std::string& name);
  bool UpsertDocument(rapidjson::Document doc, std::string* error);
  bool RunStepLocked(size_t index, std::string* error);
  void TimelineLoop();
  // The length of one cycle of the story: the scenario's "cycle", else the last step + 15 s.
  int64_t CycleMs() const;
  // --loop and POST /_sim/restart: removes every object, forgets PD states and applies the
  // scenario's objects again; the steps run again from the first one.
  void RestartStoryLocked();
  void ChurnLoop();

  bool CheckToken(const Request& req, Responder& resp);
  // POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews: allowed by rbac_namespaces.
  void ServeAccessReview(const Request& req, Responder& resp);
  // rbac_namespaces allows `verb` on `r` in `ns` ("" : every namespace).
  bool Allowed(Resource r, const std::string& ns) const;
  std::optional<RequestFault> TakeFault(Resource r, const std::string& verb);
  bool ServeFault(const RequestFault& f, Resource r, Responder& resp);
  void HandleKube(const Request& req, Responder& resp);
  // With `table`: a meta.k8s.io/v1 Table (list) or one-row Tables (watch events) instead.
  void ServeList(const Request& req, Responder& resp, Resource r, const std::string& ns,
                 const Selector& labels, const Selector& fields,
                 const std::optional<TableOptions>& table);
  void ServeWatch(const Request& req, Responder& resp, Resource r, const std::string& ns,
                  const Selector& labels, const Selector& fields,
                  std::optional<TableOptions> table);
  void HandlePd(const Request& req, Responder& resp);
  // What a PD of state `state` answers at `rest` (/pd/api/v1/<endpoint>), faults included.
  void ServePdAnswer(const PdState& state, std::string_view rest, Responder& resp);
  // /api/v1/namespaces/<ns>/services/[http:|https:]<name>[:<port>]/proxy[/<path>] (`rest` is
  // after /api/v1): the API server's service proxy to a cluster's PD Service; false for any
  // other path.
  bool MaybeServeServiceProxy(const Request& req, Responder& resp, std::string_view rest);
  // The cluster whose PD Service `service` is in `ns`: v1's <cluster>-pd, or the v2 Cluster whose
  // status.pd names it; "" for none.
  std::string ClusterOfPdService(const std::string& ns, const std::string& service);
  void HandleControl(const Request& req, Responder& resp);
  std::string StateJson(const Request& req);
  void SleepInterruptible(int64_t ms);

  SimOptions options_;
  const Clock& clock_;
  Store store_;
  // Whether each custom resource's CRD is installed (always true for built-in resources).
  std::atomic<bool> crd_installed_[kResourceCount];

  mutable std::mutex ops_mu_;  // serializes ops and steps
  std::vector<Step> steps_;
  size_t next_step_ = 0;
  std::string objects_json_;  // the scenario's "objects", applied again at each cycle
  int64_t cycle_ms_ = 0;      // the scenario's "cycle" (0: not given)
  uint64_t cycles_ = 0;       // how many times the story restarted
  std::condition_variable steps_cv_;

  std::mutex pd_mu_;
  std::map<std::string, PdState> pd_;  // "ns/cluster"
  // Requests to /pd/<ns>/<cluster>/... by "ns/cluster", answered or not (a cluster without PD
  // too): what the tests read to tell that nobody asked a PD (/_sim/state "pdRequests").
  std::map<std::string, int64_t> pd_requests_;

  std::mutex fault_mu_;
  std::deque<RequestFault> faults_;
  std::atomic<uint64_t> drop_generation_{0};
  std::atomic<bool> drop_reset_{false};
  std::atomic<uint64_t> gone_generation_{0};
  std::atomic<bool> gone_event_{false};
  std::atomic<int64_t> stall_until_ms_{0};
  std::atomic<int> malformed_pending_[kResourceCount] = {};
  std::atomic<uint64_t> continue_floor_{0};
  std::atomic<int> open_watches_{0};

  std::atomic<bool> stopping_{false};
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  std::thread timeline_thread_;
  std::thread churn_thread_;
  int64_t start_ms_ = 0;
  uint64_t oversized_count_ = 0;
};

// The group version of the events.k8s.io API, served for Events next to core v1.
inline constexpr std::string_view kEventsV1 = "events.k8s.io/v1";
// The group version of SelfSubjectAccessReviews (what the account may do, rbac_namespaces).
inline constexpr std::string_view kAuthorizationV1 = "authorization.k8s.io/v1";
// GET /version: the Kubernetes version the simulator answers as.
std::string VersionJson();

// kube-state-metrics-shaped series for the given pods (Prometheus text format 0.0.4).
std::string RenderKsm(const std::vector<ObjectPtr>& pods);

}  // namespace podwait::sim
