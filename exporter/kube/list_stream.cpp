#include "exporter/kube/list_stream.h"

namespace podwait {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

bool ListSplitter::Fail(std::string why) {
  failed_ = true;
  error_ = std::move(why);
  return false;
}

void ListSplitter::Append(std::string_view bytes) {
  if (capture_oversized_) return;
  if (capture_ == Capture::kItem && buf_.size() + bytes.size() > max_item_) {
    capture_oversized_ = true;
    buf_.clear();
    buf_.shrink_to_fit();
    return;
  }
  buf_.append(bytes);
}

void ListSplitter::StartCapture(Capture what, std::string_view chunk, size_t i) {
  (void)chunk;
  capture_ = what;
  capture_from_ = i;
  capture_oversized_ = false;
  buf_.clear();
}

void ListSplitter::EndCapture(std::string_view chunk, size_t end, const Piece& on_metadata,
                              const Piece& on_item) {
  Append(chunk.substr(capture_from_, end - capture_from_));
  const Capture what = capture_;
  capture_ = Capture::kNone;
  if (what == Capture::kItem) {
    ++items_;
    if (capture_oversized_) {
      ++oversized_;
    } else {
      on_item(buf_);
    }
  } else if (what == Capture::kMetadata) {
    on_metadata(buf_);
  }
  buf_.clear();
  if (buf_.capacity() > (1u << 20)) buf_.shrink_to_fit();
}

bool ListSplitter::Structural(char c, std::string_view chunk, size_t i, const Piece& on_metadata,
                              const Piece& on_item) {
  if (!started_) {
    if (IsSpace(c)) return true;
    if (c != '{') return Fail("list page is not a JSON object");
    started_ = true;
    depth_ = 1;
    open_.push_back('{');
    return true;
  }
  if (done_) return IsSpace(c) ? true : Fail("bytes after the end of the list page");
  // An element of "items" starts at its first byte at depth 2.
  if (in_items_ && depth_ == 2 && capture_ == Capture::kNone && !IsSpace(c) && c != ',' &&
      c != ']') {
    StartCapture(Capture::kItem, chunk, i);
  }
  if (depth_ == 1 && expect_value_ && !IsSpace(c) && c != ':') {
    expect_value_ = false;
    if (key_ == "metadata" && c == '{') StartCapture(Capture::kMetadata, chunk, i);
    if (key_ == "items" && c == '[') in_items_ = true;
  }
  switch (c) {
    case '{':
    case '[':
      if (open_.size() < kCheckedDepth) open_.push_back(c);
      ++depth_;
      return true;
    case '}':
    case ']':
      if (static_cast<size_t>(depth_) <= kCheckedDepth) {
        if (open_.empty() || open_.back() != (c == '}' ? '{' : '[')) {
          return Fail("unbalanced brackets in the list page");
        }
        open_.pop_back();
      }
      --depth_;
      if (depth_ == 0) {
        done_ = true;
        return true;
      }
      if (capture_ == Capture::kMetadata && depth_ == 1) {
        EndCapture(chunk, i + 1, on_metadata, on_item);
      } else if (capture_ == Capture::kItem && depth_ == 2 && c == '}') {
        EndCapture(chunk, i + 1, on_metadata, on_item);
      } else if (capture_ == Capture::kItem && depth_ == 1) {
        EndCapture(chunk, i, on_metadata, on_item);  // a scalar last element
      }
      if (in_items_ && depth_ == 1) in_items_ = false;
      return true;
    case ',':
      if (capture_ == Capture::kItem && depth_ == 2) EndCapture(chunk, i, on_metadata, on_item);
      if (depth_ == 1) expect_key_ = true;
      return true;
    case ':':
      if (depth_ == 1) expect_value_ = true;
      return true;
    default:
      return true;
  }
}

bool ListSplitter::Feed(std::string_view chunk, const Piece& on_metadata, const Piece& on_item) {
  if (failed_) return false;
  capture_from_ = 0;
  size_t key_from = 0;
  for (size_t i = 0; i < chunk.size(); ++i) {
    const char c = chunk[i];
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (in_key_) {
          key_.append(chunk.substr(key_from, i - key_from).substr(0, 64));
          in_key_ = false;
        }
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
      if (!started_ || done_) return Fail("list page is not a JSON object");
      if (in_items_ && depth_ == 2 && capture_ == Capture::kNone) {
        StartCapture(Capture::kItem, chunk, i);  // a string element
      }
      if (depth_ == 1 && expect_key_) {
        expect_key_ = false;
        in_key_ = true;
        key_.clear();
        key_from = i + 1;
      }
      continue;
    }
    if (!Structural(c, chunk, i, on_metadata, on_item)) return false;
  }
  if (in_key_) key_.append(chunk.substr(key_from).substr(0, 64));
  if (capture_ != Capture::kNone) Append(chunk.substr(capture_from_));
  return true;
}

bool ListSplitter::Finish() {
  if (failed_) return false;
  if (!started_) return Fail("empty list page");
  if (!done_) return Fail("the list page ended inside a value");
  return true;
}

}  // namespace podwait
