#include <curl/curl.h>

#include <cctype>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exporter/net/async_http.h"
#include "exporter/net/curl_transfer.h"

namespace podwait {
namespace {

// The body limit of a streamed transfer's non-2xx answer (a Status, an HTML page).
constexpr size_t kStreamErrorBodyBytes = 1 << 20;
// Streams per HTTP/2 connection before libcurl opens another (the server's
// SETTINGS_MAX_CONCURRENT_STREAMS applies when lower).
constexpr long kMaxStreams = 1000;

bool IsHttps(std::string_view url) {
  constexpr std::string_view kHttps = "https://";
  if (url.size() < kHttps.size()) return false;
  for (size_t i = 0; i < kHttps.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(url[i])) != kHttps[i]) return false;
  }
  return true;
}

class CurlMultiHttp final : public AsyncHttp {
 public:
  CurlMultiHttp() {
    curl_transfer::GlobalInitOnce();
    multi_ = curl_multi_init();
    share_ = curl_share_init();
    // One thread uses the share (the one calling Run), so it needs no lock callbacks.
    if (share_ != nullptr) curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    if (multi_ != nullptr) {
      curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
      curl_multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS, kMaxStreams);
    }
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
    Add(std::move(request), max_body, nullptr, std::move(done));
  }

  TransferId Fetch(HttpRequest request, size_t max_body, Done done) override {
    return Add(std::move(request), max_body, nullptr, std::move(done));
  }

  TransferId Stream(HttpRequest request, Data on_data, Done done) override {
    return Add(std::move(request), kStreamErrorBodyBytes, std::move(on_data), std::move(done));
  }

  void Cancel(TransferId id) override {
    auto it = by_id_.find(id);
    if (it == by_id_.end()) return;
    Transfer* t = it->second;
    by_id_.erase(it);
    t->dropped = true;
    // Inside curl_multi_perform (a callback of another transfer) a handle must not be removed:
    // the dropped flag stops its callbacks, and Drive removes it once perform returns.
    if (in_perform_ || t->curl == nullptr) return;
    Remove(t->curl);
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
    TransferId id = 0;
    HttpRequest request;
    HttpResponse response;
    curl_transfer::State st;
    Data on_data;
    // Wraps on_data: a dropped transfer takes no more data.
    std::function<bool(std::string_view)> data_sink;
    Done done;
    CURL* curl = nullptr;  // while active
    bool dropped = false;
  };

  TransferId Add(HttpRequest request, size_t max_body, Data on_data, Done done) {
    auto t = std::make_unique<Transfer>();
    t->id = ++next_id_;
    t->request = std::move(request);
    t->done = std::move(done);
    t->st.request = &t->request;
    t->st.body = &t->response.body;
    t->st.max_body = max_body;
    if (on_data) {
      t->on_data = std::move(on_data);
      Transfer* raw = t.get();
      t->data_sink = [raw](std::string_view data) { return !raw->dropped && raw->on_data(data); };
      t->st.on_data = &t->data_sink;
    }
    by_id_[t->id] = t.get();
    const TransferId id = t->id;
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
      return id;
    }
    if (Result<bool> configured = curl_transfer::Configure(curl, &t->st); !configured.ok()) {
      t->response.error = std::move(configured.error);
      idle_.push_back(curl);
      finished_.push_back(std::move(t));
      return id;
    }
    if (share_ != nullptr) curl_easy_setopt(curl, CURLOPT_SHARE, share_);
    // Only https can multiplex (HTTP/2 through ALPN): a plain http transfer that waited would
    // wait for a connection that never multiplexes.
    if (IsHttps(t->request.url)) curl_easy_setopt(curl, CURLOPT_PIPEWAIT, 1L);
    t->curl = curl;
    active_.emplace(curl, std::move(t));
    // From a callback inside curl_multi_perform (a list page naming the next one) the handle is
    // added once perform returns: libcurl refuses recursive calls.
    if (in_perform_) {
      to_add_.push_back(curl);
    } else {
      AddHandle(curl);
    }
    return id;
  }

  void AddHandle(CURL* curl) {
    if (curl_multi_add_handle(multi_, curl) == CURLM_OK) return;
    auto it = active_.find(curl);
    if (it == active_.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    active_.erase(it);
    HttpResponse ignored;
    curl_transfer::Finish(curl, CURLE_FAILED_INIT, &t->st, &ignored);
    t->response.error = "curl could not start the transfer";
    t->curl = nullptr;
    idle_.push_back(curl);
    finished_.push_back(std::move(t));
  }

  // Takes a transfer out of the multi handle without running its completion.
  void Remove(CURL* curl) {
    auto it = active_.find(curl);
    if (it == active_.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    active_.erase(it);
    curl_multi_remove_handle(multi_, curl);
    HttpResponse ignored;
    curl_transfer::Finish(curl, CURLE_ABORTED_BY_CALLBACK, &t->st, &ignored);
    idle_.push_back(curl);
  }

  // Performs what can be done without waiting and runs the completions; returns how many ran.
  size_t Drive() {
    if (multi_ != nullptr && !active_.empty()) {
      int running = 0;
      in_perform_ = true;
      curl_multi_perform(multi_, &running);
      in_perform_ = false;
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
        t->curl = nullptr;
        finished_.push_back(std::move(t));
      }
      // Transfers cancelled, and transfers started, from a callback while curl_multi_perform ran.
      std::vector<CURL*> dropped;
      for (auto& [curl, t] : active_) {
        if (t->dropped) dropped.push_back(curl);
      }
      std::vector<CURL*> add = std::move(to_add_);
      to_add_.clear();
      for (CURL* curl : add) {
        auto it = active_.find(curl);
        if (it != active_.end() && !it->second->dropped) AddHandle(curl);
      }
      for (CURL* curl : dropped) Remove(curl);
    }
    // A completion may start the next request (Get), which may finish at once: take the list.
    std::vector<std::unique_ptr<Transfer>> done = std::move(finished_);
    finished_.clear();
    size_t ran = 0;
    for (auto& t : done) {
      if (t->dropped) continue;  // cancelled after it finished, before its completion ran
      by_id_.erase(t->id);
      t->done(std::move(t->response));
      ++ran;
    }
    return ran;
  }

  CURLM* multi_ = nullptr;
  CURLSH* share_ = nullptr;
  std::map<CURL*, std::unique_ptr<Transfer>> active_;
  std::unordered_map<TransferId, Transfer*> by_id_;  // active or finished, not yet completed
  std::vector<CURL*> idle_;                          // easy handles to reuse
  std::vector<std::unique_ptr<Transfer>> finished_;
  std::vector<CURL*> to_add_;  // started during curl_multi_perform
  TransferId next_id_ = 0;
  bool in_perform_ = false;
};

}  // namespace

std::unique_ptr<AsyncHttp> MakeCurlMultiHttp() { return std::make_unique<CurlMultiHttp>(); }

}  // namespace podwait
