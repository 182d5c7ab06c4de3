// The reflector's paged list (the sync where the watch-list is not served): each page streamed
// and split into items as it arrives (kube/list_stream.h), the next page asked for as soon as the
// current one names it.

#include <functional>

#include "exporter/common/json.h"
#include "exporter/common/log.h"
#include "exporter/kube/reflector.h"

namespace podwait {

HttpRequest Reflector::PageRequest(const std::string& continue_token) const {
  HttpRequest req = NewRequest(Url(false, false, continue_token));
  req.timeout_ms = opts_.list_timeout;
  req.low_speed_time_s = std::max<int64_t>(1, opts_.list_timeout / kSecond / 2);
  return req;
}

void Reflector::StartList() {
  handler_.OnListBegin();
  listing_ = true;
  list_items_ = 0;
  list_pages_ = 0;
  list_start_ms_ = NowMs();
  tokens_seen_.clear();
  RequestPage("");
}

void Reflector::RequestPage(const std::string& token) {
  if (prefetch_ && prefetch_->token == token) {
    // Asked for while the previous page was read: what arrived meanwhile is read now.
    page_ = std::move(prefetch_);
    page_->current = true;
    std::string buffered = std::move(page_->buffered);
    page_->buffered = {};
    const bool fed = buffered.empty() || FeedPage(*page_, buffered);
    if (!fed && !page_->finished) {
      loop_->http().Cancel(page_->id);
      page_->finished = true;
    }
    if (page_->finished) HandlePage(std::move(page_));
    return;
  }
  DropPrefetch();
  WithBudget([this, token] { page_ = StartPage(token, true); });
}

std::unique_ptr<Reflector::Page> Reflector::StartPage(const std::string& token, bool current) {
  auto page = std::make_unique<Page>(opts_.max_line_bytes);
  page->token = token;
  page->current = current;
  Page* raw = page.get();
  page->id = loop_->http().Stream(
      PageRequest(token), [this, raw](std::string_view chunk) { return OnPageData(raw, chunk); },
      [this, raw](HttpResponse response) { OnPageDone(raw, std::move(response)); });
  return page;
}

bool Reflector::OnPageData(Page* page, std::string_view chunk) {
  page->bytes += chunk.size();
  if (page->bytes > opts_.max_page_bytes) {
    page->too_large = true;
    return false;
  }
  if (!page->current) {
    page->buffered.append(chunk);
    return true;
  }
  return FeedPage(*page, chunk);
}

bool Reflector::FeedPage(Page& page, std::string_view chunk) {
  return page.splitter.Feed(
      chunk, [this, &page](std::string& text) { PageMetadata(page, text); },
      [this](std::string& text) { ListItemText(text); });
}

void Reflector::PageMetadata(Page& page, std::string& text) {
  rapidjson::Document meta;
  if (!json::ParseInsitu(text.data(), &meta).empty() || !meta.IsObject()) return;
  page.rv = std::string(StringMember(meta, "resourceVersion"));
  page.next = std::string(StringMember(meta, "continue"));
  // Ask for the next page now, so that the server sends it while this one is read: its continue
  // token is in this page's metadata, which the API server writes before the items.
  if (!page.next.empty() && list_pages_ + 1 < opts_.max_list_pages &&
      tokens_seen_.count(std::hash<std::string>()(page.next)) == 0) {
    StartPrefetch(page.next);
  }
}

void Reflector::OnPageDone(Page* page, HttpResponse response) {
  page->response = std::move(response);
  page->finished = true;
  if (!page->current) return;  // read when it is the page asked for
  HandlePage(std::move(page_));
}

void Reflector::StartPrefetch(const std::string& token) {
  if (prefetch_) return;
  // Only with a token of the request budget at hand; otherwise the page is asked for (after the
  // wait) when it is needed. TryTake, not Reserve: a reservation for a prefetch that is not sent
  // would charge the page twice and halve the list's pace under the budget.
  if (ctx_.budget && !ctx_.budget->TryTake(NowMs())) return;
  prefetch_ = StartPage(token, false);
}

void Reflector::DropPrefetch() {
  if (!prefetch_) return;
  if (!prefetch_->finished) loop_->http().Cancel(prefetch_->id);
  prefetch_.reset();
}

std::optional<Reflector::Outcome> Reflector::PageFailure(Page& page) {
  HttpResponse& resp = page.response;
  if (resp.error.empty() && resp.status == 404) return Outcome::kNotFound;
  if (resp.error.empty() && resp.status == 403 && handler_.OnForbidden()) {
    return Outcome::kForbidden;
  }
  const bool transport_error = ReportTransport(resp);
  if (resp.error.empty() && resp.status == 410 && !page.token.empty()) {
    // The continue token expired between pages: the snapshot is gone, list again from the
    // start (after a backoff step: a server that always says so must not be paged at once).
    Restart("expired_continue");
    LogInfo("list continue token expired; listing again", {{"resource", opts_.name}});
    return Outcome::kRetry;
  }
  if (page.too_large) {
    Restart("too_large");
    LogWarn("list failed: a page larger than the limit",
            {{"resource", opts_.name}, {"max_bytes", std::to_string(opts_.max_page_bytes)}});
    return Outcome::kRetry;
  }
  if (page.splitter.error().empty() && !resp.ok()) {
    const std::string reason = FailureReason(resp);
    Restart(reason);
    // A server that cannot be reached is logged once for all resources (ApiServerLog).
    if (!transport_error) LogFailure("list failed", reason, resp);
    return Outcome::kRetry;
  }
  if (!page.splitter.Finish()) {
    CountParseError("list page: " + page.splitter.error());
    Restart("parse");
    retry_after_s_ = -1;
    return Outcome::kRetry;
  }
  for (uint64_t i = 0; i < page.splitter.oversized(); ++i) {
    CountParseError("list item longer than the limit");
  }
  return std::nullopt;
}

void Reflector::HandlePage(std::unique_ptr<Page> page) {
  ++list_pages_;
  if (std::optional<Outcome> failed = PageFailure(*page)) {
    FailList(*failed);
    return;
  }
  if (page->next.empty()) {
    FinishList(page->rv);
    return;
  }
  const bool repeated = !tokens_seen_.insert(std::hash<std::string>()(page->next)).second;
  if (repeated || list_pages_ >= opts_.max_list_pages) {
    Restart(repeated ? "continue_loop" : "too_many_pages");
    LogWarn(repeated ? "list failed: the server repeated a continue token"
                     : "list failed: more pages than the limit",
            {{"resource", opts_.name},
             {"pages", std::to_string(list_pages_)},
             {"max_pages", std::to_string(opts_.max_list_pages)}});
    FailList(Outcome::kRetry);
    return;
  }
  RequestPage(page->next);
}

void Reflector::FinishList(const std::string& rv) {
  DropPrefetch();  // a token that was not the next page's (never from a real API server)
  CompleteSync(rv);
  Attempt();
}

void Reflector::CompleteSync(const std::string& rv) {
  handler_.OnListEnd(rv);
  SetResourceVersion(rv);
  if (rv.empty()) {
    // Without a resourceVersion a watch would start "now" and could miss changes; the list is
    // still applied, the watch starts from whatever the server considers current.
    LogWarn("list without a resourceVersion", {{"resource", opts_.name}});
  }
  UpdateObjects();
  LogInfo("listed", {{"resource", opts_.name},
                     {"items", std::to_string(list_items_)},
                     {"resource_version", rv},
                     {"ms", std::to_string(NowMs() - list_start_ms_)}});
  ListSucceeded();
}

void Reflector::FailList(Outcome outcome) {
  DropPrefetch();
  if (page_) {
    if (!page_->finished) loop_->http().Cancel(page_->id);
    page_.reset();
  }
  listing_ = false;
  handler_.OnListAbort();
  Next(outcome);
}

}  // namespace podwait
