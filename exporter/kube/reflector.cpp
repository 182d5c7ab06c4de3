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

WatchListSupport::State WatchListSupport::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = states_.find(key);
  return it == states_.end() ? State::kUnknown : it->second;
}

bool WatchListSupport::Set(const std::string& key, State state) {
  std::lock_guard<std::mutex> lock(mu_);
  State& s = states_[key];
  if (s == state) return false;
  s = state;
  return true;
}

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
      item_skip_(opts_.skip_fields),
      event_skip_(opts_.skip_fields, "object"),
      splitter_(opts_.max_line_bytes) {
  if (observer_ == nullptr) observer_ = std::make_unique<NoObserver>();
  if (ctx_.loop) {
    loop_ = ctx_.loop.get();
  } else {
    own_loop_ = std::make_unique<KubeLoop>(ctx_.env.async_http);
    loop_ = own_loop_.get();
  }
  ctx_.sync->Register(opts_.name);
}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  if (started_) return;
  started_ = true;
  loop_->Start();
  loop_->Post([this] {
    stopping_ = false;
    Begin();
  });
}

void Reflector::Stop() {
  if (!started_) return;
  started_ = false;
  loop_->Call([this] { CancelAll(); });
  if (own_loop_) own_loop_->Stop();
}

void Reflector::CancelAll() {
  stopping_ = true;
  loop_->CancelTimer(timer_);
  loop_->CancelTimer(idle_timer_);
  timer_ = idle_timer_ = 0;
  if (watch_id_ != 0) loop_->http().Cancel(watch_id_);
  watch_id_ = 0;
  if (page_) loop_->http().Cancel(page_->id);
  page_.reset();
  DropPrefetch();
  if (listing_) {
    listing_ = false;
    initial_ = false;
    handler_.OnListAbort();
  }
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

void Reflector::UpdateObjects() {
  if (auto n = handler_.ObjectCount()) observer_->OnObjects(*n);
}

void Reflector::CountParseError(const std::string& what) {
  observer_->OnParseError();
  // At most one warning per 10 s per reflector: a stream of bad lines must not flood the log.
  const int64_t now = NowMs();
  if (now - last_parse_warn_ms_ >= 10 * kSecond) {
    last_parse_warn_ms_ = now;
    LogWarn("skipped a malformed object", {{"resource", opts_.name}, {"error", what}});
  }
}

void Reflector::Restart(const std::string& reason) { observer_->OnRestart(reason); }

// ---------------------------------------------------------------------------------------------
// The steps

void Reflector::Begin() {
  if (ctx_.served && ctx_.served->Serves(opts_.path) == false && handler_.OnNotFound()) {
    // Learned once from discovery: no request at all.
    Disable(DisabledBy::kNotServed);
    return;
  }
  Attempt();
}

void Reflector::Attempt() {
  timer_ = 0;
  if (stopping_) return;
  if (!need_list_) {
    StartWatch(false);
  } else if (UseWatchList()) {
    StartWatch(true);
  } else {
    StartList();
  }
}

void Reflector::Next(Outcome outcome) {
  switch (outcome) {
    case Outcome::kNotFound:
      if (handler_.OnNotFound()) {
        // An optional input: the exporter's one line of inputs that are off names it.
        LogDebug("resource not served by the API server; not watching it",
                 {{"resource", opts_.name}, {"path", opts_.path}});
        Disable(DisabledBy::kNotServed);
        return;
      }
      Restart("not_found");
      retry_after_s_ = -1;
      BackOff();
      return;
    case Outcome::kForbidden:
      // Only for a handler that takes 403 as "off" (an optional input): named in the one line.
      LogDebug(
          "not permitted to list the resource; not watching it (grant list and watch to use it)",
          {{"resource", opts_.name}, {"path", opts_.path}});
      Disable(DisabledBy::kForbidden);
      return;
    case Outcome::kClosed:
      // Resume at once from the last resourceVersion (as a new step of the loop).
      loop_->Post([this] {
        if (!stopping_) Attempt();
      });
      return;
    case Outcome::kGone:
      // The relist goes through the backoff too: a server that answers every watch with 410
      // must not get a full list each time.
      observer_->OnRelist();
      need_list_ = true;
      BackOff();
      return;
    case Outcome::kRetry:
      BackOff();
      return;
  }
}

void Reflector::WithBudget(std::function<void()> send) {
  if (!ctx_.budget) {
    send();
    return;
  }
  if (first_request_) {
    first_request_ = false;
    ctx_.budget->TakeGranted();
    send();
    return;
  }
  const int64_t wait = ctx_.budget->Reserve(NowMs());
  if (wait <= 0) {
    send();
    return;
  }
  timer_ = loop_->After(wait, [this, send = std::move(send)] {
    timer_ = 0;
    if (!stopping_) send();
  });
}

void Reflector::Disable(DisabledBy why) {
  disabled_by_ = why;
  disabled_ = true;
  observer_->OnDisabled();
  ctx_.sync->Unregister(opts_.name);
}

std::string Reflector::WatchListKey() const {
  // The path without its namespace: /api/v1/namespaces/a/pods -> /api/v1/pods.
  std::string key = opts_.path;
  const size_t ns = key.find("/namespaces/");
  if (ns != std::string::npos) {
    const size_t end = key.find('/', ns + std::string_view("/namespaces/").size());
    if (end != std::string::npos) key.erase(ns, end - ns);
  }
  return key;
}

bool Reflector::UseWatchList() const {
  return opts_.watch_list && !page_next_sync_ &&
         (!ctx_.watch_list ||
          ctx_.watch_list->Get(WatchListKey()) != WatchListSupport::State::kUnsupported);
}

void Reflector::BackOff() {
  const int64_t now = NowMs();
  if (now - last_backoff_ms_ >= opts_.backoff_reset_ms) backoff_.Reset();
  last_backoff_ms_ = now;
  observer_->OnSynced(false);
  if (++failures_in_a_row_ >= opts_.unready_after_failures && synced_once_ && !out_of_sync_) {
    out_of_sync_ = true;
    ctx_.sync->MarkOutOfSync(opts_.name);
    LogWarn("out of sync: the list or watch keeps failing",
            {{"resource", opts_.name}, {"failures", std::to_string(failures_in_a_row_)}});
  }
  const int64_t delay = backoff_.Next(retry_after_s_);
  retry_after_s_ = -1;
  timer_ = loop_->After(delay, [this] { Attempt(); });
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

bool Reflector::ReportTransport(const HttpResponse& response) {
  if (!ctx_.server_log || response.cancelled) return false;
  const int64_t now = NowMs();
  // No answer, or a stream that broke after its 2xx (a dropped connection: every watch on it
  // fails alike, one line for all of them).
  const bool transport =
      !response.error.empty() &&
      (response.status == 0 || (response.status >= 200 && response.status < 300));
  if (!transport) {
    ctx_.server_log->OnAnswer(opts_.name, ctx_.endpoint.api_url, now);
    return false;
  }
  ctx_.server_log->OnTransportError(opts_.name, ctx_.endpoint.api_url, response.error, now);
  return true;
}

void Reflector::LogFailure(const char* what, const std::string& reason,
                           const HttpResponse& response) {
  LogWarn(what, {{"resource", opts_.name},
                 {"reason", reason},
                 {"status", std::to_string(response.status)},
                 {"error", response.error}});
}

std::string Reflector::Url(bool watch, bool initial, const std::string& continue_token) const {
  std::string url = ctx_.endpoint.api_url + opts_.path + "?";
  if (initial) {
    // KEP-3157: the state as ADDED events from the watch cache, then the end bookmark.
    url +=
        "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
        "&allowWatchBookmarks=true&timeoutSeconds=" +
        std::to_string(std::max<int64_t>(1, opts_.watch_timeout / kSecond));
  } else if (watch) {
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

bool Reflector::InScope(const rapidjson::Value& object) const {
  if (opts_.only_namespaces.empty()) return true;
  const rapidjson::Value* metadata = json::Member(object, "metadata");
  const rapidjson::Value* ns = metadata != nullptr ? json::Member(*metadata, "namespace") : nullptr;
  if (ns == nullptr || !ns->IsString()) return false;
  return std::binary_search(opts_.only_namespaces.begin(), opts_.only_namespaces.end(),
                            std::string_view(ns->GetString(), ns->GetStringLength()));
}

void Reflector::ListItem(const rapidjson::Value& object) {
  if (!object.IsObject()) {
    ++list_items_;
    CountParseError("list item is not an object");
  } else if (InScope(object)) {
    ++list_items_;
    if (!handler_.OnListItem(object)) CountParseError("list item rejected by its parser");
  }
}

void Reflector::ListItemText(std::string& text) {
  // Each item is its own document: one that does not parse (nested past the limit, broken
  // inside) is skipped alone, and the rest of the page is kept.
  const std::string error = json::ParseInsitu(text.data(), &item_doc_, item_skip_);
  if (!error.empty()) {
    ++list_items_;
    CountParseError("list item: " + error);
    return;
  }
  ListItem(item_doc_);
}

void Reflector::ListSucceeded() {
  ++lists_;
  page_next_sync_ = false;
  listing_ = false;
  need_list_ = false;
  // Fresh, but not yet healthy again: that takes a watch that stays open (Healthy()).
  if (!out_of_sync_) observer_->OnSynced(true);
  if (!synced_once_.exchange(true)) ctx_.sync->MarkSynced(opts_.name);
}

}  // namespace podwait
