#pragma once

// The pieces of the Kubernetes list/watch protocol that need no network: splitting a chunked watch
// stream into lines, decoding one watch event, reading a Status, building URLs, and the retry
// backoff. All pure or self-contained, so they are unit-tested on literal payloads.

#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "exporter/common/json.h"
#include "exporter/common/result.h"

namespace podwait {

// Splits a byte stream that arrives in arbitrary chunks into newline-delimited lines (a watch
// response is one JSON object per line). Empty lines are skipped and a trailing '\r' is removed.
// A line longer than max_line bytes is dropped whole (counted in oversized()) without buffering it.
// Not thread-safe.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line = 16u << 20) : max_line_(max_line) {}

  // Calls on_line for every line completed by `chunk`. The view is valid only during the call.
  void Feed(std::string_view chunk, const std::function<void(std::string_view)>& on_line);
  // Drops any partial line (a new stream starts).
  void Reset();
  // Bytes of an unfinished line held back.
  size_t pending() const { return buf_.size(); }
  // Lines dropped for being longer than max_line, since construction.
  uint64_t oversized() const { return oversized_; }

 private:
  void Emit(std::string_view line, const std::function<void(std::string_view)>& on_line);

  const size_t max_line_;
  std::string buf_;
  bool skipping_ = false;  // inside an oversized line: discard up to the next '\n'
  uint64_t oversized_ = 0;
};

enum class WatchEventType : uint8_t { kAdded, kModified, kDeleted, kBookmark, kError };
// The wire name: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR.
const char* WatchEventTypeName(WatchEventType type);

// One decoded watch event. `object` points into the Document passed to ParseWatchEvent.
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  const rapidjson::Value* object = nullptr;
};

// Decodes one line {"type":"ADDED","object":{...}} into *doc. An error when the line is not JSON,
// has an unknown type, or its object is not a JSON object.
// *doc is reused: what it held before is discarded and its memory pool cleared (a document's pool
// only grows, so without this a watch stream would keep every event it ever parsed).
// `skip` names subtrees of the line left out of *doc (paths from the line's root, e.g.
// "object.metadata.managedFields"; see json::SkipPaths).
// REQUIRES: *doc's allocator is its own (not shared with values that must outlive the call).
Result<WatchEvent> ParseWatchEvent(std::string_view line, rapidjson::Document* doc,
                                   const json::SkipPaths& skip = {});

// A metav1.Status (the object of an ERROR event, or the body of a failed request).
struct ApiStatus {
  int code = 0;
  std::string reason;   // "Expired", "Gone", "TooManyRequests", ...
  std::string message;  // bounded
};
ApiStatus ParseApiStatus(const rapidjson::Value& object);
// Parses a response body that may be a Status; an unparsable body gives {code=0}.
ApiStatus ParseApiStatusBody(std::string_view body);
// 410 Gone / reason Expired: the resourceVersion is too old, a relist is needed.
bool IsResourceExpired(const ApiStatus& status);

// metadata.resourceVersion of an object, or "" when absent.
std::string_view ObjectResourceVersion(const rapidjson::Value& object);
// A string member, or "" when absent or not a string.
std::string_view StringMember(const rapidjson::Value& object, const char* name);

// Percent-encodes a query parameter value (RFC 3986 unreserved characters stay).
std::string UrlEncode(std::string_view text);
// "/api/v1" + namespace + plural -> "/api/v1/pods" or "/api/v1/namespaces/<ns>/pods".
std::string ResourcePath(std::string_view api_prefix, std::string_view namespace_,
                         std::string_view plural);

// Exponential backoff with jitter: the n-th delay is drawn uniformly from [d/2, d] where
// d = min(max, initial * 2^n); a Retry-After from the server is honoured as a lower bound (up to
// max_retry_after). Not thread-safe.
class Backoff {
 public:
  Backoff(int64_t initial_ms, int64_t max_ms, uint64_t seed, int64_t max_retry_after_ms = 300'000);

  // The delay before the next attempt, in ms. retry_after_s < 0 means "none given".
  int64_t Next(int64_t retry_after_s = -1);
  // After a success: the next failure starts from `initial` again.
  void Reset() { attempt_ = 0; }
  int attempt() const { return attempt_; }

 private:
  const int64_t initial_ms_;
  const int64_t max_ms_;
  const int64_t max_retry_after_ms_;
  int attempt_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace podwait
