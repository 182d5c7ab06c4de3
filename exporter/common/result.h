#pragma once

// The one value-or-error shape of a parse: a value, or an error that says what was wrong.

#include <optional>
#include <string>
#include <utility>

namespace podwait {

template <typename T>
struct Result {
  std::optional<T> value;
  std::string error;

  bool ok() const { return value.has_value(); }
  // The value. REQUIRES: ok().
  T& operator*() { return *value; }
  const T& operator*() const { return *value; }
  T* operator->() { return &*value; }
  const T* operator->() const { return &*value; }
  static Result Ok(T v) {
    Result r;
    r.value.emplace(std::move(v));
    return r;
  }
  static Result Fail(std::string e) {
    Result r;
    r.error = std::move(e);
    return r;
  }
};

}  // namespace podwait
