#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "qinfer/core/clock.h"

namespace qinfer::testing {

// A clock that moves only when told to: by Advance, or by a sleep, which
// returns at once having moved the clock by its length. Thread-safe.
class FakeClock final : public Clock {
 public:
  SteadyTime Now() const override { return SteadyTime(std::chrono::nanoseconds(ticks_.load())); }
  void SleepFor(std::chrono::nanoseconds d) const override {
    if (d <= std::chrono::nanoseconds::zero()) return;
    ticks_.fetch_add(d.count());
    slept_.fetch_add(d.count());
    sleeps_.fetch_add(1);
  }
  void Advance(std::chrono::nanoseconds d) { ticks_.fetch_add(d.count()); }

  // What the sleeps asked for so far: their total and their number.
  std::chrono::nanoseconds slept() const { return std::chrono::nanoseconds(slept_.load()); }
  int sleeps() const { return sleeps_.load(); }

 private:
  mutable std::atomic<int64_t> ticks_{std::chrono::nanoseconds(std::chrono::hours(1)).count()};
  mutable std::atomic<int64_t> slept_{0};
  mutable std::atomic<int> sleeps_{0};
};

}  // namespace qinfer::testing
