#include "exporter/kube/reflector.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <unordered_set>

#include "exporter/common/json.h"
#include "exporter/common/log.h"

namespace podwait {
namespace {

class NoObserver final : public ReflectorObserver {
 public:
  void OnWatchEvent(WatchEventType, Timestamp) override {}
  void OnRestart(const std::string&) override {}
  void OnRelist() override {}
  void OnSynced(bool) override {}
  void OnObjects(size_t) override {}
  void OnParseError() override {}
};

uint64_t RandomSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

std::vector<ReflectorOptions> ReflectorOptionsPerNamespace(
    const ReflectorOptions& base, const std::vector<std::string>& namespaces,
    const std::string& resource, std::string_view api_prefix, size_t cluster_wide_above) {
  std::vector<ReflectorOptions> out;
  auto add = [&](const std::string& ns) {
    ReflectorOptions o = base;
    o.resource = resource;
    o.path = ResourcePath(api_prefix, ns, resource);
    o.name = ns.empty() ? resource : resource + "/" + ns;
    out.push_back(std::move(o));
  };
  if (namespaces.empty()) {
    add("");
  } else if (cluster_wide_above > 0 && namespaces.size() > cluster_wide_above) {
    add("");
    out.back().only_namespaces = namespaces;
    std::sort(out.back().only_namespaces.begin(), out.back().only_namespaces.end());
  } else {
    for (const auto& ns : namespaces) add(ns);
  }
  return out;
}

std::string ReflectorNamespace(const ReflectorOptions& options) {
  const auto slash = options.name.find('/');
  return slash == std::string::npos ? std::string() : options.name.substr(slash + 1);
}

Reflector::Reflector(const KubeContext& ctx, ReflectorOptions options, ReflectorHandler& handler)
    : ctx_(ctx),
      opts_([&] {
        if (options.name.empty()) options.name = options.resource;
        return std::move(options);
      }()),
      handler_(handler),
      backoff_(opts_.backoff_initial_ms, opts_.backoff_max_ms,
               opts_.seed != 0 ? opts_.seed : RandomSeed()),
      observer_(ctx.observers ? ctx.observers(opts_.resource) : nullptr),
      list_skip_(opts_.skip_fields, "items.[]"),
      event_skip_(opts_.skip_fields, "object"),
      splitter_(opts_.max_line_bytes) {
  if (observer_ == nullptr) observer_ = std::make_unique<NoObserver>();
  ctx_.sync->Register(opts_.name);
}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void Reflector::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    prefetch_cancel_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Reflector::resource_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_;
}

void Reflector::SetResourceVersion(std::string_view rv) {
  if (rv.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  rv_.assign(rv.data(), rv.size());
}

void Reflector::SleepMs(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_.load(); });
}

void Reflector::UpdateObjects() {
  if (auto n = handler_.ObjectCount()) observer_->OnObjects(*n);
}

void Reflector::CountParseError(const std::string& what) {
  observer_->OnParseError();
  // At most one warning per 10 s per reflector: a stream of bad lines must not flood the log.
  const int64_t now = ctx_.env.clock->MonotonicMs();
  if (now - last_parse_warn_ms_ >= 10 * kSecond) {
    last_parse_warn_ms_ = now;
    LogWarn("skipped a malformed object", {{"resource", opts_.name}, {"error", what}});
  }
}

void Reflector::Restart(const std::string& reason) { observer_->OnRestart(reason); }

void Reflector::BackOff() {
  const int64_t now = ctx_.env.clock->MonotonicMs();
  if (now - last_backoff_ms_ >= opts_.backoff_reset_ms) backoff_.Reset();
  last_backoff_ms_ = now;
  observer_->OnSynced(false);
  if (++failures_in_a_row_ >= opts_.unready_after_failures && synced_once_ && !out_of_sync_) {
    out_of_sync_ = true;
    ctx_.sync->MarkOutOfSync(opts_.name);
    LogWarn("out of sync: the list or watch keeps failing",
            {{"resource", opts_.name}, {"failures", std::to_string(failures_in_a_row_)}});
  }
  SleepMs(backoff_.Next(retry_after_s_));
  retry_after_s_ = -1;
}

void Reflector::Healthy() {
  failures_in_a_row_ = 0;
  observer_->OnSynced(true);
  if (!synced_once_.exchange(true) || out_of_sync_) {
    if (out_of_sync_) LogInfo("in sync again", {{"resource", opts_.name}});
    out_of_sync_ = false;
    ctx_.sync->MarkSynced(opts_.name);
  }
}

bool Reflector::WaitForBudget() {
  if (ctx_.budget) {
    const int64_t wait = ctx_.budget->Reserve(ctx_.env.clock->MonotonicMs());
    if (wait > 0) SleepMs(wait);
  }
  return !stop_;
}

bool Reflector::ReportTransport(const HttpResponse& response) {
  if (!ctx_.server_log || response.cancelled) return false;
  const int64_t now = ctx_.env.clock->MonotonicMs();
  if (response.error.empty() || response.status != 0) {
    ctx_.server_log->OnAnswer(opts_.name, ctx_.endpoint.api_url, now);
    return false;
  }
  ctx_.server_log->OnTransportError(opts_.name, ctx_.endpoint.api_url, response.error, now);
  return true;
}

std::string Reflector::Url(bool watch, const std::string& continue_token) const {
  std::string url = ctx_.endpoint.api_url + opts_.path + "?";
  if (watch) {
    url += "watch=true&allowWatchBookmarks=true&timeoutSeconds=" +
           std::to_string(std::max<int64_t>(1, opts_.watch_timeout / kSecond));
    url += "&resourceVersion=" + UrlEncode(resource_version());
  } else {
    url += "limit=" + std::to_string(opts_.page_size);
    if (!continue_token.empty()) url += "&continue=" + UrlEncode(continue_token);
  }
  if (!opts_.label_selector.empty()) url += "&labelSelector=" + UrlEncode(opts_.label_selector);
  if (!opts_.field_selector.empty()) url += "&fieldSelector=" + UrlEncode(opts_.field_selector);
  return url;
}

HttpRequest Reflector::NewRequest(std::string url) const {
  HttpRequest req;
  req.url = std::move(url);
  req.tls = ctx_.endpoint.tls;
  req.cancel = &stop_;
  req.headers.emplace_back("Accept", "application/json");
  if (ctx_.tokens != nullptr) {
    std::string token = ctx_.tokens->Token();
    if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
  }
  return req;
}

std::string Reflector::FailureReason(const HttpResponse& response) {
  retry_after_s_ = response.retry_after_s;
  if (!response.error.empty()) return response.timed_out ? "timeout" : "connection";
  if (response.status == 401) {
    if (ctx_.tokens != nullptr) ctx_.tokens->Invalidate();
    return "unauthorized";
  }
  if (response.status == 429) return "throttled";
  if (response.status >= 500) return "server_error";
  return "http_error";
}

HttpRequest Reflector::PageRequest(const std::string& continue_token) const {
  HttpRequest req = NewRequest(Url(false, continue_token));
  req.timeout_ms = opts_.list_timeout;
  req.low_speed_time_s = std::max<int64_t>(1, opts_.list_timeout / kSecond / 2);
  return req;
}

void Reflector::StartPrefetch(const std::string& continue_token) {
  // Only with a token of the request budget at hand; otherwise the page is asked for (after the
  // wait) when it is needed. TryTake, not Reserve: a reservation for a prefetch that is not sent
  // would charge the page twice and halve the list's pace under the budget.
  if (ctx_.budget && !ctx_.budget->TryTake(ctx_.env.clock->MonotonicMs())) return;
  if (!prefetch_client_) prefetch_client_ = ctx_.env.http();
  prefetch_token_ = continue_token;
  prefetch_cancel_ = stop_.load();
  HttpRequest req = PageRequest(continue_token);
  req.cancel = &prefetch_cancel_;
  prefetch_ = std::async(std::launch::async, [this, req = std::move(req)] {
    return prefetch_client_->Get(req, opts_.max_page_bytes);
  });
}

void Reflector::DropPrefetch() {
  if (!prefetch_.valid()) return;
  prefetch_cancel_ = true;
  prefetch_.wait();
  prefetch_ = {};
}

bool Reflector::InScope(const rapidjson::Value& object) const {
  if (opts_.only_namespaces.empty()) return true;
  const rapidjson::Value* metadata = json::Member(object, "metadata");
  const rapidjson::Value* ns = metadata != nullptr ? json::Member(*metadata, "namespace") : nullptr;
  if (ns == nullptr || !ns->IsString()) return false;
  return std::binary_search(opts_.only_namespaces.begin(), opts_.only_namespaces.end(),
                            std::string_view(ns->GetString(), ns->GetStringLength()));
}

size_t Reflector::ListItems(const rapidjson::Value& page) {
  size_t items = 0;
  const rapidjson::Value* list_items = json::Member(page, "items");
  if (list_items != nullptr && list_items->IsArray()) {
    for (const auto& item : list_items->GetArray()) {
      ++items;
      if (!item.IsObject()) {
        CountParseError("list item is not an object");
      } else if (!InScope(item)) {
        --items;  // another namespace's
      } else if (!handler_.OnListItem(item)) {
        CountParseError("list item rejected by its parser");
      }
    }
  } else if (list_items != nullptr && !list_items->IsNull()) {
    CountParseError("list items is not an array");
  }
  return items;
}

Reflector::Outcome Reflector::List() {
  handler_.OnListBegin();
  std::string continue_token;
  std::string rv;
  size_t items = 0;
  int64_t pages = 0;
  // Hashes of the continue tokens of this list: a server that hands one out twice would page
  // forever.
  std::unordered_set<size_t> tokens_seen;
  const int64_t start = ctx_.env.clock->MonotonicMs();
  for (;;) {
    if (stop_) {
      DropPrefetch();
      handler_.OnListAbort();
      return Outcome::kStopped;
    }
    // The page after continue_token: already asked for while the previous page was parsed, or
    // asked for now.
    HttpResponse resp;
    if (prefetch_.valid() && prefetch_token_ == continue_token) {
      resp = prefetch_.get();
    } else {
      DropPrefetch();
      if (!WaitForBudget()) {
        handler_.OnListAbort();
        return Outcome::kStopped;
      }
      resp = client_->Get(PageRequest(continue_token), opts_.max_page_bytes);
    }
    ++pages;
    if (resp.cancelled || stop_) {
      handler_.OnListAbort();
      return Outcome::kStopped;
    }
    if (resp.error.empty() && resp.status == 404) {
      handler_.OnListAbort();
      return Outcome::kNotFound;
    }
    if (resp.error.empty() && resp.status == 403 && handler_.OnForbidden()) {
      handler_.OnListAbort();
      return Outcome::kForbidden;
    }
    const bool transport_error = ReportTransport(resp);
    if (resp.error.empty() && resp.status == 410 && !continue_token.empty()) {
      // The continue token expired between pages: the snapshot is gone, list again from the
      // start (after a backoff step: a server that always says so must not be paged at once).
      DropPrefetch();
      Restart("expired_continue");
      LogInfo("list continue token expired; listing again", {{"resource", opts_.name}});
      handler_.OnListAbort();
      return Outcome::kRetry;
    }
    if (!resp.ok()) {
      const std::string reason = FailureReason(resp);
      Restart(reason);
      handler_.OnListAbort();
      // A server that cannot be reached is logged once for all resources (ApiServerLog).
      if (!transport_error) {
        LogWarn("list failed", {{"resource", opts_.name},
                                {"reason", reason},
                                {"status", std::to_string(resp.status)},
                                {"error", resp.error}});
      }
      return Outcome::kRetry;
    }
    // Ask for the next page before parsing this one, so that the server sends it meanwhile: its
    // continue token is in this page's metadata, which the API server writes before the items.
    // A page whose metadata comes later is parsed first and the next one asked for after it.
    if (std::optional<std::string> next = json::PeekMemberString(resp.body, "metadata", "continue");
        next && !next->empty() && pages < opts_.max_list_pages &&
        tokens_seen.count(std::hash<std::string>()(*next)) == 0) {
      StartPrefetch(*next);
    }
    // One page DOM at a time, parsed in place in the response buffer, without the subtrees no
    // handler reads; the DOM and the buffer go at the end of this iteration.
    rapidjson::Document doc;
    const std::string parse_error = json::ParseInsitu(resp.body.data(), &doc, list_skip_);
    if (!parse_error.empty() || !doc.IsObject()) {
      DropPrefetch();
      CountParseError(parse_error.empty() ? "list page is not a JSON object"
                                          : "list page: " + parse_error);
      Restart("parse");
      retry_after_s_ = -1;
      handler_.OnListAbort();
      return Outcome::kRetry;
    }
    items += ListItems(doc);
    if (const rapidjson::Value* meta = json::Member(doc, "metadata")) {
      rv = std::string(StringMember(*meta, "resourceVersion"));
      continue_token = std::string(StringMember(*meta, "continue"));
    } else {
      continue_token.clear();
    }
    if (continue_token.empty()) break;
    const bool repeated = !tokens_seen.insert(std::hash<std::string>()(continue_token)).second;
    if (repeated || pages >= opts_.max_list_pages) {
      DropPrefetch();
      Restart(repeated ? "continue_loop" : "too_many_pages");
      LogWarn(repeated ? "list failed: the server repeated a continue token"
                       : "list failed: more pages than the limit",
              {{"resource", opts_.name},
               {"pages", std::to_string(pages)},
               {"max_pages", std::to_string(opts_.max_list_pages)}});
      handler_.OnListAbort();
      return Outcome::kRetry;
    }
  }
  DropPrefetch();  // a peeked token that was not the page's (never from a real API server)
  handler_.OnListEnd(rv);
  SetResourceVersion(rv);
  if (rv.empty()) {
    // Without a resourceVersion a watch would start "now" and could miss changes; the list is
    // still applied, the watch starts from whatever the server considers current.
    LogWarn("list without a resourceVersion", {{"resource", opts_.name}});
  }
  UpdateObjects();
  LogInfo("listed", {{"resource", opts_.name},
                     {"items", std::to_string(items)},
                     {"resource_version", rv},
                     {"ms", std::to_string(ctx_.env.clock->MonotonicMs() - start)}});
  return Outcome::kOk;
}

void Reflector::HandleWatchLine(std::string_view line) {
  ++stream_lines_;
  const Result<WatchEvent> parsed = ParseWatchEvent(line, &event_doc_, event_skip_);
  if (!parsed.ok()) {
    CountParseError(parsed.error);
    return;
  }
  const WatchEvent& ev = *parsed;
  observer_->OnWatchEvent(ev.type, ctx_.env.clock->Now());
  const bool real = ev.type == WatchEventType::kAdded || ev.type == WatchEventType::kModified ||
                    ev.type == WatchEventType::kDeleted;
  if (real) ++stream_real_events_;
  if (!stream_healthy_ && ev.type != WatchEventType::kError &&
      (real || ctx_.env.clock->MonotonicMs() - stream_start_ms_ >= opts_.short_watch_ms)) {
    stream_healthy_ = true;
    Healthy();
  }
  switch (ev.type) {
    case WatchEventType::kBookmark:
      SetResourceVersion(ObjectResourceVersion(*ev.object));
      return;
    case WatchEventType::kError: {
      const ApiStatus status = ParseApiStatus(*ev.object);
      if (IsResourceExpired(status)) {
        stream_gone_ = true;
      } else {
        stream_error_ = true;
        LogWarn("watch ERROR event", {{"resource", opts_.name},
                                      {"code", std::to_string(status.code)},
                                      {"reason", status.reason},
                                      {"message", status.message}});
      }
      return;
    }
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

Reflector::Outcome Reflector::Watch() {
  HttpRequest req = NewRequest(Url(true, {}));
  // The server ends the stream after timeoutSeconds; the client deadline is a safety net.
  req.timeout_ms = opts_.watch_timeout + 30 * kSecond;
  req.low_speed_time_s = opts_.idle_timeout_s;
  splitter_.Reset();
  stream_gone_ = false;
  stream_error_ = false;
  stream_lines_ = 0;
  stream_real_events_ = 0;
  stream_healthy_ = false;
  uint64_t oversized_seen = splitter_.oversized();
  if (!WaitForBudget()) return Outcome::kStopped;
  stream_start_ms_ = ctx_.env.clock->MonotonicMs();
  watches_++;
  HttpResponse resp = client_->Stream(req, [&](std::string_view chunk) {
    splitter_.Feed(chunk, [this](std::string_view line) {
      if (!stream_gone_ && !stream_error_) HandleWatchLine(line);
    });
    for (; oversized_seen < splitter_.oversized(); ++oversized_seen) {
      CountParseError("watch line longer than the limit");
    }
    return !stop_ && !stream_gone_ && !stream_error_;
  });
  if (stop_ || resp.cancelled) return Outcome::kStopped;
  const bool transport_error = ReportTransport(resp);
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
    if (!transport_error) {
      LogWarn("watch failed", {{"resource", opts_.name},
                               {"reason", reason},
                               {"status", std::to_string(resp.status)},
                               {"error", resp.error}});
    }
    return Outcome::kRetry;
  }
  retry_after_s_ = -1;
  // A clean close: the server's timeoutSeconds, or a server (or a proxy in front of it) that
  // closes at once after some bytes (an HTML page, a bad line, a lone BOOKMARK). Only a watch
  // that brought real events or stayed open for short_watch_ms is resumed at once.
  const int64_t lasted_ms = ctx_.env.clock->MonotonicMs() - stream_start_ms_;
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

void Reflector::Disable() {
  disabled_ = true;
  observer_->OnDisabled();
  ctx_.sync->Unregister(opts_.name);
}

void Reflector::Run() {
  client_ = ctx_.env.http();
  bool need_list = true;
  while (!stop_) {
    if (need_list) {
      const Outcome o = List();
      if (o == Outcome::kStopped) break;
      if (o == Outcome::kOk) {
        ++lists_;
        need_list = false;
        // Fresh, but not yet healthy again: that takes a watch that stays open (Healthy()).
        if (!out_of_sync_) observer_->OnSynced(true);
        if (!synced_once_.exchange(true)) ctx_.sync->MarkSynced(opts_.name);
        continue;
      }
      if (o == Outcome::kForbidden) {
        LogWarn(
            "not permitted to list the resource; not watching it (grant list and watch to use it)",
            {{"resource", opts_.name}, {"path", opts_.path}});
        Disable();
        return;
      }
      if (o == Outcome::kNotFound) {
        if (handler_.OnNotFound()) {
          LogInfo("resource not served by the API server; not watching it",
                  {{"resource", opts_.name}, {"path", opts_.path}});
          Disable();
          return;
        }
        Restart("not_found");
        retry_after_s_ = -1;
      }
      BackOff();
      continue;
    }
    const Outcome o = Watch();
    switch (o) {
      case Outcome::kStopped:
        return;
      case Outcome::kClosed:
        break;  // resume at once from the last resourceVersion
      case Outcome::kGone:
        // The relist goes through the backoff too: a server that answers every watch with
        // 410 must not get a full list each time.
        observer_->OnRelist();
        need_list = true;
        BackOff();
        break;
      default:
        BackOff();
        break;
    }
  }
}

}  // namespace podwait
