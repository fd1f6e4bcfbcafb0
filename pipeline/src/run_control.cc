#include "qinfer/pipeline/run_control.h"

#include <algorithm>

namespace qinfer::pipeline {

RunControl::RunControl(const Clock& clock, std::chrono::milliseconds idle_exit)
    : clock_(clock), idle_exit_(idle_exit), last_activity_(clock.Now()) {}

RunDecision RunControl::Tick(const Activity& a, bool stop_requested, bool fatal) {
  if (fatal) return RunDecision::kFatal;
  if (stop_requested) return RunDecision::kStopRequested;
  const SteadyTime now = clock_.Now();
  if (a.messages != last_messages_ || a.pending > 0 || a.queued > 0 || a.assigned != last_assigned_) {
    last_messages_ = a.messages;
    last_assigned_ = a.assigned;
    last_activity_ = now;
  }
  ever_assigned_ = ever_assigned_ || a.assigned > 0;
  if (idle_exit_.count() == 0) return RunDecision::kContinue;
  const auto period = ever_assigned_ ? idle_exit_ : std::max(idle_exit_, kAssignmentGrace);
  return now - last_activity_ >= period ? RunDecision::kIdleExit : RunDecision::kContinue;
}

}  // namespace qinfer::pipeline
