#pragma once

// The one way podwait reads JSON: parsing with a nesting limit, and small, forgiving accessors.
//
// Parsing. Every document the product reads (Kubernetes lists and watch lines, PD answers, exec
// credentials, kubectl dumps) goes through Parse/ParseInto/ParseInsitu. They refuse a document
// nested deeper than kMaxDepth arrays and objects: a handler in front of the document counts the
// depth and stops the parse at kMaxDepth + 1, so RapidJSON's recursive parser never goes deeper
// than that (an input nested 1,000,000 deep costs 65 levels of recursion), and what is handed out
// is also safe for RapidJSON's recursive walks (Accept, copy). Real Kubernetes and PD documents
// are far shallower (a pod with managedFields is about 12 levels deep). The recursive parser with
// the limit is faster than RapidJSON's iterative one (BENCHMARKS.md, "JSON nesting limit").
//
// Access. A missing member or a member of the wrong type reads as absent, never as a crash: no
// FindMember/GetString on a value whose type was not checked.

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/common/time_format.h"

namespace podwait::json {

// Arrays and objects inside each other, the outermost counting as 1.
inline constexpr int kMaxDepth = 64;

// Subtrees a parse leaves out of the document: the reader still reads (and checks) their bytes,
// and they still count toward the nesting limit, but no value of them is built. A path is member
// names separated by '.', with "[]" for every element of an array, from the document's root:
// "items.[].metadata.managedFields" drops the managedFields of every item of a list. A member
// whose name has a '.' cannot be named. The document is what a full parse gives with those
// members removed (their objects keep their other members, in order).
class SkipPaths {
 public:
  SkipPaths() = default;
  // Every path of `paths` under `prefix` ("" or e.g. "items.[]"). Empty paths are ignored.
  explicit SkipPaths(const std::vector<std::string>& paths, std::string_view prefix = {});
  bool empty() const { return nodes_.size() <= 1; }

  // The trie of the paths, for the parse. Node 0 is the root; a leaf is a skipped subtree.
  struct Node {
    std::vector<std::pair<std::string, int>> children;  // member name (or "[]") -> node
    int elements = -1;                                  // the "[]" child, or -1
    bool leaf = false;
  };
  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  std::vector<Node> nodes_;  // empty when there is no path
};

// Parses `text` into a new document. Errors: "invalid JSON at offset N: <what>" or
// "nesting deeper than 64 levels at offset N".
Result<rapidjson::Document> Parse(std::string_view text, int max_depth = kMaxDepth);

// Parses `text` into *doc, which is reused: what it held is discarded and its memory pool cleared
// (a document's pool only grows). Returns "" or the error. On error *doc is null.
// REQUIRES: *doc's allocator is its own (not shared with values that must outlive the call).
std::string ParseInto(std::string_view text, rapidjson::Document* doc, int max_depth = kMaxDepth);

// In-situ parse: strings of *doc point into `text`, which the parse modifies and which must stay
// alive (and unmoved) as long as *doc is used. `text` must be NUL-terminated. Returns "" or the
// error; *doc is reused as with ParseInto.
std::string ParseInsitu(char* text, rapidjson::Document* doc, int max_depth = kMaxDepth);

// ParseInto / ParseInsitu leaving out the subtrees of `skip`.
std::string ParseInto(std::string_view text, rapidjson::Document* doc, const SkipPaths& skip,
                      int max_depth = kMaxDepth);
std::string ParseInsitu(char* text, rapidjson::Document* doc, const SkipPaths& skip,
                        int max_depth = kMaxDepth);

// Reads only the start of `text`: the string member `inner` of the top-level object's member
// `outer` (e.g. a list's metadata.continue), without reading past the end of `outer`. Returns ""
// when `outer` has no such string member, nullopt when `text` is not an object whose members
// before `outer` are all scalars (`outer` is not found before a larger member), or is malformed
// up to there. The nesting limit applies.
std::optional<std::string> PeekMemberString(std::string_view text, std::string_view outer,
                                            std::string_view inner, int max_depth = kMaxDepth);

// The member `name` of an object, or nullptr (also when `v` is not an object).
inline const rapidjson::Value* Member(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}
inline const rapidjson::Value* Member(const rapidjson::Value* v, const char* name) {
  return v == nullptr ? nullptr : Member(*v, name);
}
// The member `name` unless it is absent or null (a null field reads as an absent one), or nullptr.
inline const rapidjson::Value* Present(const rapidjson::Value& v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m == nullptr || m->IsNull() ? nullptr : m;
}
// An object member, or nullptr.
inline const rapidjson::Value* Object(const rapidjson::Value* v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m != nullptr && m->IsObject() ? m : nullptr;
}
// An array member, or nullptr.
inline const rapidjson::Value* Array(const rapidjson::Value* v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m != nullptr && m->IsArray() ? m : nullptr;
}
// The value itself as a string, or "" when it is not one.
inline std::string_view Str(const rapidjson::Value& v) {
  if (!v.IsString()) return {};
  return {v.GetString(), v.GetStringLength()};
}
// A string member, or "" when absent or not a string.
inline std::string_view Str(const rapidjson::Value* v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m == nullptr ? std::string_view() : Str(*m);
}
inline int64_t Int(const rapidjson::Value* v, const char* name, int64_t fallback = 0) {
  const rapidjson::Value* m = Member(v, name);
  if (m == nullptr || !m->IsInt64()) return fallback;
  return m->GetInt64();
}
inline bool Bool(const rapidjson::Value* v, const char* name, bool fallback = false) {
  const rapidjson::Value* m = Member(v, name);
  if (m == nullptr || !m->IsBool()) return fallback;
  return m->GetBool();
}
// An RFC 3339 timestamp member in ms, or 0 when absent or malformed.
// A time member, or 0 when absent, not RFC 3339, or implausible (before 2000: Go's zero time
// "0001-01-01T00:00:00Z" and the like, which would make waits of 6.4e10 s); implausible ones are
// counted in ImplausibleTimestamps().
inline Timestamp Time(const rapidjson::Value* v, const char* name) {
  std::string_view s = Str(v, name);
  if (s.empty()) return 0;
  return PlausibleTime(ParseRfc3339(s).value_or(0));
}

}  // namespace podwait::json
