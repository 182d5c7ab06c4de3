#pragma once

#include <atomic>
#include <cstdint>

namespace podwait {

// Milliseconds since the Unix epoch. 0 means "not set" wherever a timestamp is optional.
using Timestamp = int64_t;

inline constexpr Timestamp kSecond = 1000;
inline constexpr Timestamp kMinute = 60 * kSecond;

// The only door to the wall clock. Everything that needs the time takes a Clock&, so tests can
// drive time by hand. Thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, comparable with Kubernetes timestamps.
  virtual Timestamp Now() const = 0;
  // Monotonic milliseconds, for measuring intervals and deadlines.
  virtual int64_t MonotonicMs() const = 0;
};

class SystemClock final : public Clock {
 public:
  Timestamp Now() const override;
  int64_t MonotonicMs() const override;
  // A process-wide instance.
  static const SystemClock& Instance();
};

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Timestamp start = 1'700'000'000'000) : now_(start) {}
  Timestamp Now() const override { return now_.load(); }
  int64_t MonotonicMs() const override { return now_.load(); }
  void Advance(Timestamp ms) { now_ += ms; }
  void Set(Timestamp t) { now_ = t; }

 private:
  std::atomic<Timestamp> now_;
};

}  // namespace podwait
