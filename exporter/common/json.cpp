#include "exporter/common/json.h"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace podwait::json {
namespace {

// Forwards the reader's events to the document and stops the parse at max_depth.
class DepthLimitedHandler {
 public:
  DepthLimitedHandler(rapidjson::Document& doc, int max_depth) : doc_(doc), max_depth_(max_depth) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool StartObject() { return Enter() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_.EndObject(members);
  }
  bool StartArray() { return Enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_.EndArray(elements);
  }
  bool too_deep() const { return too_deep_; }

 private:
  bool Enter() {
    if (++depth_ > max_depth_) {
      too_deep_ = true;
      return false;
    }
    return true;
  }

  rapidjson::Document& doc_;
  const int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
};

template <unsigned kFlags, typename Stream>
std::string ParseStream(Stream& stream, rapidjson::Document* doc, int max_depth) {
  doc->SetNull();
  doc->GetAllocator().Clear();
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto generate = [&](rapidjson::Document& d) {
    DepthLimitedHandler handler(d, max_depth);
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

std::string ParseInto(std::string_view text, rapidjson::Document* doc, int max_depth) {
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
  return ParseStream<rapidjson::kParseDefaultFlags>(stream, doc, max_depth);
}

std::string ParseInsitu(char* text, rapidjson::Document* doc, int max_depth) {
  rapidjson::InsituStringStream stream(text);
  return ParseStream<rapidjson::kParseInsituFlag>(stream, doc, max_depth);
}

Result<rapidjson::Document> Parse(std::string_view text, int max_depth) {
  rapidjson::Document doc;
  std::string error = ParseInto(text, &doc, max_depth);
  if (!error.empty()) return Result<rapidjson::Document>::Fail(std::move(error));
  return Result<rapidjson::Document>::Ok(std::move(doc));
}

}  // namespace podwait::json
