#pragma once

// A list answer read as it arrives ({"kind":"PodList","metadata":{...},"items":[{...},...]}):
// the metadata and each item are handed over as their own text, so a page is never held whole and
// one item that cannot be parsed (nested past the JSON limit, malformed inside) is skipped alone.
// Only the structure is scanned here (strings, escapes and nesting, iteratively: brackets are
// matched up to kCheckedDepth levels, counted beyond); each piece is parsed by the caller.
// Not thread-safe.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace podwait {

class ListSplitter {
 public:
  // The text of one piece; the callee may change it (parse it in place).
  using Piece = std::function<void(std::string& text)>;
  // Items longer than max_item bytes are dropped (counted in oversized()) without buffering them.
  explicit ListSplitter(size_t max_item = 16u << 20) : max_item_(max_item) {}
  static constexpr size_t kCheckedDepth = 4096;

  // Scans the next bytes; `on_metadata` gets the text of the top-level "metadata" object,
  // `on_item` that of each element of "items" (valid only during the call). False once the
  // body is not a list (not an object, a stray byte); error() says why.
  bool Feed(std::string_view chunk, const Piece& on_metadata, const Piece& on_item);
  // After the last byte: false when the body ended inside a value.
  bool Finish();
  const std::string& error() const { return error_; }
  uint64_t oversized() const { return oversized_; }
  uint64_t items() const { return items_; }

 private:
  enum class Capture : uint8_t { kNone, kMetadata, kItem };
  // One byte outside a string; false on a malformed body.
  bool Structural(char c, std::string_view chunk, size_t i, const Piece& on_metadata,
                  const Piece& on_item);
  void StartCapture(Capture what, std::string_view chunk, size_t i);
  // Ends the capture with the bytes of `chunk` up to `end` (exclusive) and hands it over.
  void EndCapture(std::string_view chunk, size_t end, const Piece& on_metadata,
                  const Piece& on_item);
  void Append(std::string_view bytes);
  bool Fail(std::string why);

  const size_t max_item_;
  int64_t depth_ = 0;
  std::string open_;  // the open brackets, up to kCheckedDepth
  bool in_string_ = false;
  bool escape_ = false;
  bool started_ = false;
  bool done_ = false;
  bool failed_ = false;
  // Top-level members: the key being read, and what its value is.
  bool expect_key_ = true;
  bool in_key_ = false;
  bool expect_value_ = false;
  std::string key_;
  bool in_items_ = false;
  Capture capture_ = Capture::kNone;
  size_t capture_from_ = 0;  // where the capture starts in the current chunk
  bool capture_oversized_ = false;
  std::string buf_;
  std::string error_;
  uint64_t oversized_ = 0;
  uint64_t items_ = 0;
};

}  // namespace podwait
