#include "qinfer/core/clock.h"

#include <thread>

namespace qinfer {

void SystemClock::SleepFor(std::chrono::nanoseconds d) const {
  if (d > std::chrono::nanoseconds::zero()) std::this_thread::sleep_for(d);
}

int64_t SystemClock::WallMillis() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const Clock& RealClock() {
  static const SystemClock* clock = new SystemClock;
  return *clock;
}

}  // namespace qinfer
