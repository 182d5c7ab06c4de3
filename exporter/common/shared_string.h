#pragma once

// A string value that many records hold alike (a namespace, a TiDB cluster, a component): one
// copy per distinct value, shared by every record that holds it.

#include <atomic>
#include <compare>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace podwait {

// Reads as a const std::string; assigned from any string. Copying shares the value (one atomic
// increment); assigning a string looks the value up in a process-wide table (one mutex) and shares
// the copy found there. The empty string holds nothing. Thread-safe as std::shared_ptr is: distinct
// objects may be used from any threads; one object is not written while others read it. 8 bytes,
// where a std::string is 32 and a heap block when the value is longer than 15 bytes: 100,000 pods
// hold three such values each (docs/DESIGN.md §8).
class SharedString {
 public:
  SharedString() = default;
  explicit SharedString(std::string_view value);
  SharedString(const SharedString& other);
  SharedString(SharedString&& other) noexcept : rep_(other.rep_) { other.rep_ = nullptr; }
  SharedString& operator=(const SharedString& other);
  SharedString& operator=(SharedString&& other) noexcept;
  SharedString& operator=(std::string_view value) { return *this = SharedString(value); }
  ~SharedString();

  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT
  operator std::string_view() const { return str(); }    // NOLINT
  bool empty() const { return rep_ == nullptr; }
  size_t size() const { return str().size(); }
  const char* data() const { return str().data(); }
  const char* c_str() const { return str().c_str(); }

  friend bool operator==(const SharedString& a, const SharedString& b) {
    return a.rep_ == b.rep_;  // one copy per value: equal values are the same copy
  }
  friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
  friend std::strong_ordering operator<=>(const SharedString& a, const SharedString& b) {
    return std::string_view(a) <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const SharedString& a, std::string_view b) {
    return std::string_view(a) <=> b;
  }
  friend std::string operator+(std::string a, const SharedString& b) { return a.append(b.str()); }
  friend std::string operator+(const SharedString& a, std::string_view b) {
    return std::string(a.str()).append(b);
  }
  friend std::string operator+(const char* a, const SharedString& b) {
    return std::string(a).append(b.str());
  }
  friend std::ostream& operator<<(std::ostream& out, const SharedString& s) {
    return out << s.str();
  }

  // Distinct values in the table, including those no record holds any more (they go at the next
  // sweep, when the table has doubled since the last one). For tests and benchmarks.
  static size_t TableSize();

 private:
  friend struct SharedStringTable;
  struct Rep;
  Rep* rep_ = nullptr;
};

}  // namespace podwait
