// The clock seam. Scheduling decisions take `now` as an argument; only the
// thin runtime wrappers ask a Clock, so tests drive time with FakeClock.
#pragma once

#include <chrono>

namespace qinfer {

using SteadyTime = std::chrono::steady_clock::time_point;

// Thread-safe: implementations must allow concurrent Now() calls.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime Now() const = 0;
};

// The process's monotonic clock.
class SystemClock final : public Clock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
};

// Milliseconds since the Unix epoch, for records a user reads.
int64_t WallMillis();

}  // namespace qinfer
