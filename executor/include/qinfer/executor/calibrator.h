// Calibration of the memory plan: for each bucket bound L, longest first, the
// largest batch B whose measured peak stays within budget * (1 - margin),
// found by running the real model on synthetic [B, L] inputs on the primary
// device (doubling from the previous bucket's B, then bisection).
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/memory_plan.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {

struct CalibrationOptions {
  std::vector<int> bounds;                         // bucket bounds, increasing
  int max_batch_size = 64;                         // never plan above this
  double margin = 0.1;                             // headroom against fragmentation and drift
  std::function<void(const PlanEntry&)> on_entry;  // progress; may be empty
};

// The largest batch of `length`-token inputs whose measured peak on the
// runner's primary device stays within `limit_bytes`, searched by bisection
// in (lo, hi): `lo` is known to fit (0: nothing known), `hi` is known not to
// (or is max batch + 1). Returns lo when hi - lo <= 1, and 0 when not even
// one input fits. `peak` (optional) receives the peak measured at the result.
// An error other than running out of memory is returned as is.
absl::StatusOr<int> LargestFittingBatch(TorchModelRunner& runner, int length, int lo, int hi, int64_t limit_bytes,
                                        int64_t* peak = nullptr);

// Returns the plan (model digest, device, dtype, budget, libtorch version
// filled in). FailedPrecondition when the device has no budget to plan in.
absl::StatusOr<MemoryPlan> Calibrate(TorchModelRunner& runner, const CalibrationOptions& options);

}  // namespace qinfer::executor
