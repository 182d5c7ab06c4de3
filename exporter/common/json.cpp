#include "exporter/common/json.h"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace podwait::json {
namespace {

// Forwards the reader's events to the document, drops the subtrees of `skip` and stops the parse
// at max_depth (skipped subtrees count too: the reader recurses into them all the same).
//
// Only containers on a path of `skip` are tracked (a frame each); inside any other container
// every event is forwarded as it comes (`untracked_` counts how deep), and inside a skipped
// subtree every event is dropped (`skipping_`). A dropped member or element is subtracted from
// its container's count, which the document uses to pop its stack.
class FilteringHandler {
 public:
  FilteringHandler(rapidjson::Document& doc, const SkipPaths& skip, int max_depth)
      : doc_(doc), nodes_(skip.nodes()), max_depth_(max_depth), pending_(skip.empty() ? -1 : 0) {}

  bool Null() { return !Build() || doc_.Null(); }
  bool Bool(bool b) { return !Build() || doc_.Bool(b); }
  bool Int(int i) { return !Build() || doc_.Int(i); }
  bool Uint(unsigned u) { return !Build() || doc_.Uint(u); }
  bool Int64(int64_t i) { return !Build() || doc_.Int64(i); }
  bool Uint64(uint64_t u) { return !Build() || doc_.Uint64(u); }
  bool Double(double d) { return !Build() || doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return !Build() || doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return !Build() || doc_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if (skipping_ > 0) return true;
    if (untracked_ == 0) {
      Frame& top = frames_.back();
      const std::string_view name(s, n);
      pending_ = -1;
      for (const auto& [child, node] : nodes_[top.node].children) {
        if (child != name) continue;
        if (nodes_[node].leaf) {
          skip_next_ = true;
          ++top.dropped;
          return true;
        }
        pending_ = node;
        break;
      }
    }
    return doc_.Key(s, n, copy);
  }
  bool StartObject() { return Start(false) && (dropped_start_ || doc_.StartObject()); }
  bool EndObject(rapidjson::SizeType members) {
    rapidjson::SizeType dropped = 0;
    return End(&dropped) || doc_.EndObject(members - dropped);
  }
  bool StartArray() { return Start(true) && (dropped_start_ || doc_.StartArray()); }
  bool EndArray(rapidjson::SizeType elements) {
    rapidjson::SizeType dropped = 0;
    return End(&dropped) || doc_.EndArray(elements - dropped);
  }
  bool too_deep() const { return too_deep_; }

 private:
  struct Frame {
    int node;
    bool array;
    rapidjson::SizeType dropped;
  };

  // The trie node of the next value (a member's from Key, an element's from its array), or -1;
  // true in *skip when that value is dropped.
  int NextNode(bool* skip) {
    *skip = false;
    if (skip_next_) {
      skip_next_ = false;
      *skip = true;
      return -1;
    }
    int node = pending_;
    pending_ = -1;
    if (!frames_.empty() && frames_.back().array) {
      node = nodes_[frames_.back().node].elements;
      if (node >= 0 && nodes_[node].leaf) {
        ++frames_.back().dropped;
        *skip = true;
        return -1;
      }
    }
    return node;
  }

  // Whether a scalar goes to the document.
  bool Build() {
    if (skipping_ > 0 || untracked_ > 0) return skipping_ == 0;
    bool skip = false;
    NextNode(&skip);
    return !skip;
  }

  // False stops the parse (too deep). Sets dropped_start_ when the container is not built.
  bool Start(bool array) {
    if (++depth_ > max_depth_) {
      too_deep_ = true;
      return false;
    }
    dropped_start_ = false;
    if (skipping_ > 0) {
      ++skipping_;
      dropped_start_ = true;
    } else if (untracked_ > 0) {
      ++untracked_;
    } else {
      bool skip = false;
      const int node = NextNode(&skip);
      if (skip) {
        skipping_ = 1;
        dropped_start_ = true;
      } else if (node < 0) {
        untracked_ = 1;
      } else {
        frames_.push_back({node, array, 0});
      }
    }
    return true;
  }

  // True when the container was not built (nothing to end); else *dropped is what to subtract.
  bool End(rapidjson::SizeType* dropped) {
    --depth_;
    if (skipping_ > 0) {
      --skipping_;
      return true;
    }
    if (untracked_ > 0) {
      --untracked_;
      return false;
    }
    *dropped = frames_.back().dropped;
    frames_.pop_back();
    return false;
  }

  rapidjson::Document& doc_;
  const std::vector<SkipPaths::Node>& nodes_;
  const int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
  int pending_;             // node of the next value in an object (set by Key), -1 for none
  bool skip_next_ = false;  // Key matched a leaf: drop the next value
  bool dropped_start_ = false;
  int skipping_ = 0;   // depth inside a dropped subtree
  int untracked_ = 0;  // depth inside a subtree no path reaches
  std::vector<Frame> frames_;
};

// Stops the reader once the top-level member `outer` has been read (or proved absent from the
// leading scalar members); keeps outer's string member `inner`.
class PeekHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, PeekHandler> {
 public:
  PeekHandler(std::string_view outer, std::string_view inner, int max_depth)
      : outer_(outer), inner_(inner), max_depth_(max_depth) {}

  bool Default() { return Value(); }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (in_outer_ && depth_ == 2 && inner_key_) value_.assign(s, n);
    return Value();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view key(s, n);
    if (depth_ == 1) in_outer_ = key == outer_;
    if (depth_ == 2) inner_key_ = key == inner_;
    return true;
  }
  bool StartObject() { return Start(); }
  bool StartArray() {
    if (depth_ == 0) return false;  // not an object
    return Start();
  }
  bool EndObject(rapidjson::SizeType) { return End(); }
  bool EndArray(rapidjson::SizeType) { return End(); }
  bool found() const { return found_; }
  const std::string& value() const { return value_; }

 private:
  bool Value() {
    if (depth_ == 0) return false;                // a scalar document
    if (depth_ == 1 && in_outer_) return Done();  // outer is not an object: no inner string
    inner_key_ = false;
    return true;
  }
  bool Start() {
    // A container member of the top level that is not `outer`: stop, do not read through it.
    if (depth_ == 1 && !in_outer_) return false;
    if (++depth_ > max_depth_) return false;
    return true;
  }
  bool End() {
    --depth_;
    if (depth_ == 1 && in_outer_) return Done();
    return depth_ != 0;  // the end of the document without `outer`
  }
  bool Done() {
    found_ = true;
    return false;
  }

  const std::string_view outer_, inner_;
  const int max_depth_;
  int depth_ = 0;
  bool in_outer_ = false;
  bool inner_key_ = false;
  bool found_ = false;
  std::string value_;
};

const SkipPaths& NoSkip() {
  static const SkipPaths none;
  return none;
}

template <unsigned kFlags, typename Stream>
std::string ParseStream(Stream& stream, rapidjson::Document* doc, const SkipPaths& skip,
                        int max_depth) {
  doc->SetNull();
  doc->GetAllocator().Clear();
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generate = [&](rapidjson::Document& d) {
    FilteringHandler handler(d, skip, max_depth);
    // The recursive parser: the handler stops it at max_depth, which bounds the recursion.
    rapidjson::Reader reader;
    result = reader.Parse<kFlags>(stream, handler);
    too_deep = handler.too_deep();
    return !result.IsError();
  };
  doc->Populate(generate);
  if (!result.IsError()) return "";
  doc->SetNull();
  if (too_deep) {
    return "nesting deeper than " + std::to_string(max_depth) + " levels at offset " +
           std::to_string(result.Offset());
  }
  return "invalid JSON at offset " + std::to_string(result.Offset()) + ": " +
         rapidjson::GetParseError_En(result.Code());
}

}  // namespace

SkipPaths::SkipPaths(const std::vector<std::string>& paths, std::string_view prefix) {
  nodes_.emplace_back();  // the root
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    std::string full = prefix.empty() ? path : std::string(prefix) + "." + path;
    int node = 0;
    size_t pos = 0;
    while (!nodes_[node].leaf) {  // a path under a skipped subtree adds nothing
      const size_t dot = full.find('.', pos);
      const std::string name = full.substr(pos, dot == std::string::npos ? dot : dot - pos);
      int next = -1;
      for (const auto& [child, n] : nodes_[node].children) {
        if (child == name) next = n;
      }
      if (next < 0) {
        next = static_cast<int>(nodes_.size());
        nodes_.push_back(Node{});
        nodes_[node].children.emplace_back(name, next);
        if (name == "[]") nodes_[node].elements = next;
      }
      node = next;
      if (dot == std::string::npos) {
        // A path that ends here skips the whole subtree, whatever longer paths were under it.
        nodes_[node].leaf = true;
        nodes_[node].children.clear();
        nodes_[node].elements = -1;
        break;
      }
      pos = dot + 1;
    }
  }
}

std::string ParseInto(std::string_view text, rapidjson::Document* doc, const SkipPaths& skip,
                      int max_depth) {
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
  return ParseStream<rapidjson::kParseDefaultFlags>(stream, doc, skip, max_depth);
}

std::string ParseInsitu(char* text, rapidjson::Document* doc, const SkipPaths& skip,
                        int max_depth) {
  rapidjson::InsituStringStream stream(text);
  return ParseStream<rapidjson::kParseInsituFlag>(stream, doc, skip, max_depth);
}

std::string ParseInto(std::string_view text, rapidjson::Document* doc, int max_depth) {
  return ParseInto(text, doc, NoSkip(), max_depth);
}

std::string ParseInsitu(char* text, rapidjson::Document* doc, int max_depth) {
  return ParseInsitu(text, doc, NoSkip(), max_depth);
}

std::optional<std::string> PeekMemberString(std::string_view text, std::string_view outer,
                                            std::string_view inner, int max_depth) {
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
  PeekHandler handler(outer, inner, max_depth);
  rapidjson::Reader reader;
  reader.Parse<rapidjson::kParseDefaultFlags>(stream, handler);
  if (!handler.found()) return std::nullopt;
  return handler.value();
}

Result<rapidjson::Document> Parse(std::string_view text, int max_depth) {
  rapidjson::Document doc;
  std::string error = ParseInto(text, &doc, max_depth);
  if (!error.empty()) return Result<rapidjson::Document>::Fail(std::move(error));
  return Result<rapidjson::Document>::Ok(std::move(doc));
}

}  // namespace podwait::json
