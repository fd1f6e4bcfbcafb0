#include "qinfer/scheduler/scheduler.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "qinfer/scheduler/buckets.h"

namespace qinfer::scheduler {

absl::StatusOr<Scheduler> Scheduler::Create(BatchPolicy policy) {
  if (absl::Status s = ValidateBatchPolicy(policy); !s.ok()) return s;
  return Scheduler(std::move(policy));
}

Scheduler::Scheduler(BatchPolicy policy) : policy_(std::move(policy)), buckets_(policy_.bucket_bounds.size()) {}

absl::Status Scheduler::Admit(Job&& job, SteadyTime now) {
  const size_t length = job.length();
  const int index = BucketIndexFor(policy_.bucket_bounds, length);
  if (index < 0) {
    return absl::OutOfRangeError(absl::StrCat("input length ", length, " exceeds max_tokens ", max_tokens()));
  }
  job.enqueued_at = now;
  const size_t bytes = job.footprint_bytes();
  Bucket& bucket = buckets_[index];
  const uint64_t seq = next_seq_++;
  bucket.arrivals.push_back({.seq = seq, .length = length, .enqueued_at = now});
  bucket.by_length[length].push_back({.seq = seq, .job = std::move(job)});
  ++bucket.jobs;
  bucket.tokens += length;
  bucket.bytes += bytes;
  ++queued_jobs_;
  queued_tokens_ += length;
  queued_bytes_ += bytes;
  return absl::OkStatus();
}

bool Scheduler::IsBucketReady(int index, SteadyTime now) const {
  const Bucket& bucket = buckets_[index];
  if (bucket.jobs == 0) return false;
  if (bucket.jobs >= static_cast<size_t>(policy_.caps[index])) return true;
  return now - bucket.arrivals.front().enqueued_at >= policy_.max_batch_delay;
}

template <typename Eligible>
int Scheduler::PickBucket(Eligible eligible) const {
  int best = -1;
  for (int i = 0; i < num_buckets(); ++i) {
    if (buckets_[i].jobs == 0 || !eligible(i)) continue;
    // Strictly older wins, so ties go to the lower bucket.
    if (best < 0 || buckets_[i].arrivals.front().enqueued_at < buckets_[best].arrivals.front().enqueued_at) {
      best = i;
    }
  }
  return best;
}

std::map<size_t, size_t> Scheduler::LengthCounts(const Bucket& bucket, size_t cap) const {
  // 1. Sorted by length, the bucket's jobs are cut into runs of cap from the
  //    shortest up; the batch is the run that holds the oldest job (the last
  //    run, when it is short, is filled up from below to cap; a bucket of at
  //    most cap jobs is one run). Taking a whole
  //    run keeps the other runs intact, so over a backlog the batches are
  //    what sorting the backlog by length and cutting it into batches gives.
  // 2. Jobs shorter than (1 - max_padding) x the run's longest are left for a
  //    later batch of their own lengths, unless that would leave the oldest
  //    job out: then the batch is the oldest job's length and up to
  //    l0 / (1 - max_padding), shortest first.
  // 3. Room left under the cap goes to the next shorter lengths of the
  //    bucket, longest first, while the padding they add (rows x the gap to
  //    the batch's longest) stays within extra_padding_tokens in all: a few
  //    left-out rows ride along instead of waiting for a small batch of
  //    their own, whose fixed cost (every op dispatched once, threads woken)
  //    is worth that many tokens of work.
  const size_t l0 = bucket.arrivals.front().length;
  size_t position = 0;  // of the oldest job in length order
  for (auto it = bucket.by_length.begin(); it->first < l0; ++it) position += it->second.size();
  size_t start = position - position % cap;
  if (start + cap > bucket.jobs) start = bucket.jobs > cap ? bucket.jobs - cap : 0;
  std::map<size_t, size_t> counts;
  size_t seen = 0;
  size_t need = cap;
  for (auto it = bucket.by_length.begin(); it != bucket.by_length.end() && need > 0; ++it) {
    const size_t size = it->second.size();
    if (seen + size > start) {
      const size_t take = std::min(size - (start > seen ? start - seen : 0), need);
      counts[it->first] = take;
      need -= take;
    }
    seen += size;
  }
  const double keep = 1.0 - policy_.max_padding;
  const size_t longest = counts.rbegin()->first;
  const auto shortest_kept = static_cast<size_t>(std::ceil(keep * static_cast<double>(longest)));
  if (l0 >= shortest_kept) {
    counts.erase(counts.begin(), counts.lower_bound(shortest_kept));
  } else {
    counts.clear();
    const auto longest_kept = static_cast<size_t>(static_cast<double>(l0) / keep);
    need = cap;
    for (auto it = bucket.by_length.find(l0); it != bucket.by_length.end() && it->first <= longest_kept && need > 0;
         ++it) {
      const size_t take = std::min(it->second.size(), need);
      counts[it->first] = take;
      need -= take;
    }
  }
  size_t room = cap;
  for (const auto& [length, n] : counts) room -= n;
  const size_t batch_longest = counts.rbegin()->first;
  size_t extra = 0;
  for (auto it = bucket.by_length.find(counts.begin()->first); room > 0 && it != bucket.by_length.begin();) {
    --it;
    const size_t take = std::min(it->second.size(), room);
    extra += take * (batch_longest - it->first);
    if (extra > policy_.extra_padding_tokens) break;
    counts[it->first] = take;
    room -= take;
  }
  return counts;
}

Batch Scheduler::TakeBatch(int index) {
  Bucket& bucket = buckets_[index];
  const size_t cap = static_cast<size_t>(policy_.caps[index]);
  std::vector<Queued> taken;
  taken.reserve(std::min(bucket.jobs, cap));
  auto take_front = [&](size_t length, size_t n) {
    auto list = bucket.by_length.find(length);
    for (size_t i = 0; i < n; ++i) {
      taken.push_back(std::move(list->second.front()));
      list->second.pop_front();
    }
    if (list->second.empty()) bucket.by_length.erase(list);
  };
  if (policy_.formation == Formation::kLength) {
    for (const auto& [length, n] : LengthCounts(bucket, cap)) take_front(length, n);
  } else {
    // Entries of taken jobs never sit at the front (see below), so each
    // front entry here is a queued job: the oldest of its length.
    for (size_t i = std::min(cap, bucket.jobs); i > 0; --i) {
      take_front(bucket.arrivals.front().length, 1);
      bucket.arrivals.pop_front();
    }
  }
  // Drop the entries of taken jobs from the front of the arrival order. A
  // job is taken when its length has no list left, or the list's front (its
  // oldest) arrived after it: batches take each length's jobs oldest first.
  while (!bucket.arrivals.empty()) {
    const Arrival& front = bucket.arrivals.front();
    const auto list = bucket.by_length.find(front.length);
    if (list != bucket.by_length.end() && list->second.front().seq <= front.seq) {
      break;
    }
    bucket.arrivals.pop_front();
  }

  std::sort(taken.begin(), taken.end(), [](const Queued& a, const Queued& b) { return a.seq < b.seq; });
  Batch batch;
  batch.bucket_bound = policy_.bucket_bounds[index];
  batch.jobs.reserve(taken.size());
  for (Queued& queued : taken) {
    const size_t length = queued.job.length();
    const size_t bytes = queued.job.footprint_bytes();
    bucket.tokens -= length;
    queued_tokens_ -= length;
    bucket.bytes -= bytes;
    queued_bytes_ -= bytes;
    batch.jobs.push_back(std::move(queued.job));
  }
  bucket.jobs -= taken.size();
  queued_jobs_ -= taken.size();
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
    if (bucket.jobs == 0) continue;
    const SteadyTime oldest = bucket.arrivals.front().enqueued_at;
    // A full bucket is ready already; its oldest arrival is a time in the
    // past, which tells the caller not to sleep.
    const SteadyTime ready_at =
        bucket.jobs >= static_cast<size_t>(policy_.caps[i]) ? oldest : oldest + policy_.max_batch_delay;
    if (!earliest || ready_at < *earliest) earliest = ready_at;
  }
  return earliest;
}

std::vector<Batch> Scheduler::Drain() {
  std::vector<Batch> batches;
  for (int index = PickBucket([](int) { return true; }); index >= 0; index = PickBucket([](int) { return true; })) {
    batches.push_back(TakeBatch(index));
  }
  return batches;
}

absl::Status Scheduler::SetCap(int bucket_index, int cap) {
  if (bucket_index < 0 || bucket_index >= num_buckets()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bucket index ", bucket_index, " is out of range [0, ", num_buckets(), ")"));
  }
  if (cap < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cap ", cap, " for bucket ", policy_.bucket_bounds[bucket_index], " must be >= 1"));
  }
  policy_.caps[bucket_index] = cap;
  return absl::OkStatus();
}

bool Scheduler::IsFull() const {
  return queued_jobs_ >= policy_.max_queued_jobs || queued_tokens_ >= policy_.max_queued_tokens ||
         (policy_.max_queued_bytes > 0 && queued_bytes_ >= policy_.max_queued_bytes);
}

bool Scheduler::HasRoomToResume() const {
  return 2 * queued_jobs_ < policy_.max_queued_jobs && 2 * queued_tokens_ < policy_.max_queued_tokens &&
         (policy_.max_queued_bytes == 0 || 2 * queued_bytes_ < policy_.max_queued_bytes);
}

int Scheduler::cap(int bucket_index) const { return policy_.caps[bucket_index]; }

size_t Scheduler::bucket_depth(int bucket_index) const { return buckets_[bucket_index].jobs; }

std::vector<BucketStats> Scheduler::Stats() const {
  std::vector<BucketStats> stats;
  stats.reserve(buckets_.size());
  for (int i = 0; i < num_buckets(); ++i) {
    stats.push_back({.bound = policy_.bucket_bounds[i],
                     .cap = policy_.caps[i],
                     .queued_jobs = buckets_[i].jobs,
                     .queued_tokens = buckets_[i].tokens,
                     .queued_bytes = buckets_[i].bytes});
  }
  return stats;
}

}  // namespace qinfer::scheduler
