#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "exporter/common/clock.h"

namespace podwait {

// Parses an RFC 3339 timestamp as Kubernetes writes them ("2024-05-02T10:11:12Z",
// "2024-05-02T10:11:12.123456Z", "2024-05-02T10:11:12+02:00"). Fractions below a millisecond are
// dropped. Returns nullopt for anything else.
std::optional<Timestamp> ParseRfc3339(std::string_view text);

// 2000-01-01T00:00:00Z: no Kubernetes object or PD was ever written before it.
inline constexpr Timestamp kEarliestPlausibleTime = 946'684'800'000;
// A time read from an object, or 0 (unknown) when it is before kEarliestPlausibleTime (counted
// in ImplausibleTimestamps(); 0 itself, "absent", is not counted).
Timestamp PlausibleTime(Timestamp t);
// A time that lies ahead of `now` by more than max_skew (a made-up 2999, a clock far ahead)
// becomes `now` (counted): it would otherwise never age, e.g. keep a TriggeredScaleUp "recent"
// forever. 0 stays 0.
Timestamp NotInTheFuture(Timestamp t, Timestamp now, Timestamp max_skew = 60 * kMinute);
// Times made 0 or clamped by the two functions above, since the process started.
uint64_t ImplausibleTimestamps();

// Formats as "2024-05-02T10:11:12Z" (UTC, whole seconds when ms == 0, else ".123Z").
std::string FormatRfc3339(Timestamp t);

// Parses a Go-style duration: "1h2m3s", "90s", "1.5m", "250ms", "0". Negative values, and
// durations longer than 1000 years, are rejected.
std::optional<Timestamp> ParseDuration(std::string_view text);

// Formats a duration for humans, kubectl style: "45s", "3m12s", "2h5m", "3d4h".
std::string FormatDuration(Timestamp ms);

}  // namespace podwait
