// Batch formation: per-bucket FIFO queues, caps, readiness by size or age,
// and the choice of the next bucket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/job.h"
#include "qinfer/scheduler/policy.h"

namespace qinfer::scheduler {

// A point-in-time view of one bucket, for metrics and `qinfer status`.
struct BucketStats {
  int bound = 0;  // tokens
  int cap = 0;    // jobs per batch
  size_t queued_jobs = 0;
  size_t queued_tokens = 0;
  size_t queued_bytes = 0;

  friend bool operator==(const BucketStats&, const BucketStats&) = default;
};

// Pure batching logic. Every decision is a function of the queued jobs, the
// policy and the `now` passed in: the scheduler never reads a clock and never
// sleeps, so tests drive it with arbitrary times.
//
// A bucket is *ready* when it holds >= cap jobs, or when its oldest job has
// waited >= max_batch_delay. NextBatch serves, among ready buckets, the one
// whose oldest job is oldest (ties: the lower bucket), so a bucket that keeps
// refilling with fresh jobs cannot starve an older, partially filled bucket
// once that bucket's delay has elapsed.
//
// Which jobs of the bucket make the batch is the policy's Formation: the cap
// oldest (kArrival), or the run of similar lengths that holds the oldest
// (kLength, see LengthCounts). Either way every batch of a bucket includes
// that bucket's oldest job.
//
// Not thread-safe: the owner serialises all calls (see BatchQueue for the
// thread-safe wrapper). Movable, not copyable.
//
// REQUIRES: the `now` passed to successive calls never decreases (the queues
// are FIFO by arrival; an earlier `now` would break "front is oldest").
class Scheduler {
 public:
  // Validates `policy` (ValidateBatchPolicy) and builds an empty scheduler.
  static absl::StatusOr<Scheduler> Create(BatchPolicy policy);

  Scheduler(Scheduler&&) = default;
  Scheduler& operator=(Scheduler&&) = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues `job` at the back of its bucket (by job.length(), i.e.
  // input_ids.size(); the caller applies any `truncate_to` override before
  // admitting) and stamps job.enqueued_at = now.
  //
  // Ownership: on OK, `job` has been moved from. On error `job` is left
  // untouched, so the caller can still build its failure record.
  // Errors: OutOfRangeError "input length 700 exceeds max_tokens 512" when
  // the job is longer than the last bound (the caller records it as
  // `too_long`).
  // Never refuses because the queue is full: the queue bound is enforced by
  // the caller pausing its source while IsFull() (see HasRoomToResume()).
  absl::Status Admit(Job&& job, SteadyTime now);

  // Removes and returns the next batch: up to cap jobs, chosen by the
  // policy's Formation, from the ready bucket whose oldest job is oldest;
  // batch.bucket_bound is that bucket's bound and the batch's jobs are in
  // arrival order. nullopt when no bucket is ready at `now`.
  std::optional<Batch> NextBatch(SteadyTime now);

  // The earliest time at which NextBatch will return a batch if nothing else
  // is admitted: for a partially filled bucket, its oldest job's enqueued_at
  // + max_batch_delay. A bucket that is already full is ready already, and
  // contributes its oldest job's enqueued_at (a time not after the last
  // `now`). nullopt when nothing is queued.
  std::optional<SteadyTime> NextDeadline() const;

  // Removes and returns everything queued, ignoring readiness, in batches of
  // at most cap jobs, in the order NextBatch would serve them if every bucket
  // were ready (oldest first). For shutdown: the caller runs these ("finish
  // in-flight") or records them as abandoned; nothing is dropped silently.
  std::vector<Batch> Drain();

  // Lowers or raises the cap of one bucket (the memory plan, the OOM ladder).
  // Takes effect from the next batch formed. Errors: InvalidArgumentError
  // when bucket_index is out of range or cap < 1; nothing changes then.
  absl::Status SetCap(int bucket_index, int cap);

  // Backpressure: true when queued_jobs() >= max_queued_jobs,
  // queued_tokens() >= max_queued_tokens or (with a byte bound)
  // queued_bytes() >= max_queued_bytes. The caller pauses its source.
  bool IsFull() const;
  // True when every count is strictly below half its bound: the caller
  // resumes its source. The gap between the two thresholds keeps pause and
  // resume from flapping around a single value.
  bool HasRoomToResume() const;

  size_t queued_jobs() const { return queued_jobs_; }
  // Sum of job.length() over queued jobs (real input ids, not padded).
  size_t queued_tokens() const { return queued_tokens_; }
  // Sum of Job::footprint_bytes() over queued jobs.
  size_t queued_bytes() const { return queued_bytes_; }

  int num_buckets() const { return static_cast<int>(buckets_.size()); }
  const std::vector<int>& bounds() const { return policy_.bucket_bounds; }
  // The last bound: the longest admissible input, in tokens.
  int max_tokens() const { return policy_.bucket_bounds.back(); }
  // REQUIRES: 0 <= bucket_index < num_buckets().
  int cap(int bucket_index) const;
  // Jobs queued in one bucket. REQUIRES: 0 <= bucket_index < num_buckets().
  size_t bucket_depth(int bucket_index) const;
  // One entry per bucket, in bound order.
  std::vector<BucketStats> Stats() const;
  const BatchPolicy& policy() const { return policy_; }

 private:
  struct Queued {
    uint64_t seq = 0;  // admission order, over all buckets
    Job job;
  };
  struct Arrival {
    uint64_t seq = 0;
    size_t length = 0;
    SteadyTime enqueued_at{};
  };
  struct Bucket {
    // The queued jobs by exact length, each list in arrival order; batches
    // always take from the front of a list, so a list's front is its oldest.
    std::map<size_t, std::deque<Queued>> by_length;
    // Every queued job in arrival order. Entries of jobs a batch already took
    // are dropped once they reach the front, so the front is always the
    // bucket's oldest queued job.
    std::deque<Arrival> arrivals;
    size_t jobs = 0;
    size_t tokens = 0;
    size_t bytes = 0;
  };

  explicit Scheduler(BatchPolicy policy);

  bool IsBucketReady(int index, SteadyTime now) const;
  // The non-empty bucket to serve next: among those that satisfy `eligible`,
  // the one whose oldest job is oldest. -1 when none.
  template <typename Eligible>
  int PickBucket(Eligible eligible) const;
  Batch TakeBatch(int index);
  // How many jobs of each length the next batch of `bucket` takes under
  // Formation::kLength. REQUIRES: bucket.jobs > 0.
  std::map<size_t, size_t> LengthCounts(const Bucket& bucket, size_t cap) const;

  BatchPolicy policy_;  // policy_.caps holds the current caps
  std::vector<Bucket> buckets_;
  size_t queued_jobs_ = 0;
  size_t queued_tokens_ = 0;
  size_t queued_bytes_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace qinfer::scheduler
