#pragma once

// Karpenter's NodeClaims (karpenter.sh/v1, cluster-scoped) and the launch failures Karpenter
// reports in events on them, into the NodeClaimStore (docs/DESIGN.md §3). Two reflectors: the
// NodeClaims, and the events of NodeClaims (fieldSelector=involvedObject.kind=NodeClaim; events
// of cluster-scoped objects are written to the "default" namespace). A 404 on the NodeClaim list
// (Karpenter not installed) disables the source.

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/types.h"
#include "exporter/state/nodeclaim_store.h"

namespace podwait {

inline constexpr std::string_view kNodeClaimApi = "/apis/karpenter.sh/v1";
inline constexpr std::string_view kNodePoolLabel = "karpenter.sh/nodepool";
// The event reasons of a launch failure Karpenter reports on a NodeClaim before deleting it
// (karpenter pkg/events/reason.go, pkg/controllers/nodeclaim/lifecycle/events.go).
inline constexpr std::string_view kNodeClaimFailureReasons[] = {"InsufficientCapacityError",
                                                                "NodeClassNotReady"};

// Pure: a NodeClaim document (karpenter pkg/apis/v1/nodeclaim.go, nodeclaim_status.go): name,
// nodepool label, creation and deletion, status.nodeName and the Launched, Registered and
// Initialized conditions. An error when it has no name.
Result<NodeClaimFacts> ParseNodeClaim(const rapidjson::Value& object);

// Pure: the launch failure an event reports, when it is one (involvedObject.kind NodeClaim, a
// reason of kNodeClaimFailureReasons); nullopt for every other event. The message loses
// Karpenter's "NodeClaim <name> event: " prefix.
std::optional<NodeClaimFailure> ParseNodeClaimFailure(const rapidjson::Value& object,
                                                      Timestamp now = 0);

// The NodeClaim reflector's handler. Called only from its reflector's thread.
class NodeClaimSource final : public ReflectorHandler {
 public:
  explicit NodeClaimSource(NodeClaimStore& store) : store_(store) {}

  void OnListBegin() override { staged_.clear(); }
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override { staged_.clear(); }
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  bool OnNotFound() override { return true; }
  std::optional<size_t> ObjectCount() const override { return store_.Count(); }

 private:
  NodeClaimStore& store_;
  std::vector<NodeClaimFacts> staged_;
};

// The handler of the reflector of NodeClaim events: keeps the launch failures.
class NodeClaimEventSource final : public ReflectorHandler {
 public:
  NodeClaimEventSource(NodeClaimStore& store, const Clock& clock) : store_(store), clock_(clock) {}

  void OnListBegin() override { staged_.clear(); }
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override { staged_.clear(); }
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  // The gauge podwait_objects{resource="events"} stays the pod events' count.
  std::optional<size_t> ObjectCount() const override { return std::nullopt; }

 private:
  NodeClaimStore& store_;
  const Clock& clock_;
  std::vector<NodeClaimFailure> staged_;
};

// The two reflectors: "nodeclaims" (cluster-wide) and "events/nodeclaims" (the default
// namespace, fieldSelector=involvedObject.kind=NodeClaim).
ReflectorOptions NodeClaimReflectorOptions(const Config& config);
ReflectorOptions NodeClaimEventReflectorOptions(const Config& config);

}  // namespace podwait
