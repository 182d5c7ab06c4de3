#include "exporter/sources/events.h"

#include <algorithm>

#include "exporter/classify/event_normalizer.h"
#include "exporter/common/json.h"
#include "exporter/kube/watch_protocol.h"
#include "exporter/sources/pods.h"

namespace podwait {

using json::Int;
using json::Member;
using json::Object;
using json::Str;
using json::Time;

bool IsRelevantEventReason(std::string_view reason) {
  return std::find(std::begin(kRelevantEventReasons), std::end(kRelevantEventReasons), reason) !=
         std::end(kRelevantEventReasons);
}

Result<ParsedEvent> ParseEvent(const rapidjson::Value& object, const EventParseOptions& options) {
  using R = Result<ParsedEvent>;
  if (!object.IsObject()) return R::Fail("event is not a JSON object");
  const rapidjson::Value* meta = Object(&object, "metadata");
  const rapidjson::Value* target = Object(&object, "involvedObject");
  if (target == nullptr) target = Object(&object, "regarding");
  if (meta == nullptr || target == nullptr) {
    return R::Fail("event without metadata or involvedObject");
  }
  ParsedEvent result;
  EventRecord& ev = result.event;
  ev.uid = std::string(Str(meta, "uid"));
  ev.pod_uid = std::string(Str(target, "uid"));
  ev.namespace_ = std::string(Str(target, "namespace"));
  if (ev.namespace_.empty()) ev.namespace_ = std::string(Str(meta, "namespace"));
  ev.pod_name = std::string(Str(target, "name"));
  ev.reason = std::string(Str(&object, "reason"));
  if (ev.pod_name.empty() || ev.namespace_.empty()) {
    return R::Fail("event without the involved object's name or namespace");
  }
  const std::string_view kind = Str(target, "kind");
  result.relevant = (kind.empty() || kind == "Pod") && IsRelevantEventReason(ev.reason);
  if (!result.relevant) return R::Ok(std::move(result));
  ReadEventDetails(object, options, &ev);
  return R::Ok(std::move(result));
}

void ReadEventDetails(const rapidjson::Value& object, const EventParseOptions& options,
                      EventRecord* event) {
  EventRecord& ev = *event;
  const rapidjson::Value* meta = Object(&object, "metadata");
  std::string_view message = Str(&object, "message");
  if (message.empty()) message = Str(&object, "note");
  ev.message = BoundedText(message, options.max_message_bytes);

  std::string_view source = Str(Object(&object, "source"), "component");
  if (source.empty()) source = Str(Object(&object, "deprecatedSource"), "component");
  if (source.empty()) source = Str(&object, "reportingComponent");
  if (source.empty()) source = Str(&object, "reportingController");
  ev.source = std::string(source);

  const rapidjson::Value* series = Object(&object, "series");
  const Timestamp event_time = Time(&object, "eventTime");
  Timestamp first = Time(&object, "firstTimestamp");
  if (first == 0) first = Time(&object, "deprecatedFirstTimestamp");
  if (first == 0) first = event_time;
  if (first == 0) first = Time(meta, "creationTimestamp");
  Timestamp last =
      std::max({Time(&object, "lastTimestamp"), Time(&object, "deprecatedLastTimestamp"),
                Time(series, "lastObservedTime"), event_time});
  if (last == 0) last = first;
  ev.first = NotInTheFuture(first, options.now);
  ev.last = NotInTheFuture(last, options.now);

  int64_t count = Int(series, "count");
  if (count <= 0) count = Int(&object, "count");
  if (count <= 0) count = Int(&object, "deprecatedCount");
  ev.count = static_cast<int32_t>(std::clamp<int64_t>(count, 1, INT32_MAX));
  NormalizeEvent(&ev);
}

EventSource::EventSource(EventStore& store, const PodStore* pods, const Clock& clock,
                         std::string namespace_scope, EventParseOptions options)
    : store_(store),
      pods_(pods),
      clock_(clock),
      scope_(std::move(namespace_scope)),
      options_(options),
      last_prune_ms_(clock.MonotonicMs()) {}

void EventSource::OnListBegin() { staged_.clear(); }

EventParseOptions EventSource::Options() const {
  EventParseOptions o = options_;
  o.now = clock_.Now();
  return o;
}

bool EventSource::OnListItem(const rapidjson::Value& object) {
  Result<ParsedEvent> r = ParseEvent(object, Options());
  if (!r.ok()) return false;
  if (r->relevant) staged_.push_back(std::move(r->event));
  return true;
}

void EventSource::OnListEnd(const std::string&) {
  store_.Replace(std::move(staged_), scope_);
  staged_ = {};
  Prune();
}

void EventSource::OnListAbort() { staged_ = {}; }

bool EventSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  Result<ParsedEvent> r = ParseEvent(object, Options());
  if (!r.ok()) return false;
  if (r->relevant) {
    if (type == WatchEventType::kDeleted) {
      store_.Remove(r->event);
    } else {
      store_.Add(std::move(r->event));
    }
  }
  if (clock_.MonotonicMs() - last_prune_ms_ >= kMinute) Prune();
  return true;
}

size_t EventSource::Prune() {
  last_prune_ms_ = clock_.MonotonicMs();
  if (pods_ == nullptr) return 0;
  return store_.Prune(
      [this](std::string_view ns, std::string_view name) { return pods_->Contains(ns, name); },
      clock_.Now());
}

std::vector<ReflectorOptions> EventReflectorOptions(const Config& config) {
  std::vector<ReflectorOptions> out = ReflectorOptionsPerNamespace(config, "events", "/api/v1");
  for (auto& o : out) o.field_selector = "involvedObject.kind=Pod";
  return out;
}

}  // namespace podwait
