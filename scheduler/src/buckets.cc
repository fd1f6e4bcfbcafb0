#include "qinfer/scheduler/buckets.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace qinfer::scheduler {

std::vector<int> DefaultBucketBounds(int max_tokens, int min_bound) {
  std::vector<int> bounds;
  if (max_tokens <= 0) return bounds;
  // 64-bit so that doubling past INT_MAX / 2 cannot overflow.
  for (int64_t bound = std::max(min_bound, 1); bound < max_tokens; bound *= 2) {
    bounds.push_back(static_cast<int>(bound));
  }
  bounds.push_back(max_tokens);
  return bounds;
}

absl::Status ValidateBucketBounds(const std::vector<int>& bounds, int max_tokens) {
  if (bounds.empty()) {
    return absl::InvalidArgumentError(
        "bucket bounds are empty: give at least one bound (the last one "
        "equal to max_tokens)");
  }
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (bounds[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bucket bound #", i, " is ", bounds[i], ": bounds must be positive token counts"));
    }
    if (i > 0 && bounds[i] <= bounds[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat("bucket bound #", i, " (", bounds[i],
                                                     ") is not greater than bound #", i - 1, " (", bounds[i - 1],
                                                     "): bounds must be strictly increasing"));
    }
  }
  if (bounds.back() != max_tokens) {
    return absl::InvalidArgumentError(absl::StrCat("last bucket bound is ", bounds.back(), " but max_tokens is ",
                                                   max_tokens, ": the last bound must equal max_tokens"));
  }
  return absl::OkStatus();
}

int BucketIndexFor(const std::vector<int>& bounds, size_t length) {
  // First bound >= length; the bounds are sorted.
  auto it = std::lower_bound(bounds.begin(), bounds.end(), length,
                             [](int bound, size_t len) { return static_cast<size_t>(bound) < len; });
  if (it == bounds.end()) return -1;
  return static_cast<int>(it - bounds.begin());
}

}  // namespace qinfer::scheduler
