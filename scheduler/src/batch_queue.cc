#include "qinfer/scheduler/batch_queue.h"

#include <algorithm>
#include <utility>

namespace qinfer::scheduler {

BatchQueue::BatchQueue(Scheduler scheduler, const Clock& clock)
    : clock_(clock), bounds_(scheduler.bounds()), scheduler_(std::move(scheduler)) {}

absl::Status BatchQueue::Push(Job&& job) {
  bool sooner = false;
  {
    MutexLock lock(&mu_);
    if (closed_) {
      return absl::FailedPreconditionError("batch queue is closed");
    }
    const std::optional<SteadyTime> before = scheduler_.NextDeadline();
    if (absl::Status s = scheduler_.Admit(std::move(job), clock_.Now()); !s.ok()) {
      return s;
    }
    peak_queued_jobs_ = std::max(peak_queued_jobs_, scheduler_.queued_jobs());
    // A waiter sleeps until the deadline it last read, which only a push
    // can bring forward (a first job, a bucket filled): otherwise waking
    // it costs a context switch a job to find nothing ready.
    const std::optional<SteadyTime> after = scheduler_.NextDeadline();
    sooner = !before.has_value() || (after.has_value() && *after < *before);
    if (sooner) wake_ups_++;
  }
  if (sooner) changed_.SignalAll();
  return absl::OkStatus();
}

std::optional<Batch> BatchQueue::WaitNextBatch(std::chrono::milliseconds max_wait) {
  using std::chrono::steady_clock;
  // Never wait less than this for a deadline that has (by `clock_`) already
  // passed while nothing is ready; guards against a busy loop should a Clock
  // and the scheduler ever disagree.
  constexpr std::chrono::milliseconds kMinWait{1};

  // How long to block is real time (a condition variable's), read on the
  // process's real clock; readiness is decided on `clock_`.
  const Clock& real = RealClock();
  const SteadyTime give_up = real.Now() + max_wait;
  MutexLock lock(&mu_);
  while (true) {
    const SteadyTime now = clock_.Now();
    if (std::optional<Batch> batch = scheduler_.NextBatch(now)) return batch;
    if (closed_) return std::nullopt;
    const SteadyTime real_now = real.Now();
    if (real_now >= give_up) return std::nullopt;

    SteadyTime wake = give_up;
    if (std::optional<SteadyTime> deadline = scheduler_.NextDeadline()) {
      // The deadline is in `clock_`'s time; translate the remaining duration
      // to real time for the condition variable.
      const auto remaining = std::max<steady_clock::duration>(*deadline - now, kMinWait);
      wake = std::min(wake, real_now + remaining);
    }
    changed_.WaitUntil(&mu_, wake);
  }
}

void BatchQueue::Close() {
  {
    MutexLock lock(&mu_);
    closed_ = true;
  }
  changed_.SignalAll();
}

bool BatchQueue::closed() const {
  MutexLock lock(&mu_);
  return closed_;
}

std::vector<Batch> BatchQueue::DrainAll() {
  MutexLock lock(&mu_);
  return scheduler_.Drain();
}

absl::Status BatchQueue::SetCap(int bucket_index, int cap) {
  absl::Status status;
  {
    MutexLock lock(&mu_);
    status = scheduler_.SetCap(bucket_index, cap);
  }
  if (status.ok()) changed_.SignalAll();
  return status;
}

int BatchQueue::cap(int bucket_index) const {
  MutexLock lock(&mu_);
  return scheduler_.cap(bucket_index);
}

bool BatchQueue::IsFull() const {
  MutexLock lock(&mu_);
  return scheduler_.IsFull();
}

bool BatchQueue::HasRoomToResume() const {
  MutexLock lock(&mu_);
  return scheduler_.HasRoomToResume();
}

size_t BatchQueue::queued_jobs() const {
  MutexLock lock(&mu_);
  return scheduler_.queued_jobs();
}

size_t BatchQueue::wake_ups() const {
  MutexLock lock(&mu_);
  return wake_ups_;
}

size_t BatchQueue::peak_queued_jobs() const {
  MutexLock lock(&mu_);
  return peak_queued_jobs_;
}

size_t BatchQueue::queued_bytes() const {
  MutexLock lock(&mu_);
  return scheduler_.queued_bytes();
}

size_t BatchQueue::queued_tokens() const {
  MutexLock lock(&mu_);
  return scheduler_.queued_tokens();
}

std::vector<BucketStats> BatchQueue::Stats() const {
  MutexLock lock(&mu_);
  return scheduler_.Stats();
}

}  // namespace qinfer::scheduler
