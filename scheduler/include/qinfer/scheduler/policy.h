// The batching policy: bucket bounds, per-bucket batch caps, the longest a
// job may wait for its batch to fill, and the queue bounds used for
// backpressure.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace qinfer::scheduler {

// How a batch is chosen from a bucket that holds more jobs than its cap.
enum class Formation {
  // The cap oldest jobs, in arrival order (a FIFO queue per bucket).
  kArrival,
  // The bucket's jobs sorted by length and cut into runs of cap; the batch
  // is the run that holds the oldest job, less the jobs that would pad more
  // than max_padding, plus the shorter jobs extra_padding_tokens lets ride
  // along (see Scheduler). Over a backlog this is what sorting
  // the backlog by length and cutting it into batches gives. The oldest job
  // is always taken, so no job waits behind younger ones for more than the
  // bucket's depth in batches.
  kLength,
};

// "arrival" / "length"; the config's scheduler.formation.
const char* FormationName(Formation formation);
absl::StatusOr<Formation> ParseFormation(std::string_view name);

struct BatchPolicy {
  // Upper bounds on input length per bucket, in tokens; strictly increasing,
  // the last one is max_tokens. Default (when built from config):
  // DefaultBucketBounds(max_tokens).
  std::vector<int> bucket_bounds;
  // Most jobs per batch, one entry per bucket (same size as bucket_bounds),
  // each >= 1. A measured memory plan replaces these at run time via
  // Scheduler::SetCap. Default (when built from config): CapsFromTokenBudget.
  std::vector<int> caps;
  // The longest the oldest job of a bucket waits before its bucket is
  // dispatched partially filled. >= 0; 0 dispatches every job immediately.
  std::chrono::milliseconds max_batch_delay{50};
  // Which jobs of a bucket make its next batch.
  Formation formation = Formation::kLength;
  // kLength only: every job of a batch is at least (1 - max_padding) x the
  // batch's longest, so padding is at most this fraction of any padded row;
  // shorter jobs wait for a batch of their own lengths. In [0, 1).
  double max_padding = 0.08;
  // kLength only: beyond max_padding, a batch with room under its cap takes
  // the bucket's next shorter jobs, longest first, while the padding they add
  // in all (rows x the gap to the batch's longest) is at most this many
  // tokens. It stands for a batch's fixed cost (each op dispatched once,
  // threads woken), which a small batch of those jobs alone would pay
  // again. 0: none.
  size_t extra_padding_tokens = 0;
  // Backpressure bounds (see Scheduler::IsFull / HasRoomToResume). Jobs, and
  // tokens counted as real input ids (not padded). Both >= 1;
  // max_queued_jobs >= the largest cap (else full batches could never form)
  // and max_queued_tokens >= max_tokens (else one long job fills the queue).
  size_t max_queued_jobs = 0;
  size_t max_queued_tokens = 0;
  // Bytes held by queued jobs (Job::footprint_bytes: ids, payload, meta).
  // 0: no byte bound. Otherwise >= max_job_bytes below.
  size_t max_queued_bytes = 0;
  // The largest footprint one job can have (the caller's message bound);
  // only used to validate max_queued_bytes. 0: not checked.
  size_t max_job_bytes = 0;

  friend bool operator==(const BatchPolicy&, const BatchPolicy&) = default;
};

// Per-bucket caps from a token budget per batch:
//   cap[i] = max(1, min(max_batch_size, tokens_per_batch / bounds[i]))
// so every bucket's padded batch (cap x bound) stays within the budget,
// except that a bucket always takes at least one job.
// REQUIRES: every bound > 0.
std::vector<int> CapsFromTokenBudget(const std::vector<int>& bounds, int tokens_per_batch, int max_batch_size);

// OK when `policy` is usable: bounds valid (ValidateBucketBounds against
// their own last bound), one cap >= 1 per bucket, max_batch_delay >= 0, and
// the queue bounds as documented above. Otherwise an InvalidArgumentError
// that names the field and the fix.
absl::Status ValidateBatchPolicy(const BatchPolicy& policy);

}  // namespace qinfer::scheduler
