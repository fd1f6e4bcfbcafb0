// The thread-safe runtime wrapper around Scheduler: the consumer thread
// pushes jobs, the single executor thread waits for batches.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/job.h"
#include "qinfer/core/mutex.h"
#include "qinfer/scheduler/scheduler.h"

namespace qinfer::scheduler {

// Thread-safe: every method may be called from any thread. Every batching
// decision calls the Scheduler with clock.Now(); the only use of real time is
// how long WaitNextBatch blocks on its condition variable
// (RealClock()), so a FakeClock still decides readiness.
class BatchQueue final : public BatchSource {
 public:
  // `clock` must outlive the queue.
  BatchQueue(Scheduler scheduler, const Clock& clock);

  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // Scheduler::Admit at clock.Now(), then wakes the waiters if the job
  // brought the next deadline forward (the first job queued, a bucket
  // filled). Same ownership and errors as Admit (on error `job` is
  // untouched), plus
  // FailedPreconditionError once Close() has been called: the job is then
  // not queued and the caller must not acknowledge it.
  absl::Status Push(Job&& job);

  // Returns a batch as soon as one is ready. Otherwise blocks until the next
  // deadline, a Push that brings it forward, a SetCap, Close() or
  // `max_wait` elapses, whichever
  // comes first, re-checking on every wake; returns nullopt when `max_wait`
  // elapsed with nothing ready. After Close() it never blocks: it returns a
  // batch that is ready now, else nullopt.
  std::optional<Batch> WaitNextBatch(std::chrono::milliseconds max_wait) override;

  // Wakes every waiter and refuses further pushes. Idempotent. Queued jobs
  // stay queued for DrainAll().
  void Close() override;
  bool closed() const override;

  // Scheduler::Drain: everything queued, in batches of at most cap.
  std::vector<Batch> DrainAll() override;

  // Scheduler::SetCap; wakes a waiter, since a lower cap can make a bucket
  // ready.
  absl::Status SetCap(int bucket_index, int cap);
  int cap(int bucket_index) const;

  // See Scheduler. Snapshot values: they may change as soon as they return.
  bool IsFull() const;
  bool HasRoomToResume() const;
  size_t queued_jobs() const;
  size_t queued_tokens() const;
  size_t queued_bytes() const;
  // The most jobs ever queued at once: what the bound on queued jobs held
  // the queue to (the consumer's pause keeps it near max_queued_jobs).
  size_t peak_queued_jobs() const;
  // How many pushes woke the waiters: one a batch or less, not one a job.
  size_t wake_ups() const;
  std::vector<BucketStats> Stats() const;
  // Immutable after construction, so no lock is needed.
  const std::vector<int>& bounds() const { return bounds_; }
  int max_tokens() const { return bounds_.back(); }

 private:
  const Clock& clock_;
  const std::vector<int> bounds_;

  mutable Mutex mu_;
  CondVar changed_;  // Push, SetCap or Close happened
  Scheduler scheduler_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  size_t peak_queued_jobs_ ABSL_GUARDED_BY(mu_) = 0;
  size_t wake_ups_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace qinfer::scheduler
