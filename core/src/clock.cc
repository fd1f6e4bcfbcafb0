#include "qinfer/core/clock.h"

#include <thread>

namespace qinfer {

void SystemClock::SleepFor(std::chrono::nanoseconds d) const {
  if (d > std::chrono::nanoseconds::zero()) std::this_thread::sleep_for(d);
}

const Clock& RealClock() {
  static const SystemClock* clock = new SystemClock;
  return *clock;
}

}  // namespace qinfer
