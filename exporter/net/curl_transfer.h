#pragma once

// Internal to exporter/net: the setup and the result of one libcurl transfer, shared by the
// blocking client (one easy handle per thread) and the multi client (many transfers on one thread),
// so both speak the same options (http/https only, timeouts, TLS from files or memory, body limits,
// cancellation) and describe failures the same way.

#include <curl/curl.h>

#include <functional>
#include <string>
#include <string_view>

#include "exporter/net/http_client.h"

namespace podwait::curl_transfer {

void GlobalInitOnce();

// The per-transfer state the callbacks fill. Lives as long as the transfer.
struct State {
  const HttpRequest* request = nullptr;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  std::string* body = nullptr;
  size_t max_body = 0;
  bool body_too_large = false;
  bool stopped_by_callback = false;
  bool cancelled = false;
  int status = 0;
  bool status_known = false;
  CURL* curl = nullptr;
  int64_t retry_after_s = -1;
  std::string content_type;
  char detail[CURL_ERROR_SIZE] = {};
  curl_slist* headers = nullptr;
};

// Resets `curl` and sets every option of `request` on it, with `st` (which must outlive the
// transfer) receiving the callbacks; `st->request`, `st->on_data`, `st->body` and `st->max_body`
// are set by the caller first. An error for a URL whose scheme is refused.
Result<bool> Configure(CURL* curl, State* st);

// Fills *response from the finished transfer and frees what Configure allocated.
void Finish(CURL* curl, CURLcode rc, State* st, HttpResponse* response);

}  // namespace podwait::curl_transfer
