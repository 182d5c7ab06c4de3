#include <algorithm>
#include <cctype>

#include "exporter/net/http_client.h"

namespace podwait {

Result<bool> CheckUrlScheme(std::string_view url) {
  const size_t colon = url.find("://");
  std::string scheme(url.substr(0, std::min(colon, size_t{32})));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (colon != std::string_view::npos && (scheme == "http" || scheme == "https")) {
    return Result<bool>::Ok(true);
  }
  return Result<bool>::Fail(
      colon == std::string_view::npos
          ? "URL without an http:// or https:// scheme (only http and https are allowed)"
          : "URL scheme \"" + scheme + "\" refused: only http and https are allowed");
}

std::optional<int64_t> ParseRetryAfter(std::string_view value) {
  constexpr int64_t kMaxSeconds = 24 * 3600;
  if (value.empty()) return std::nullopt;
  int64_t secs = 0;
  for (char ch : value) {
    if (ch < '0' || ch > '9') return std::nullopt;
    secs = std::min(kMaxSeconds, secs * 10 + (ch - '0'));
  }
  return secs;
}

}  // namespace podwait
