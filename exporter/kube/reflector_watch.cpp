// The reflector's watch: resumed from the last resourceVersion, and the watch-list (KEP-3157)
// whose initial events are the sync, ended by the bookmark annotated k8s.io/initial-events-end.

#include "exporter/common/json.h"
#include "exporter/common/log.h"
#include "exporter/kube/reflector.h"

namespace podwait {
namespace {

constexpr const char* kInitialEventsEnd = "k8s.io/initial-events-end";

bool IsInitialEventsEnd(const rapidjson::Value& object) {
  const rapidjson::Value* annotations =
      json::Object(json::Object(&object, "metadata"), "annotations");
  return json::Str(annotations, kInitialEventsEnd) == "true";
}

// A refusal of the watch-list's parameters: the API server's validation (422 Invalid: the
// feature gate off, or a version before it) or a 400.
bool IsRefusal(int code) { return code == 400 || code == 422; }

}  // namespace

void Reflector::StartWatch(bool initial) {
  WithBudget([this, initial] { SendWatch(initial); });
}

void Reflector::SendWatch(bool initial) {
  HttpRequest req = NewRequest(Url(true, initial, {}));
  // The server ends the stream after timeoutSeconds; the client deadline is a safety net.
  req.timeout_ms = opts_.watch_timeout + 30 * kSecond;
  req.low_speed_time_s = opts_.idle_timeout_s;
  splitter_.Reset();
  oversized_seen_ = splitter_.oversized();
  stream_gone_ = stream_error_ = stream_refused_ = false;
  stream_fallback_.clear();
  stream_lines_ = 0;
  stream_real_events_ = 0;
  stream_healthy_ = false;
  stream_start_ms_ = last_line_ms_ = NowMs();
  initial_ = initial;
  if (initial) {
    handler_.OnListBegin();
    listing_ = true;
    list_items_ = 0;
    list_start_ms_ = stream_start_ms_;
    idle_timer_ = loop_->After(opts_.watch_list_idle_ms, [this] { CheckIdle(); });
  }
  watches_++;
  watch_id_ = loop_->http().Stream(
      std::move(req), [this](std::string_view chunk) { return OnWatchData(chunk); },
      [this](HttpResponse response) { OnWatchDone(std::move(response)); });
}

bool Reflector::OnWatchData(std::string_view chunk) {
  splitter_.Feed(chunk, [this](std::string_view line) {
    if (!stream_gone_ && !stream_error_ && stream_fallback_.empty()) HandleWatchLine(line);
  });
  for (; oversized_seen_ < splitter_.oversized(); ++oversized_seen_) {
    CountParseError("watch line longer than the limit");
  }
  return !stopping_ && !stream_gone_ && !stream_error_ && stream_fallback_.empty();
}

void Reflector::CheckIdle() {
  idle_timer_ = 0;
  if (!initial_ || stopping_) return;
  const int64_t quiet = NowMs() - last_line_ms_;
  if (quiet < opts_.watch_list_idle_ms) {
    idle_timer_ = loop_->After(opts_.watch_list_idle_ms - quiet, [this] { CheckIdle(); });
    return;
  }
  loop_->http().Cancel(watch_id_);
  watch_id_ = 0;
  // Silence is a weak sign (a busy server, streams queued behind others on one connection):
  // this reflector lists in pages, the others of the collection keep trying the watch-list.
  LogInfo("no end bookmark and no event on the watch-list; syncing in pages",
          {{"resource", opts_.name}, {"ms", std::to_string(opts_.watch_list_idle_ms)}});
  FallBack("", /*remember=*/false);
}

void Reflector::FallBack(const std::string& why, bool remember) {
  if (remember && ctx_.watch_list &&
      ctx_.watch_list->Set(WatchListKey(), WatchListSupport::State::kUnsupported)) {
    LogInfo("the API server does not serve the watch-list; syncing in pages",
            {{"resource", opts_.name}, {"path", WatchListKey()}, {"why", why}});
  }
  if (!remember) page_next_sync_ = true;
  // Not a failure: the paged list stands for the first sync, with its own token as that had.
  if (!synced_once_) first_request_ = true;
  loop_->CancelTimer(idle_timer_);
  idle_timer_ = 0;
  if (listing_) {
    listing_ = false;
    initial_ = false;
    handler_.OnListAbort();
  }
  need_list_ = true;
  Attempt();
}

void Reflector::HandleInitialEvent(const WatchEvent& ev) {
  switch (ev.type) {
    case WatchEventType::kAdded:
      ListItem(*ev.object);
      SetResourceVersion(ObjectResourceVersion(*ev.object));
      return;
    case WatchEventType::kBookmark:
      if (IsInitialEventsEnd(*ev.object)) {
        EndInitialEvents(ObjectResourceVersion(*ev.object));
      } else {
        stream_fallback_ = "a bookmark before the end of the initial events";
      }
      return;
    case WatchEventType::kModified:
    case WatchEventType::kDeleted:
      stream_fallback_ = "a change before the end of the initial events";
      return;
    case WatchEventType::kError:
      HandleErrorEvent(*ev.object);
      return;
  }
}

void Reflector::EndInitialEvents(std::string_view rv) {
  loop_->CancelTimer(idle_timer_);
  idle_timer_ = 0;
  initial_ = false;
  if (ctx_.watch_list) ctx_.watch_list->Set(WatchListKey(), WatchListSupport::State::kSupported);
  // The stream goes on as the watch from here: its health is judged from now.
  stream_start_ms_ = NowMs();
  stream_real_events_ = 0;
  CompleteSync(std::string(rv));
}

void Reflector::HandleErrorEvent(const rapidjson::Value& object) {
  const ApiStatus status = ParseApiStatus(object);
  if (IsResourceExpired(status)) {
    stream_gone_ = true;
    return;
  }
  if (initial_ && IsRefusal(status.code)) {
    stream_fallback_ = "ERROR " + std::to_string(status.code) + " " + status.reason + ": " +
                       status.message.substr(0, 200);
    return;
  }
  stream_error_ = true;
  LogWarn("watch ERROR event", {{"resource", opts_.name},
                                {"code", std::to_string(status.code)},
                                {"reason", status.reason},
                                {"message", status.message}});
}

void Reflector::HandleWatchLine(std::string_view line) {
  ++stream_lines_;
  last_line_ms_ = NowMs();
  const Result<WatchEvent> parsed = ParseWatchEvent(line, &event_doc_, event_skip_);
  if (!parsed.ok()) {
    CountParseError(parsed.error);
    return;
  }
  const WatchEvent& ev = *parsed;
  observer_->OnWatchEvent(ev.type, ctx_.env.clock->Now());
  if (initial_) {
    HandleInitialEvent(ev);
    return;
  }
  const bool real = ev.type == WatchEventType::kAdded || ev.type == WatchEventType::kModified ||
                    ev.type == WatchEventType::kDeleted;
  if (real) ++stream_real_events_;
  if (!stream_healthy_ && ev.type != WatchEventType::kError &&
      (real || NowMs() - stream_start_ms_ >= opts_.short_watch_ms)) {
    stream_healthy_ = true;
    Healthy();
  }
  switch (ev.type) {
    case WatchEventType::kBookmark:
      SetResourceVersion(ObjectResourceVersion(*ev.object));
      return;
    case WatchEventType::kError:
      HandleErrorEvent(*ev.object);
      return;
    case WatchEventType::kAdded:
    case WatchEventType::kModified:
    case WatchEventType::kDeleted:
      // Another namespace's object is not this collection's, but its version still counts.
      if (InScope(*ev.object) && !handler_.OnEvent(ev.type, *ev.object)) {
        CountParseError(std::string(WatchEventTypeName(ev.type)) +
                        " object rejected by its parser");
      }
      // Advance even past an object we could not parse: it would never parse better.
      SetResourceVersion(ObjectResourceVersion(*ev.object));
      UpdateObjects();
      return;
  }
}

// A watch-list that ended before its end bookmark: the sync failed, was refused or ignored.
std::optional<Reflector::Outcome> Reflector::InitialFailure(const HttpResponse& resp,
                                                            bool transport_error) {
  if (resp.error.empty() && resp.status == 404) return Outcome::kNotFound;
  if (resp.error.empty() && resp.status == 403 && handler_.OnForbidden()) {
    return Outcome::kForbidden;
  }
  if (resp.error.empty() && IsRefusal(resp.status)) {
    const ApiStatus status = ParseApiStatusBody(resp.body);
    stream_fallback_ = "HTTP " + std::to_string(resp.status) + ": " + status.message.substr(0, 200);
    return std::nullopt;
  }
  if (stream_gone_ || stream_error_ || !resp.ok()) return WatchOutcome(resp, transport_error);
  // A clean close before the end bookmark: a server that took the request for a plain watch.
  stream_fallback_ = "the watch ended before the end bookmark";
  return std::nullopt;
}

Reflector::Outcome Reflector::WatchOutcome(const HttpResponse& resp, bool transport_error) {
  if (stream_gone_) {
    Restart("gone");
    LogInfo("watch resourceVersion expired; relisting", {{"resource", opts_.name}});
    return Outcome::kGone;
  }
  if (stream_error_) {
    Restart("error_event");
    retry_after_s_ = -1;
    return Outcome::kRetry;
  }
  if (resp.error.empty() && resp.status == 410) {
    Restart("gone");
    LogInfo("watch answered 410 Gone; relisting", {{"resource", opts_.name}});
    return Outcome::kGone;
  }
  if (!resp.error.empty() || resp.status < 200 || resp.status >= 300) {
    const std::string reason = FailureReason(resp);
    Restart(reason);
    if (!transport_error) LogFailure("watch failed", reason, resp);
    return Outcome::kRetry;
  }
  retry_after_s_ = -1;
  // A clean close: the server's timeoutSeconds, or a server (or a proxy in front of it) that
  // closes at once after some bytes (an HTML page, a bad line, a lone BOOKMARK). Only a watch
  // that brought real events or stayed open for short_watch_ms is resumed at once.
  const int64_t lasted_ms = NowMs() - stream_start_ms_;
  if (stream_real_events_ == 0 && lasted_ms < opts_.short_watch_ms) {
    Restart("short_watch");
    LogDebug("watch closed without events within a second; backing off",
             {{"resource", opts_.name},
              {"ms", std::to_string(lasted_ms)},
              {"lines", std::to_string(stream_lines_)}});
    return Outcome::kRetry;
  }
  Restart("closed");
  return Outcome::kClosed;
}

void Reflector::OnWatchDone(HttpResponse resp) {
  watch_id_ = 0;
  if (stopping_ || resp.cancelled) return;
  const bool transport_error = ReportTransport(resp);
  if (!stream_fallback_.empty()) {
    FallBack(stream_fallback_);
    return;
  }
  if (initial_) {
    std::optional<Outcome> failed = InitialFailure(resp, transport_error);
    loop_->CancelTimer(idle_timer_);
    idle_timer_ = 0;
    initial_ = false;
    if (!failed) {
      FallBack(stream_fallback_);
      return;
    }
    listing_ = false;
    handler_.OnListAbort();
    Next(*failed);
    return;
  }
  Next(WatchOutcome(resp, transport_error));
}

}  // namespace podwait
