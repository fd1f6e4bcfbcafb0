#include "qinfer/scheduler/scheduler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "qinfer/scheduler/buckets.h"

namespace qinfer::scheduler {

absl::StatusOr<Scheduler> Scheduler::Create(BatchPolicy policy) {
  if (absl::Status s = ValidateBatchPolicy(policy); !s.ok()) return s;
  return Scheduler(std::move(policy));
}

Scheduler::Scheduler(BatchPolicy policy)
    : policy_(std::move(policy)), buckets_(policy_.bucket_bounds.size()) {}

absl::Status Scheduler::Admit(Job&& job, SteadyTime now) {
  const size_t length = job.length();
  const int index = BucketIndexFor(policy_.bucket_bounds, length);
  if (index < 0) {
    return absl::OutOfRangeError(absl::StrCat(
        "input length ", length, " exceeds max_tokens ", max_tokens()));
  }
  job.enqueued_at = now;
  const size_t bytes = job.footprint_bytes();
  Bucket& bucket = buckets_[index];
  bucket.jobs.push_back(std::move(job));
  bucket.tokens += length;
  bucket.bytes += bytes;
  ++queued_jobs_;
  queued_tokens_ += length;
  queued_bytes_ += bytes;
  return absl::OkStatus();
}

bool Scheduler::IsBucketReady(int index, SteadyTime now) const {
  const Bucket& bucket = buckets_[index];
  if (bucket.jobs.empty()) return false;
  if (bucket.jobs.size() >= static_cast<size_t>(policy_.caps[index])) {
    return true;
  }
  return now - bucket.jobs.front().enqueued_at >= policy_.max_batch_delay;
}

template <typename Eligible>
int Scheduler::PickBucket(Eligible eligible) const {
  int best = -1;
  for (int i = 0; i < num_buckets(); ++i) {
    if (buckets_[i].jobs.empty() || !eligible(i)) continue;
    // Strictly older wins, so ties go to the lower bucket.
    if (best < 0 || buckets_[i].jobs.front().enqueued_at <
                        buckets_[best].jobs.front().enqueued_at) {
      best = i;
    }
  }
  return best;
}

Batch Scheduler::TakeBatch(int index) {
  Bucket& bucket = buckets_[index];
  const size_t take =
      std::min(bucket.jobs.size(), static_cast<size_t>(policy_.caps[index]));
  Batch batch;
  batch.bucket_bound = policy_.bucket_bounds[index];
  batch.jobs.reserve(take);
  for (size_t i = 0; i < take; ++i) {
    const size_t length = bucket.jobs.front().length();
    const size_t bytes = bucket.jobs.front().footprint_bytes();
    bucket.tokens -= length;
    queued_tokens_ -= length;
    bucket.bytes -= bytes;
    queued_bytes_ -= bytes;
    batch.jobs.push_back(std::move(bucket.jobs.front()));
    bucket.jobs.pop_front();
  }
  queued_jobs_ -= take;
  return batch;
}

std::optional<Batch> Scheduler::NextBatch(SteadyTime now) {
  const int index = PickBucket([&](int i) { return IsBucketReady(i, now); });
  if (index < 0) return std::nullopt;
  return TakeBatch(index);
}

std::optional<SteadyTime> Scheduler::NextDeadline() const {
  std::optional<SteadyTime> earliest;
  for (int i = 0; i < num_buckets(); ++i) {
    const Bucket& bucket = buckets_[i];
    if (bucket.jobs.empty()) continue;
    const SteadyTime oldest = bucket.jobs.front().enqueued_at;
    // A full bucket is ready already; its oldest arrival is a time in the
    // past, which tells the caller not to sleep.
    const SteadyTime ready_at =
        bucket.jobs.size() >= static_cast<size_t>(policy_.caps[i])
            ? oldest
            : oldest + policy_.max_batch_delay;
    if (!earliest || ready_at < *earliest) earliest = ready_at;
  }
  return earliest;
}

std::vector<Batch> Scheduler::Drain() {
  std::vector<Batch> batches;
  for (int index = PickBucket([](int) { return true; }); index >= 0;
       index = PickBucket([](int) { return true; })) {
    batches.push_back(TakeBatch(index));
  }
  return batches;
}

absl::Status Scheduler::SetCap(int bucket_index, int cap) {
  if (bucket_index < 0 || bucket_index >= num_buckets()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bucket index ", bucket_index, " is out of range [0, ",
                     num_buckets(), ")"));
  }
  if (cap < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cap ", cap, " for bucket ",
                     policy_.bucket_bounds[bucket_index], " must be >= 1"));
  }
  policy_.caps[bucket_index] = cap;
  return absl::OkStatus();
}

bool Scheduler::IsFull() const {
  return queued_jobs_ >= policy_.max_queued_jobs ||
         queued_tokens_ >= policy_.max_queued_tokens ||
         (policy_.max_queued_bytes > 0 && queued_bytes_ >= policy_.max_queued_bytes);
}

bool Scheduler::HasRoomToResume() const {
  return 2 * queued_jobs_ < policy_.max_queued_jobs &&
         2 * queued_tokens_ < policy_.max_queued_tokens &&
         (policy_.max_queued_bytes == 0 || 2 * queued_bytes_ < policy_.max_queued_bytes);
}

int Scheduler::cap(int bucket_index) const {
  return policy_.caps[bucket_index];
}

size_t Scheduler::bucket_depth(int bucket_index) const {
  return buckets_[bucket_index].jobs.size();
}

std::vector<BucketStats> Scheduler::Stats() const {
  std::vector<BucketStats> stats;
  stats.reserve(buckets_.size());
  for (int i = 0; i < num_buckets(); ++i) {
    stats.push_back({.bound = policy_.bucket_bounds[i],
                     .cap = policy_.caps[i],
                     .queued_jobs = buckets_[i].jobs.size(),
                     .queued_tokens = buckets_[i].tokens,
                     .queued_bytes = buckets_[i].bytes});
  }
  return stats;
}

}  // namespace qinfer::scheduler
