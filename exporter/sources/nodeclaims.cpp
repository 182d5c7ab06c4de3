#include "exporter/sources/nodeclaims.h"

#include <algorithm>
#include <utility>

#include "exporter/common/json.h"
#include "exporter/kube/watch_protocol.h"
#include "exporter/sources/events.h"
#include "exporter/sources/object_conditions.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/reflector_options.h"

namespace podwait {

using json::Array;
using json::Object;
using json::Str;
using json::Time;

namespace {

constexpr size_t kMaxMessage = 512;

bool IsFailureReason(std::string_view reason) {
  return std::find(std::begin(kNodeClaimFailureReasons), std::end(kNodeClaimFailureReasons),
                   reason) != std::end(kNodeClaimFailureReasons);
}

}  // namespace

Result<NodeClaimFacts> ParseNodeClaim(const rapidjson::Value& object) {
  using R = Result<NodeClaimFacts>;
  const rapidjson::Value* meta = object.IsObject() ? Object(&object, "metadata") : nullptr;
  if (meta == nullptr) return R::Fail("NodeClaim without metadata");
  NodeClaimFacts nc;
  nc.name = std::string(Str(meta, "name"));
  if (nc.name.empty()) return R::Fail("NodeClaim without a name");
  nc.nodepool = std::string(Str(Object(meta, "labels"), kNodePoolLabel.data()));
  nc.created = Time(meta, "creationTimestamp");
  nc.deleting = Time(meta, "deletionTimestamp") != 0;
  const rapidjson::Value* status = Object(&object, "status");
  nc.node_name = std::string(Str(status, "nodeName"));
  ReadObjectConditions(Array(status, "conditions"), kNodeClaimStageConditions, nc.stages,
                       kMaxObjectName, kMaxMessage);
  return R::Ok(std::move(nc));
}

std::optional<NodeClaimFailure> ParseNodeClaimFailure(const rapidjson::Value& object,
                                                      Timestamp now) {
  if (!object.IsObject()) return std::nullopt;
  const rapidjson::Value* target = Object(&object, "involvedObject");
  if (target == nullptr) target = Object(&object, "regarding");
  const std::string_view reason = Str(&object, "reason");
  if (Str(target, "kind") != "NodeClaim" || !IsFailureReason(reason)) return std::nullopt;
  NodeClaimFailure f;
  f.nodeclaim = std::string(Str(target, "name"));
  if (f.nodeclaim.empty()) return std::nullopt;
  f.reason = std::string(reason);
  EventParseOptions options;
  options.max_message_bytes = kMaxMessage;
  options.now = now;
  EventRecord details;
  ReadEventDetails(object, options, &details);
  std::string_view message = details.message;
  const std::string prefix = "NodeClaim " + f.nodeclaim + " event: ";
  if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
  f.message = std::string(message);
  f.at = details.last;
  return f;
}

bool NodeClaimSource::OnListItem(const rapidjson::Value& object) {
  Result<NodeClaimFacts> nc = ParseNodeClaim(object);
  if (!nc.ok()) return false;
  staged_.push_back(std::move(*nc.value));
  return true;
}

void NodeClaimSource::OnListEnd(const std::string&) {
  store_.Replace(std::move(staged_));
  staged_ = {};
}

bool NodeClaimSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  Result<NodeClaimFacts> nc = ParseNodeClaim(object);
  if (!nc.ok()) return false;
  if (type == WatchEventType::kDeleted) {
    store_.Remove(nc.value->name);
  } else {
    store_.Upsert(std::move(*nc.value));
  }
  return true;
}

bool NodeClaimEventSource::OnListItem(const rapidjson::Value& object) {
  if (!object.IsObject()) return false;
  if (auto f = ParseNodeClaimFailure(object, clock_.Now())) staged_.push_back(std::move(*f));
  return true;
}

void NodeClaimEventSource::OnListEnd(const std::string&) {
  store_.ReplaceFailures(std::move(staged_));
  staged_ = {};
}

// A deleted event (its TTL ran out) leaves the failure: it is kept for a bounded number of
// NodeClaims, not by the event's lifetime.
bool NodeClaimEventSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  if (!object.IsObject()) return false;
  if (type == WatchEventType::kDeleted) return true;
  if (auto f = ParseNodeClaimFailure(object, clock_.Now())) store_.AddFailure(std::move(*f));
  return true;
}

ReflectorOptions NodeClaimReflectorOptions(const Config& config) {
  return ReflectorOptionsFromConfig(config, "nodeclaims",
                                    ResourcePath(kNodeClaimApi, "", "nodeclaims"));
}

ReflectorOptions NodeClaimEventReflectorOptions(const Config& config) {
  ReflectorOptions o =
      ReflectorOptionsFromConfig(config, "events", ResourcePath("/api/v1", "default", "events"));
  o.name = "events/nodeclaims";
  o.field_selector = "involvedObject.kind=NodeClaim";
  return o;
}

}  // namespace podwait
