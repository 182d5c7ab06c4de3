#include <curl/curl.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "exporter/net/async_http.h"
#include "exporter/net/curl_transfer.h"

namespace podwait {
namespace {

class CurlMultiHttp final : public AsyncHttp {
 public:
  CurlMultiHttp() {
    curl_transfer::GlobalInitOnce();
    multi_ = curl_multi_init();
    share_ = curl_share_init();
    // One thread uses the share (the one calling Run), so it needs no lock callbacks.
    if (share_ != nullptr) curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~CurlMultiHttp() override {
    for (auto& [curl, transfer] : active_) {
      curl_multi_remove_handle(multi_, curl);
      HttpResponse ignored;
      curl_transfer::Finish(curl, CURLE_ABORTED_BY_CALLBACK, &transfer->st, &ignored);
      curl_easy_cleanup(curl);
    }
    for (CURL* curl : idle_) curl_easy_cleanup(curl);
    if (multi_ != nullptr) curl_multi_cleanup(multi_);
    if (share_ != nullptr) curl_share_cleanup(share_);
  }
  CurlMultiHttp(const CurlMultiHttp&) = delete;
  CurlMultiHttp& operator=(const CurlMultiHttp&) = delete;

  void Get(HttpRequest request, size_t max_body, Done done) override {
    auto t = std::make_unique<Transfer>();
    t->request = std::move(request);
    t->done = std::move(done);
    t->st.request = &t->request;
    t->st.body = &t->response.body;
    t->st.max_body = max_body;
    CURL* curl = nullptr;
    if (!idle_.empty()) {
      curl = idle_.back();
      idle_.pop_back();
    } else {
      curl = curl_easy_init();
    }
    if (multi_ == nullptr || curl == nullptr) {
      t->response.error = "curl initialisation failed";
      if (curl != nullptr) idle_.push_back(curl);
      finished_.push_back(std::move(t));
      return;
    }
    if (Result<bool> configured = curl_transfer::Configure(curl, &t->st); !configured.ok()) {
      t->response.error = std::move(configured.error);
      idle_.push_back(curl);
      finished_.push_back(std::move(t));
      return;
    }
    if (share_ != nullptr) curl_easy_setopt(curl, CURLOPT_SHARE, share_);
    curl_multi_add_handle(multi_, curl);
    active_.emplace(curl, std::move(t));
  }

  void Run(int64_t wait_ms) override {
    if (Drive() > 0) return;
    curl_multi_poll(multi_, nullptr, 0, static_cast<int>(wait_ms), nullptr);
    Drive();
  }

  void Wake() override {
    if (multi_ != nullptr) curl_multi_wakeup(multi_);
  }

  void SetMaxConnections(size_t connections) override {
    if (multi_ != nullptr) {
      curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(connections));
    }
  }

  size_t in_flight() const override { return active_.size(); }

 private:
  struct Transfer {
    HttpRequest request;
    HttpResponse response;
    curl_transfer::State st;
    Done done;
  };

  // Performs what can be done without waiting and runs the completions; returns how many ran.
  size_t Drive() {
    if (multi_ != nullptr && !active_.empty()) {
      int running = 0;
      curl_multi_perform(multi_, &running);
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL* curl = msg->easy_handle;
        const CURLcode rc = msg->data.result;
        auto it = active_.find(curl);
        if (it == active_.end()) continue;
        std::unique_ptr<Transfer> t = std::move(it->second);
        active_.erase(it);
        curl_transfer::Finish(curl, rc, &t->st, &t->response);
        curl_multi_remove_handle(multi_, curl);
        idle_.push_back(curl);
        finished_.push_back(std::move(t));
      }
    }
    // A completion may start the next request (Get), which may finish at once: take the list.
    std::vector<std::unique_ptr<Transfer>> done = std::move(finished_);
    finished_.clear();
    for (auto& t : done) t->done(std::move(t->response));
    return done.size();
  }

  CURLM* multi_ = nullptr;
  CURLSH* share_ = nullptr;
  std::map<CURL*, std::unique_ptr<Transfer>> active_;
  std::vector<CURL*> idle_;  // easy handles to reuse
  std::vector<std::unique_ptr<Transfer>> finished_;
};

}  // namespace

std::unique_ptr<AsyncHttp> MakeCurlMultiHttp() { return std::make_unique<CurlMultiHttp>(); }

}  // namespace podwait
