#include "qinfer/scheduler/policy.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "qinfer/scheduler/buckets.h"

namespace qinfer::scheduler {

const char* FormationName(Formation formation) {
  switch (formation) {
    case Formation::kArrival:
      return "arrival";
    case Formation::kLength:
      return "length";
  }
  return "unknown";
}

absl::StatusOr<Formation> ParseFormation(std::string_view name) {
  if (name == "length") return Formation::kLength;
  if (name == "arrival") return Formation::kArrival;
  return absl::InvalidArgumentError(absl::StrCat("batch formation '", std::string(name),
                                                 "' is not known: expected length (least padding) or arrival (FIFO)"));
}

std::vector<int> CapsFromTokenBudget(const std::vector<int>& bounds, int tokens_per_batch, int max_batch_size) {
  std::vector<int> caps;
  caps.reserve(bounds.size());
  for (int bound : bounds) {
    caps.push_back(std::max(1, std::min(max_batch_size, tokens_per_batch / bound)));
  }
  return caps;
}

absl::Status ValidateBatchPolicy(const BatchPolicy& policy) {
  const std::vector<int>& bounds = policy.bucket_bounds;
  if (bounds.empty()) {
    return absl::InvalidArgumentError(
        "BatchPolicy.bucket_bounds is empty: give at least one bound (the "
        "last one is max_tokens), e.g. DefaultBucketBounds(max_tokens)");
  }
  if (absl::Status s = ValidateBucketBounds(bounds, bounds.back()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("BatchPolicy.bucket_bounds: ", s.message()));
  }
  if (policy.caps.size() != bounds.size()) {
    return absl::InvalidArgumentError(absl::StrCat("BatchPolicy.caps has ", policy.caps.size(),
                                                   " entries but there are ", bounds.size(),
                                                   " buckets: give one cap per bucket"));
  }
  for (size_t i = 0; i < policy.caps.size(); ++i) {
    if (policy.caps[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat("BatchPolicy.caps[", i, "] (bucket bound ", bounds[i], ") is ",
                                                     policy.caps[i], ": every cap must be >= 1"));
    }
  }
  if (policy.max_batch_delay.count() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("BatchPolicy.max_batch_delay is ", policy.max_batch_delay.count(), "ms: it must be >= 0"));
  }
  if (!(policy.max_padding >= 0 && policy.max_padding < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("BatchPolicy.max_padding is ", policy.max_padding,
                                                   ": it must be in [0, 1) (0.08: no job pads more than 8%)"));
  }
  const int largest_cap = *std::max_element(policy.caps.begin(), policy.caps.end());
  if (policy.max_queued_jobs < static_cast<size_t>(largest_cap)) {
    return absl::InvalidArgumentError(
        absl::StrCat("BatchPolicy.max_queued_jobs is ", policy.max_queued_jobs, " but the largest cap is ", largest_cap,
                     ": raise max_queued_jobs to at least the largest cap, or full batches "
                     "could never form"));
  }
  if (policy.max_queued_tokens < static_cast<size_t>(bounds.back())) {
    return absl::InvalidArgumentError(absl::StrCat("BatchPolicy.max_queued_tokens is ", policy.max_queued_tokens,
                                                   " but max_tokens is ", bounds.back(),
                                                   ": raise max_queued_tokens to at least max_tokens, or one long job "
                                                   "fills the queue"));
  }
  if (policy.max_queued_bytes != 0 && policy.max_queued_bytes < policy.max_job_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BatchPolicy.max_queued_bytes is ", policy.max_queued_bytes, " but one job may hold ", policy.max_job_bytes,
        " bytes: raise max_queued_bytes (or lower the message bound), or one "
        "large job fills the queue"));
  }
  return absl::OkStatus();
}

}  // namespace qinfer::scheduler
