#pragma once

#include <rapidjson/document.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/json_escape.h"
#include "exporter/common/selector.h"

namespace podwait::sim {

// The Kubernetes resources the simulator serves: the ones the simulator's code names, then the
// tidb-operator v2 resources (core.pingcap.com/v1alpha1), which only the table in store.cpp names
// (found with ResourceFromPlural/ResourceFromKind): a new custom resource is one table row.
enum class Resource {
  kPods = 0,
  kEvents,
  kTidbClusters,
  kConfigMaps,
  kPersistentVolumeClaims,
  kPersistentVolumes,
  kDmClusters,  // tidb-operator v1's DMCluster (pingcap.com/v1alpha1)
  kFirstV2
};
inline constexpr int kV2ResourceCount = 29;
// After the v2 rows: the autoscalers' custom resources (cluster-autoscaler's namespaced
// ProvisioningRequests, Karpenter's cluster-scoped NodeClaims).
inline constexpr int kAutoscalerResourceCount = 2;
inline constexpr int kResourceCount =
    static_cast<int>(Resource::kFirstV2) + kV2ResourceCount + kAutoscalerResourceCount;

struct ResourceInfo {
  Resource resource;
  const char* plural;           // "pods"
  const char* kind;             // "Pod"
  const char* list_kind;        // "PodList"
  const char* api_version;      // "v1", "pingcap.com/v1alpha1", "core.pingcap.com/v1alpha1"
  bool core;                    // built-in type: list items carry no kind/apiVersion
  const char* singular;         // "pod"
  const char* short_names;      // discovery shortNames, comma-separated ("" for none)
  const char* categories;       // discovery categories, comma-separated ("" for none)
  bool status;                  // has a status subresource (discovery lists "<plural>/status")
  bool cluster_scoped = false;  // no namespace (PersistentVolumes): served at /<plural>[/<name>]
  // The URL prefix of its group version: "/api/v1" or "/apis/<api_version>".
  std::string PathPrefix() const;
};
const ResourceInfo& Info(Resource r);
// Whether a scenario starts with the resource's CRD installed: every resource but the
// autoscalers' (a cluster has cluster-autoscaler's ProvisioningRequests or Karpenter only when a
// scenario says so: "crds": {"provisioningrequests": true}) and v1's DMCluster (DM is installed
// by few: "crds": {"dmclusters": true}).
constexpr bool InstalledByDefault(Resource r) {
  return static_cast<int>(r) < static_cast<int>(Resource::kFirstV2) + kV2ResourceCount &&
         r != Resource::kDmClusters;
}
// Every resource of one API group version ("v1", "core.pingcap.com/v1alpha1").
std::vector<Resource> ResourcesOf(std::string_view api_version);
std::optional<Resource> ResourceFromPlural(std::string_view plural);
std::optional<Resource> ResourceFromKind(std::string_view kind);

// Label keys are interned (a few distinct keys over 100,000s of objects); the pointer stays valid
// for the life of the process.
const std::string* InternKey(std::string_view key);
using KeyValues = std::vector<std::pair<const std::string*, std::string>>;
// Field-selector values; keys point to static strings. metadata.name/namespace are not stored.
using FieldValues = std::vector<std::pair<const char*, std::string>>;

// One stored version of an object. Immutable once built; shared between the current state and the
// watch history.
struct Object {
  Resource resource = Resource::kPods;
  std::string ns;
  std::string name;
  std::string uid;
  std::string creation;  // metadata.creationTimestamp as stored
  uint64_t rv = 0;
  // Compact JSON; starts with {"kind":..,"apiVersion":.., so that list items of core types can
  // drop those two fields (the real API server omits them there).
  std::string json;
  size_t body_offset = 0;  // offset of the first field after kind/apiVersion
  KeyValues labels;
  FieldValues fields;  // non-empty values for field selectors

  // Appends the JSON as a list item of its resource.
  void AppendListItem(std::string* out) const;
  std::string FieldValue(std::string_view field) const;
};
using ObjectPtr = std::shared_ptr<const Object>;

// Label and field selectors (exporter/common/selector.h) against an object's labels and fields.
bool MatchesLabels(const Selector& selector, const KeyValues& labels);
bool MatchesFields(const Selector& selector, const Object& o);
// Fields a resource supports in field selectors.
bool FieldSupported(Resource r, std::string_view field);

enum class EventType { kAdded, kModified, kDeleted };
const char* EventTypeName(EventType t);

struct HistoryEntry {
  EventType type = EventType::kAdded;
  ObjectPtr obj;   // the new version (for DELETED: the last version, with the deletion's rv)
  ObjectPtr prev;  // the version before a MODIFIED, else null
};

// The object store: current objects per resource plus a bounded history of changes. Every write
// takes the next value of one global resourceVersion counter, like etcd's revision. Thread-safe;
// watchers block on WaitForChange().
class Store {
 public:
  Store(size_t history_limit, uint64_t seed, const Clock& clock);

  // Inserts or replaces an object from a full document. Keeps uid and creationTimestamp of the
  // object it replaces when the document has none; fills in uid, creationTimestamp and
  // resourceVersion. Returns null and sets *error when the document is unusable.
  ObjectPtr Upsert(Resource r, rapidjson::Document doc, std::string* error);
  // Deletes; false when there is no such object.
  bool Delete(Resource r, const std::string& ns, const std::string& name);
  ObjectPtr Get(Resource r, const std::string& ns, const std::string& name) const;
  // All current objects of a resource (namespace "" = all), in key order.
  std::vector<ObjectPtr> Snapshot(Resource r, const std::string& ns = "") const;
  size_t Count(Resource r) const;

  struct ListQuery {
    std::string ns;  // "" = all namespaces
    Selector labels;
    Selector fields;
    size_t limit = 0;       // 0 = no limit
    std::string start_key;  // continue after this key ("" = from the start)
  };
  struct ListPage {
    std::vector<ObjectPtr> items;
    std::string last_key;    // non-empty when more items may follow
    int64_t remaining = -1;  // remainingItemCount when known
    uint64_t rv = 0;         // the store's resourceVersion when the page was read
  };
  ListPage List(Resource r, const ListQuery& q) const;

  uint64_t CurrentRv() const;
  // The oldest resourceVersion a watch may start from (older ones are "too old": 410).
  uint64_t OldestWatchableRv() const;
  // Forgets all history (like an etcd compaction): watches from any earlier version get 410.
  void Compact();

  // Copies history entries with rv > after (at most max) into *out; false when `after` is older
  // than the retained history.
  bool Since(uint64_t after, size_t max, std::vector<HistoryEntry>* out) const;
  // Blocks until the rv moves past `after`, `wake` is notified, or `deadline_ms` (monotonic).
  void WaitForChange(uint64_t after, int64_t deadline_ms) const;
  // Wakes every waiter (faults, shutdown).
  void WakeAll() const;

  std::string NewUid();
  const Clock& clock() const { return clock_; }

 private:
  static std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }
  void Record(EventType type, ObjectPtr obj, ObjectPtr prev);

  const size_t history_limit_;
  const Clock& clock_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::mt19937_64 rng_;
  uint64_t rv_ = 0;
  std::map<std::string, ObjectPtr> objects_[kResourceCount];
  std::deque<HistoryEntry> history_;  // history_[i].obj->rv == history_base_ + i
  uint64_t history_base_ = 1;
};

// Builds the stored form of a document (kind/apiVersion first, resourceVersion set, labels and
// fields extracted). Exposed for tests.
ObjectPtr BuildObject(Resource r, rapidjson::Document& doc, uint64_t rv, std::string* error);

// JSON helpers.
std::string ToJson(const rapidjson::Value& v);
// RFC 7386 JSON merge patch (null removes a member).
void MergePatch(rapidjson::Value& target, const rapidjson::Value& patch,
                rapidjson::Document::AllocatorType& alloc);
// Kubernetes Status object for errors.
std::string StatusJson(int code, std::string_view reason, std::string_view message);

}  // namespace podwait::sim
