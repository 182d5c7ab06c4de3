#include "exporter/kube/event_writer.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "exporter/common/log.h"
#include "exporter/common/shard.h"
#include "exporter/common/time_format.h"
#include "exporter/common/utf8.h"

namespace podwait {

const char* EventWriteResultName(EventWriteResult r) {
  switch (r) {
    case EventWriteResult::kCreated:
      return "created";
    case EventWriteResult::kSeriesUpdated:
      return "series_updated";
    case EventWriteResult::kFailed:
      return "failed";
  }
  return "failed";
}

const char* EventDropReasonName(EventDropReason r) {
  switch (r) {
    case EventDropReason::kPodRateLimited:
      return "pod_rate_limited";
    case EventDropReason::kQueueFull:
      return "queue_full";
  }
  return "queue_full";
}

namespace {

// metav1.MicroTime as the API server writes it: RFC 3339 with six fractional digits, UTC.
std::string MicroTime(Timestamp t) {
  const Timestamp secs = t >= 0 ? t / 1000 : (t - 999) / 1000;
  std::string text = FormatRfc3339(secs * 1000);  // "...:SSZ"
  char fraction[16];
  std::snprintf(fraction, sizeof(fraction), ".%03d000Z", static_cast<int>(t - secs * 1000));
  text.pop_back();
  return text + fraction;
}

// At most kMaxEventNoteBytes of valid UTF-8, cut at a character boundary.
std::string BoundedNote(const std::string& note) {
  std::string valid;
  AppendValidUtf8(&valid, note, Utf8Output::kJson);
  if (valid.size() <= kMaxEventNoteBytes) return valid;
  size_t end = kMaxEventNoteBytes - 3;
  while (end > 0 && (static_cast<unsigned char>(valid[end]) & 0xC0) == 0x80) --end;
  return valid.substr(0, end) + "...";
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(JsonWriter& w, std::string_view key, std::string_view value) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// events.k8s.io/v1 EventSeries.
void WriteSeries(JsonWriter& w, int64_t count, Timestamp last_observed) {
  w.Key("series");
  w.StartObject();
  w.Key("count");
  w.Int64(count);
  WriteString(w, "lastObservedTime", MicroTime(last_observed));
  w.EndObject();
}

std::string Text(const rapidjson::StringBuffer& buf) {
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

std::string EventName(std::string_view pod, uint64_t unique) {
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), ".%" PRIx64, unique);
  if (pod.size() + std::strlen(suffix) <= kMaxEventNameBytes) return std::string(pod) + suffix;
  // "<cut pod name>-<16 hex digits of FNV-1a of the whole name><suffix>": the cut must not end in
  // '-' or '.', or the name would hold an empty or '-'-led DNS label.
  char hash[24];
  std::snprintf(hash, sizeof(hash), "-%016" PRIx64, Fnv1a64(pod));
  std::string_view head =
      pod.substr(0, kMaxEventNameBytes - std::strlen(hash) - std::strlen(suffix));
  while (!head.empty() && (head.back() == '-' || head.back() == '.')) head.remove_suffix(1);
  return std::string(head) + hash + suffix;
}

EventPlanner::EventPlanner(EventWriterOptions options) : opts_(std::move(options)) {}

bool EventPlanner::TakeToken(Pod& pod, int64_t mono_ms) const {
  if (mono_ms > pod.last_refill_ms) {
    pod.tokens =
        std::min(opts_.pod_burst,
                 pod.tokens + static_cast<double>(mono_ms - pod.last_refill_ms) /
                                  static_cast<double>(std::max<int64_t>(1, opts_.pod_refill_ms)));
    pod.last_refill_ms = mono_ms;
  }
  if (pod.tokens < 1) return false;
  pod.tokens -= 1;
  return true;
}

// Once a minute: finished series go, and pods with no series left and a full bucket (nothing
// about them to remember).
void EventPlanner::Forget(int64_t mono_ms) {
  if (mono_ms - last_forget_ms_ < 60'000) return;
  last_forget_ms_ = mono_ms;
  const int64_t refill_all =
      static_cast<int64_t>(opts_.pod_burst * static_cast<double>(opts_.pod_refill_ms));
  for (auto pod = pods_.begin(); pod != pods_.end();) {
    std::erase_if(pod->second.series, [&](const auto& s) {
      return mono_ms - s.second.last_observed_ms > opts_.series_window_ms;
    });
    const bool full = mono_ms - pod->second.last_refill_ms >= refill_all;
    pod = pod->second.series.empty() && full ? pods_.erase(pod) : std::next(pod);
  }
}

std::string EventPlanner::EventJson(const PodEventNote& note, const Series& s,
                                    Timestamp now) const {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  WriteString(w, "apiVersion", "events.k8s.io/v1");
  WriteString(w, "kind", "Event");
  w.Key("metadata");
  w.StartObject();
  WriteString(w, "name", s.name);
  WriteString(w, "namespace", note.namespace_);
  w.EndObject();
  WriteString(w, "eventTime", MicroTime(s.event_time));
  if (s.count > 1) WriteSeries(w, s.count, now);
  WriteString(w, "reportingController", opts_.reporting_controller);
  WriteString(w, "reportingInstance", opts_.reporting_instance);
  WriteString(w, "action", opts_.action);
  WriteString(w, "reason", note.reason);
  w.Key("regarding");
  w.StartObject();
  WriteString(w, "apiVersion", "v1");
  WriteString(w, "kind", "Pod");
  WriteString(w, "namespace", note.namespace_);
  WriteString(w, "name", note.pod);
  if (!note.pod_uid.empty()) WriteString(w, "uid", note.pod_uid);
  w.EndObject();
  WriteString(w, "note", BoundedNote(note.note));
  WriteString(w, "type", note.type);
  w.EndObject();
  return Text(buf);
}

std::string EventPlanner::PatchJson(const PodEventNote& note, const Series& s, Timestamp now) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  WriteSeries(w, s.count, now);
  WriteString(w, "note", BoundedNote(note.note));
  w.EndObject();
  return Text(buf);
}

std::optional<EventWrite> EventPlanner::Plan(const PodEventNote& note, Timestamp now,
                                             int64_t mono_ms, EventDropReason* dropped) {
  Forget(mono_ms);
  const std::string pod_key = note.namespace_ + "/" + note.pod;
  auto [it, added] = pods_.try_emplace(pod_key);
  Pod& pod = it->second;
  if (added) {
    pod.tokens = opts_.pod_burst;
    pod.last_refill_ms = mono_ms;
    if (pods_.size() > opts_.max_pods) {
      auto oldest = pods_.end();
      for (auto p = pods_.begin(); p != pods_.end(); ++p) {
        if (p != it &&
            (oldest == pods_.end() || p->second.last_used_ms < oldest->second.last_used_ms)) {
          oldest = p;
        }
      }
      if (oldest != pods_.end()) pods_.erase(oldest);
    }
  }
  pod.last_used_ms = mono_ms;

  // The same key within the window is an occurrence of the same Event.
  Series& s = pod.series[note.pod_uid + "\n" + note.series_key];
  const bool repeat = s.count > 0 && mono_ms - s.last_observed_ms <= opts_.series_window_ms;
  if (repeat) {
    ++s.count;
  } else {
    s = Series{EventName(note.pod, static_cast<uint64_t>(now) * 1'000'000 + (names_++ % 1'000'000)),
               1, now, mono_ms};
  }
  s.last_observed_ms = mono_ms;
  if (!TakeToken(pod, mono_ms)) {
    if (dropped != nullptr) *dropped = EventDropReason::kPodRateLimited;
    return std::nullopt;
  }
  EventWrite w;
  w.namespace_ = note.namespace_;
  w.name = s.name;
  w.create = s.count == 1;
  w.event_json = EventJson(note, s, now);
  if (!w.create) {
    w.patch_json = PatchJson(note, s, now);
  }
  return w;
}

EventWriter::EventWriter(const KubeContext& ctx, EventWriterOptions options,
                         EventWriterObserver* observer)
    : ctx_(ctx),
      opts_(options),
      observer_(observer),
      global_(options.global_qps, options.global_burst),
      backoff_(options.backoff_initial_ms, options.backoff_max_ms, 0),
      planner_(std::move(options)) {}

EventWriter::~EventWriter() { Stop(); }

void EventWriter::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void EventWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventWriter::Record(const PodEventNote& note) {
  EventDropReason dropped = EventDropReason::kQueueFull;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<EventWrite> write =
        planner_.Plan(note, ctx_.env.clock->Now(), ctx_.env.clock->MonotonicMs(), &dropped);
    if (write && queue_.size() < opts_.queue_size) {
      queue_.push_back(std::move(*write));
      cv_.notify_all();
      return;
    }
  }
  if (observer_ != nullptr) observer_->OnDropped(dropped);
}

bool EventWriter::WaitIdle(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [this] { return queue_.empty() && !busy_; });
}

void EventWriter::Sleep(int64_t ms) {
  if (ms <= 0) return;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_.load(); });
}

void EventWriter::Run() {
  http_ = ctx_.env.http();
  while (true) {
    EventWrite write;
    {
      std::unique_lock<std::mutex> lock(mu_);
      busy_ = false;
      cv_.notify_all();
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      write = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    Sleep(global_.Reserve(ctx_.env.clock->MonotonicMs()));
    if (ctx_.budget) Sleep(ctx_.budget->Reserve(ctx_.env.clock->MonotonicMs()));
    if (stop_) return;
    Send(write);
  }
}

HttpResponse EventWriter::Do(const std::string& method, const std::string& url,
                             const std::string& body, const std::string& content_type) {
  HttpRequest req;
  req.method = method;
  req.url = url;
  req.body = body;
  req.tls = ctx_.endpoint.tls;
  req.cancel = &stop_;
  req.timeout_ms = opts_.request_timeout_ms;
  req.headers.emplace_back("Accept", "application/json");
  req.headers.emplace_back("Content-Type", content_type);
  if (ctx_.tokens != nullptr) {
    const std::string token = ctx_.tokens->Token();
    if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
  }
  HttpResponse response = http_->Write(req);
  const int64_t now = ctx_.env.clock->MonotonicMs();
  if (!response.error.empty()) {
    if (ctx_.server_log && !response.cancelled) {
      ctx_.server_log->OnTransportError("events (write)", ctx_.endpoint.api_url, response.error,
                                        now);
    }
  } else if (ctx_.server_log) {
    ctx_.server_log->OnAnswer("events (write)", ctx_.endpoint.api_url, now);
  }
  if (response.status == 401 && ctx_.tokens != nullptr) ctx_.tokens->Invalidate();
  return response;
}

void EventWriter::Send(const EventWrite& write) {
  const std::string collection =
      ctx_.endpoint.api_url + "/apis/events.k8s.io/v1/namespaces/" + write.namespace_ + "/events";
  HttpResponse r;
  bool created = write.create;
  if (write.create) {
    r = Do("POST", collection, write.event_json, "application/json");
  } else {
    r = Do("PATCH", collection + "/" + write.name, write.patch_json,
           "application/strategic-merge-patch+json");
    if (r.status == 404) {  // the Event expired (its TTL) or was deleted: write it again
      created = true;
      r = Do("POST", collection, write.event_json, "application/json");
    }
  }
  if (r.ok()) {
    backoff_.Reset();
    if (observer_ != nullptr) {
      observer_->OnWritten(created ? EventWriteResult::kCreated : EventWriteResult::kSeriesUpdated);
    }
    return;
  }
  if (r.cancelled) return;
  if (observer_ != nullptr) observer_->OnWritten(EventWriteResult::kFailed);
  OnHttpError(write.namespace_ + "/" + write.name, r);
  // Unreachable, overloaded, or refusing (403 without the RBAC rule, 409 for a name taken, 422
  // for an Event it finds invalid): one backoff step before the next write, so a server that
  // refuses every write is not written to at the global bucket's rate.
  Sleep(backoff_.Next(r.retry_after_s));
}

// HTTP errors (a missing RBAC rule answers 403 to every write): the first at once, then at most
// one line a minute with the number left out.
void EventWriter::OnHttpError(const std::string& what, const HttpResponse& response) {
  if (!response.error.empty()) return;  // the server log has it
  const int64_t now = ctx_.env.clock->MonotonicMs();
  if (now < next_error_log_ms_) {
    ++errors_not_logged_;
    return;
  }
  next_error_log_ms_ = now + 60'000;
  std::string body = response.body.substr(0, 300);
  LogWarn("cannot write an Event", {{"event", what},
                                    {"status", std::to_string(response.status)},
                                    {"answer", body},
                                    {"not_logged_before", std::to_string(errors_not_logged_)}});
  errors_not_logged_ = 0;
}

}  // namespace podwait
