#pragma once

#include <atomic>
#include <chrono>

#include "qinfer/core/clock.h"

namespace qinfer::testing {

// A clock that moves only when told to.
class FakeClock final : public Clock {
 public:
  SteadyTime Now() const override { return SteadyTime(now_.load()); }
  void Advance(std::chrono::nanoseconds d) { now_ += d; }

 private:
  std::atomic<std::chrono::nanoseconds> now_{std::chrono::hours(1)};
};

}  // namespace qinfer::testing
