#include <curl/curl.h>

#include "exporter/net/curl_transfer.h"
#include "exporter/net/http_client.h"

namespace podwait {
namespace {

class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient() {
    curl_transfer::GlobalInitOnce();
    curl_ = curl_easy_init();
  }
  ~CurlHttpClient() override {
    if (curl_ != nullptr) curl_easy_cleanup(curl_);
  }
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  HttpResponse Get(const HttpRequest& request, size_t max_body) override {
    return Perform(request, nullptr, max_body);
  }

  HttpResponse Stream(const HttpRequest& request,
                      const std::function<bool(std::string_view)>& on_data) override {
    return Perform(request, &on_data, 1 << 20);
  }

  HttpResponse Write(const HttpRequest& request, size_t max_body) override {
    if (request.method.empty() || request.method == "GET") {
      HttpResponse refused;
      refused.error = "a write needs a method other than GET";
      return refused;
    }
    return Perform(request, nullptr, max_body);
  }

 private:
  HttpResponse Perform(const HttpRequest& request,
                       const std::function<bool(std::string_view)>* on_data, size_t max_body) {
    HttpResponse response;
    if (curl_ == nullptr) {
      response.error = "curl initialisation failed";
      return response;
    }
    curl_transfer::State st;
    st.request = &request;
    st.on_data = on_data;
    st.body = &response.body;
    st.max_body = max_body;
    if (Result<bool> configured = curl_transfer::Configure(curl_, &st); !configured.ok()) {
      response.error = std::move(configured.error);
      return response;
    }
    const CURLcode rc = curl_easy_perform(curl_);
    curl_transfer::Finish(curl_, rc, &st, &response);
    return response;
  }

  CURL* curl_ = nullptr;
};

}  // namespace

std::unique_ptr<HttpClient> MakeCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

}  // namespace podwait
