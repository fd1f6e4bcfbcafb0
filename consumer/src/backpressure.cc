#include "qinfer/consumer/backpressure.h"

namespace qinfer::consumer {

Backpressure::Change Backpressure::Next() {
  if (paused_) return queue_.HasRoomToResume() ? Change::kResume : Change::kNone;
  if (!queue_.IsFull() || WaitForRoom()) return Change::kNone;
  return Change::kPause;
}

void Backpressure::Applied(Change change) {
  if (change == Change::kNone) return;
  paused_ = change == Change::kPause;
  if (paused_) stats_.pauses++;
  stats_.paused = paused_;
}

bool Backpressure::WaitForRoom() {
  stats_.full_waits++;
  const SteadyTime deadline = clock_.Now() + full_wait_;
  while (queue_.IsFull()) {
    if (clock_.Now() >= deadline) return false;
    clock_.SleepFor(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace qinfer::consumer
