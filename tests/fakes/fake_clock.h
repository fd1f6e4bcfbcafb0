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
  // The wall clock: set by the test (SetWallMillis), and moved by Advance
  // and sleeps like the steady time.
  int64_t WallMillis() const override {
    return wall_ms_.load() + (ticks_.load() - kStart) / 1000000;
  }
  void SetWallMillis(int64_t ms) { wall_ms_.store(ms - (ticks_.load() - kStart) / 1000000); }

  // What the sleeps asked for so far: their total and their number.
  std::chrono::nanoseconds slept() const { return std::chrono::nanoseconds(slept_.load()); }
  int sleeps() const { return sleeps_.load(); }

 private:
  static constexpr int64_t kStart = std::chrono::nanoseconds(std::chrono::hours(1)).count();
  mutable std::atomic<int64_t> ticks_{kStart};
  std::atomic<int64_t> wall_ms_{1'700'000'000'000};  // 2023-11-14, any fixed day
  mutable std::atomic<int64_t> slept_{0};
  mutable std::atomic<int> sleeps_{0};
};

}  // namespace qinfer::testing
