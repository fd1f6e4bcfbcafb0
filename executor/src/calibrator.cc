#include "qinfer/executor/calibrator.h"

#include <algorithm>

#include "qinfer/core/clock.h"
#include "qinfer/core/logging.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {
namespace {

// Whether `length`-token batches fit within `limit` bytes on `target`.
FitsFn FitsWithin(CalibrationTarget& target, int length, int64_t limit) {
  return [&target, length, limit](int batch, int64_t* peak) -> absl::StatusOr<bool> {
    absl::StatusOr<int64_t> measured = target.MeasurePeak(batch, length);
    if (measured.ok()) {
      *peak = *measured;
      return *measured <= limit;
    }
    if (absl::IsResourceExhausted(measured.status())) return false;
    return measured.status();
  };
}

}  // namespace

absl::StatusOr<int> LargestFittingBatch(CalibrationTarget& target, int length, int lo, int hi, int64_t limit_bytes,
                                        int64_t* peak) {
  absl::StatusOr<FittingBatch> found = BisectFittingBatch(FitsWithin(target, length, limit_bytes), {lo, 0}, hi);
  if (!found.ok()) return found.status();
  if (peak != nullptr && found->batch > lo) *peak = found->peak;
  return found->batch;
}

absl::StatusOr<MemoryPlan> Calibrate(CalibrationTarget& target, const CalibrationOptions& options) {
  MemoryPlan plan;
  plan.model_digest = target.primary_digest();
  plan.device = target.device();
  plan.dtype = target.dtype();
  plan.torch_version = TorchVersion();
  plan.budget_bytes = target.budget_bytes();
  plan.margin = options.margin;
  plan.max_batch_size = options.max_batch_size;
  plan.bounds = options.bounds;
  plan.created_at_ms = options.clock->WallMillis();
  if (plan.budget_bytes <= 0) {
    return absl::FailedPreconditionError("device " + target.device() +
                                         " has no memory budget to plan in: use cpu-budget:<size> or a cuda device");
  }
  if (options.max_batch_size < 1 || options.margin < 0 || options.margin >= 1) {
    return absl::InvalidArgumentError("calibration needs max_batch_size >= 1 and margin in [0, 1)");
  }
  const int64_t limit = plan.limit_bytes();
  plan.entries.resize(options.bounds.size());
  // An aoti package is compiled for batches up to the manifest's max_batch:
  // the search never measures (and the plan never holds) a larger one.
  const int max_batch =
      target.max_batch() > 0 ? std::min(options.max_batch_size, target.max_batch()) : options.max_batch_size;

  int previous = 1;  // B of the next longer bucket: where the search starts
  for (int i = int(options.bounds.size()) - 1; i >= 0; --i) {
    const int length = options.bounds[i];
    const SteadyTime start = RealClock().Now();
    absl::StatusOr<FittingBatch> found =
        SearchFittingBatch(FitsWithin(target, length, limit), previous, max_batch, limit);
    if (!found.ok()) return found.status();
    PlanEntry& e = plan.entries[i];
    e.bound = length;
    e.batch_size = found->batch;
    e.peak_bytes = found->peak;
    e.calibration_seconds = SecondsBetween(start, RealClock().Now());
    Logger("executor")
        .Info("event=calibrated bucket=%d batch=%d peak_bytes=%d limit_bytes=%d seconds=%.2f", length, e.batch_size,
              e.peak_bytes, limit, e.calibration_seconds);
    if (options.on_entry) options.on_entry(e);
    if (found->batch > 0) previous = found->batch;
  }
  return plan;
}

}  // namespace qinfer::executor
