#pragma once

// Where a cluster's dependency readiness comes from (--readiness.source; docs/DESIGN.md §4).

#include <cstdint>
#include <optional>
#include <string_view>

namespace podwait {

enum class ReadinessSource : uint8_t {
  kPdApi,        // only the PD API
  kTidbCluster,  // only the TidbCluster status
  kBoth,         // the PD API when it answers, the TidbCluster status otherwise
};
inline constexpr std::string_view kReadinessSourceNames[] = {"pd-api", "tidbcluster", "both"};

constexpr std::string_view ReadinessSourceName(ReadinessSource s) {
  return kReadinessSourceNames[static_cast<size_t>(s)];
}

constexpr std::optional<ReadinessSource> ParseReadinessSource(std::string_view name) {
  for (size_t i = 0; i < std::size(kReadinessSourceNames); ++i) {
    if (kReadinessSourceNames[i] == name) return static_cast<ReadinessSource>(i);
  }
  return std::nullopt;
}

}  // namespace podwait
