// When a running service stops: a signal, a fatal condition (Health), or, in
// batch mode, idleness. A pure decision over what the caller observes and
// the Clock, so tests drive it with FakeClock.
#pragma once

#include <chrono>
#include <cstdint>

#include "qinfer/core/clock.h"

namespace qinfer::pipeline {

// What the service looks like at one instant.
struct Activity {
  uint64_t messages = 0;  // consumed so far (monotonic)
  size_t pending = 0;     // consumed jobs without a record yet
  size_t queued = 0;      // jobs in the scheduler
  int assigned = 0;       // partitions assigned to this instance
};

enum class RunDecision { kContinue, kStopRequested, kFatal, kIdleExit };

// Not thread-safe: one thread (main) calls Tick.
class RunControl {
 public:
  // `idle_exit`: stop once nothing is pending or queued and no message has
  // arrived (and the assignment has not changed) for this long; also when
  // nothing ever arrives (an empty topic). Until a first partition is
  // assigned the period is at least kAssignmentGrace, since joining a group
  // takes seconds. 0: never.
  RunControl(const Clock& clock, std::chrono::milliseconds idle_exit);

  static constexpr std::chrono::milliseconds kAssignmentGrace{30000};

  // Fatal wins over a stop request, which wins over idleness.
  RunDecision Tick(const Activity& now, bool stop_requested, bool fatal);

 private:
  const Clock& clock_;
  const std::chrono::milliseconds idle_exit_;
  uint64_t last_messages_ = 0;
  int last_assigned_ = 0;
  bool ever_assigned_ = false;
  SteadyTime last_activity_;
};

}  // namespace qinfer::pipeline
