#pragma once

// The fuzz input as text. Every target's entry point is LLVMFuzzerTestOneInput; the same sources
// build with libFuzzer (scripts/fuzz.sh, clang) and, with replay_main.cpp, as plain replay
// binaries that run the corpus and the regression inputs in the normal ctest suite.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace podwait::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace podwait::fuzz
