#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "qinfer/core/clock.h"

namespace qinfer::testing {

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  SteadyTime Now() const override { return SteadyTime(std::chrono::nanoseconds(ticks_.load())); }
  void Advance(std::chrono::nanoseconds d) { ticks_.fetch_add(d.count()); }

 private:
  std::atomic<int64_t> ticks_{std::chrono::nanoseconds(std::chrono::hours(1)).count()};
};

}  // namespace qinfer::testing
