// Calibration of the memory plan: for each bucket bound L, longest first, the
// largest batch B whose measured peak stays within budget * (1 - margin),
// found by running the real model on synthetic [B, L] inputs on the primary
// device. The search itself is core's SearchFittingBatch (memory_plan.h),
// a pure function of "does B fit"; this file measures.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/memory_plan.h"

namespace qinfer::executor {

// What calibration measures: the primary device of a loaded model
// (TorchModelRunner).
class CalibrationTarget {
 public:
  virtual ~CalibrationTarget() = default;
  // The peak bytes of one forward pass of `batch` synthetic inputs of
  // `length` tokens; ResourceExhausted when it ran out of memory.
  virtual absl::StatusOr<int64_t> MeasurePeak(int batch, int length) = 0;
  virtual int64_t budget_bytes() = 0;  // 0: no budget to plan in
  // 0: any batch size; else the largest the model runs (an aoti package).
  virtual int max_batch() const = 0;
  // What the plan is keyed by.
  virtual const std::string& primary_digest() const = 0;
  virtual const std::string& device() const = 0;
  virtual const std::string& dtype() const = 0;
};

struct CalibrationOptions {
  std::vector<int> bounds;                         // bucket bounds, increasing
  int max_batch_size = 64;                         // never plan above this
  double margin = 0.1;                             // headroom against fragmentation and drift
  std::function<void(const PlanEntry&)> on_entry;  // progress; may be empty
  const Clock* clock = &RealClock();               // the plan's created_at_ms; not owned
};

// The largest batch of `length`-token inputs whose measured peak on the
// target stays within `limit_bytes`, searched by bisection in (lo, hi): `lo`
// is known to fit (0: nothing known), `hi` is known not to (or is max batch
// + 1). Returns lo when hi - lo <= 1, and 0 when not even one input fits.
// `peak` (optional) receives the peak measured at the result. An error other
// than running out of memory is returned as is.
absl::StatusOr<int> LargestFittingBatch(CalibrationTarget& target, int length, int lo, int hi, int64_t limit_bytes,
                                        int64_t* peak = nullptr);

// Returns the plan (model digest, device, dtype, budget, libtorch version
// filled in). FailedPrecondition when the device has no budget to plan in.
absl::StatusOr<MemoryPlan> Calibrate(CalibrationTarget& target, const CalibrationOptions& options);

}  // namespace qinfer::executor
