#include "exporter/kube/watch_protocol.h"

#include <algorithm>

#include "exporter/common/json.h"

namespace podwait {

// ---------------------------------------------------------------------------------------------
// LineSplitter

void LineSplitter::Emit(std::string_view line,
                        const std::function<void(std::string_view)>& on_line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return;
  if (line.size() > max_line_) {
    ++oversized_;
    return;
  }
  on_line(line);
}

void LineSplitter::Feed(std::string_view chunk,
                        const std::function<void(std::string_view)>& on_line) {
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      if (skipping_) return;
      if (buf_.size() + chunk.size() > max_line_) {
        // Too long already: stop buffering and discard up to the end of this line.
        ++oversized_;
        buf_.clear();
        buf_.shrink_to_fit();
        skipping_ = true;
        return;
      }
      buf_.append(chunk);
      return;
    }
    const std::string_view head = chunk.substr(0, nl);
    chunk.remove_prefix(nl + 1);
    if (skipping_) {
      skipping_ = false;
      continue;
    }
    if (buf_.empty()) {
      Emit(head, on_line);  // the common case: a whole line inside one chunk, no copy
    } else {
      if (buf_.size() + head.size() > max_line_) {
        ++oversized_;
      } else {
        buf_.append(head);
        Emit(buf_, on_line);
      }
      buf_.clear();
      if (buf_.capacity() > (1u << 20)) buf_.shrink_to_fit();
    }
  }
}

void LineSplitter::Reset() {
  buf_.clear();
  if (buf_.capacity() > (1u << 20)) buf_.shrink_to_fit();
  skipping_ = false;
}

// ---------------------------------------------------------------------------------------------
// Watch events and Status

const char* WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "UNKNOWN";
}

Result<WatchEvent> ParseWatchEvent(std::string_view line, rapidjson::Document* doc,
                                   const json::SkipPaths& skip) {
  using R = Result<WatchEvent>;
  if (std::string e = json::ParseInto(line, doc, skip); !e.empty()) return R::Fail(std::move(e));
  if (!doc->IsObject()) return R::Fail("watch event is not a JSON object");
  WatchEvent event;
  const std::string_view type = StringMember(*doc, "type");
  if (type == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else if (type == "ERROR") {
    event.type = WatchEventType::kError;
  } else {
    return R::Fail("unknown watch event type \"" + std::string(type.substr(0, 32)) + "\"");
  }
  event.object = json::Object(doc, "object");
  if (event.object == nullptr) return R::Fail("watch event without an object");
  return R::Ok(event);
}

std::string_view StringMember(const rapidjson::Value& object, const char* name) {
  return json::Str(&object, name);
}

ApiStatus ParseApiStatus(const rapidjson::Value& object) {
  ApiStatus status;
  if (!object.IsObject()) return status;
  const rapidjson::Value* code = json::Member(object, "code");
  if (code != nullptr && code->IsInt()) status.code = code->GetInt();
  status.reason = std::string(StringMember(object, "reason").substr(0, 64));
  status.message = std::string(StringMember(object, "message").substr(0, 512));
  return status;
}

ApiStatus ParseApiStatusBody(std::string_view body) {
  auto doc = json::Parse(body);
  if (!doc.ok()) return {};
  return ParseApiStatus(*doc.value);
}

bool IsResourceExpired(const ApiStatus& status) {
  return status.code == 410 || status.reason == "Expired" || status.reason == "Gone";
}

std::string_view ObjectResourceVersion(const rapidjson::Value& object) {
  return json::Str(json::Member(object, "metadata"), "resourceVersion");
}

// ---------------------------------------------------------------------------------------------
// URLs

std::string UrlEncode(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string ResourcePath(std::string_view api_prefix, std::string_view namespace_,
                         std::string_view plural) {
  std::string path(api_prefix);
  if (!namespace_.empty()) {
    path += "/namespaces/";
    path += namespace_;
  }
  path += "/";
  path += plural;
  return path;
}

// ---------------------------------------------------------------------------------------------
// Backoff

Backoff::Backoff(int64_t initial_ms, int64_t max_ms, uint64_t seed, int64_t max_retry_after_ms)
    : initial_ms_(std::max<int64_t>(1, initial_ms)),
      max_ms_(std::max(initial_ms_, max_ms)),
      max_retry_after_ms_(max_retry_after_ms),
      rng_(seed) {}

int64_t Backoff::Next(int64_t retry_after_s) {
  int64_t ceiling = initial_ms_;
  for (int i = 0; i < attempt_ && ceiling < max_ms_; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, max_ms_);
  ++attempt_;
  std::uniform_int_distribution<int64_t> dist(ceiling / 2, ceiling);
  int64_t delay = dist(rng_);
  if (retry_after_s >= 0) {
    const int64_t wanted = std::min(retry_after_s * 1000, max_retry_after_ms_);
    delay = std::max(delay, wanted);
  }
  return delay;
}

}  // namespace podwait
