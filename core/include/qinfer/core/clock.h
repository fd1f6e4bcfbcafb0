// The clock seam (leveldb's Env for time): every module reads time and
// sleeps through a Clock, so tests drive time with FakeClock instead of
// sleeping. Scheduling decisions take `now` as an argument; only the thin
// runtime wrappers ask a Clock. Where real time is meant whatever clock a
// module is given (how long a condition variable blocks in
// BatchQueue::WaitNextBatch), the module reads RealClock().
#pragma once

#include <chrono>
#include <cstdint>

namespace qinfer {

using SteadyTime = std::chrono::steady_clock::time_point;

// Thread-safe: implementations must allow concurrent calls.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime Now() const = 0;
  // Blocks the calling thread for `d` of this clock's time (no-op if <= 0).
  virtual void SleepFor(std::chrono::nanoseconds d) const = 0;
  void SleepUntil(SteadyTime t) const { SleepFor(t - Now()); }
  // Milliseconds since the Unix epoch: the wall clock, which may jump, for
  // the times a user reads in records (an outcome's completed_at_ms, a
  // plan's created_at_ms). Never used to measure a duration.
  virtual int64_t WallMillis() const = 0;
};

// The process's monotonic clock.
class SystemClock final : public Clock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
  void SleepFor(std::chrono::nanoseconds d) const override;
  int64_t WallMillis() const override;
};

// One SystemClock for the process: the default of every module's options.
const Clock& RealClock();

// Seconds from `start` to `end`.
inline double SecondsBetween(SteadyTime start, SteadyTime end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace qinfer
