// Length buckets: a job of length n belongs to the bucket with the smallest
// upper bound >= n. Bounds are in tokens (input ids); the last bound is the
// service's `max_tokens`, and anything longer is too long to schedule.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/status.h"

namespace qinfer::scheduler {

// The smallest bound DefaultBucketBounds produces, in tokens.
inline constexpr int kDefaultMinBucketBound = 16;

// Powers of two from `min_bound` up to `max_tokens`, then `max_tokens` itself
// as the last bound even when it is not a power of two:
//   512 -> {16, 32, 64, 128, 256, 512}
//   300 -> {16, 32, 64, 128, 256, 300}
//   10  -> {10}
// Returns an empty vector when max_tokens <= 0 (ValidateBucketBounds then
// reports the problem). REQUIRES: min_bound >= 1.
std::vector<int> DefaultBucketBounds(int max_tokens, int min_bound = kDefaultMinBucketBound);

// OK when `bounds` is non-empty, every bound is positive, the bounds are
// strictly increasing and the last one equals `max_tokens`. Otherwise an
// InvalidArgumentError whose message names the offending bound.
absl::Status ValidateBucketBounds(const std::vector<int>& bounds, int max_tokens);

// Index of the smallest bound >= `length`, or -1 when `length` exceeds the
// last bound. A length of 0 maps to bucket 0.
// REQUIRES: `bounds` passes ValidateBucketBounds.
int BucketIndexFor(const std::vector<int>& bounds, size_t length);

}  // namespace qinfer::scheduler
