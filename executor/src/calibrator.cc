#include "qinfer/executor/calibrator.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_format.h"
#include "qinfer/core/logging.h"

namespace qinfer::executor {

namespace {

// Whether a batch of `batch` inputs of `length` tokens runs within `limit`
// bytes; `peak` receives the measured peak when it ran.
absl::StatusOr<bool> FitsWithin(TorchModelRunner& runner, int batch, int length, int64_t limit, int64_t* peak) {
  absl::StatusOr<int64_t> measured = runner.MeasurePeak(batch, length);
  if (measured.ok()) {
    *peak = *measured;
    return *measured <= limit;
  }
  if (absl::IsResourceExhausted(measured.status())) return false;
  return measured.status();
}

}  // namespace

absl::StatusOr<int> LargestFittingBatch(TorchModelRunner& runner, int length, int lo, int hi, int64_t limit_bytes,
                                        int64_t* peak) {
  int64_t measured = 0;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    absl::StatusOr<bool> fit = FitsWithin(runner, mid, length, limit_bytes, &measured);
    if (!fit.ok()) return fit.status();
    if (*fit) {
      lo = mid;
      if (peak != nullptr) *peak = measured;
    } else {
      hi = mid;
    }
  }
  return lo;
}

absl::StatusOr<MemoryPlan> Calibrate(TorchModelRunner& runner, const CalibrationOptions& options) {
  MemoryPlan plan;
  plan.model_digest = runner.primary_digest();
  plan.device = runner.device();
  plan.dtype = runner.dtype();
  plan.torch_version = TorchVersion();
  plan.budget_bytes = runner.memory().budget_bytes();
  plan.margin = options.margin;
  plan.max_batch_size = options.max_batch_size;
  plan.bounds = options.bounds;
  plan.created_at_ms = WallMillis();
  if (plan.budget_bytes <= 0) {
    return absl::FailedPreconditionError("device " + runner.device() +
                                         " has no memory budget to plan in: use cpu-budget:<size> or a cuda device");
  }
  if (options.max_batch_size < 1 || options.margin < 0 || options.margin >= 1) {
    return absl::InvalidArgumentError("calibration needs max_batch_size >= 1 and margin in [0, 1)");
  }
  const int64_t limit = plan.limit_bytes();
  plan.entries.resize(options.bounds.size());
  // An aoti package is compiled for batches up to the manifest's max_batch:
  // the search never measures (and the plan never holds) a larger one.
  const int max_batch = runner.manifest().max_batch > 0 ? std::min(options.max_batch_size, runner.manifest().max_batch)
                                                        : options.max_batch_size;

  int previous = 1;  // B of the next longer bucket: a lower bound here
  for (int i = int(options.bounds.size()) - 1; i >= 0; --i) {
    const int length = options.bounds[i];
    const auto start = std::chrono::steady_clock::now();
    int64_t good_peak = 0;
    auto fits = [&](int b, int64_t* peak) { return FitsWithin(runner, b, length, limit, peak); };
    // Invariant: `lo` fits (0: none known), `hi` does not (max+1: unknown).
    int lo = 0, hi = max_batch + 1;
    int64_t peak = 0;
    const int first = std::clamp(previous, 1, max_batch);
    auto fit = fits(first, &peak);
    if (!fit.ok()) return fit.status();
    if (*fit) {
      lo = first;
      good_peak = peak;
      while (lo < max_batch) {
        const int next = std::min(lo * 2, max_batch);
        fit = fits(next, &peak);
        if (!fit.ok()) return fit.status();
        if (!*fit) {
          hi = next;
          break;
        }
        lo = next;
        good_peak = peak;
      }
    } else {
      hi = first;
      for (int b = 1; b < hi; b *= 2) {
        fit = fits(b, &peak);
        if (!fit.ok()) return fit.status();
        if (!*fit) {
          hi = b;
          break;
        }
        lo = b;
        good_peak = peak;
      }
    }
    if (lo < max_batch) {
      int64_t bisected_peak = good_peak;
      absl::StatusOr<int> largest = LargestFittingBatch(runner, length, lo, hi, limit, &bisected_peak);
      if (!largest.ok()) return largest.status();
      lo = *largest;
      good_peak = bisected_peak;
    }
    PlanEntry& e = plan.entries[i];
    e.bound = length;
    e.batch_size = lo;
    e.peak_bytes = good_peak;
    e.calibration_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Logger("executor")
        .Info("event=calibrated bucket=%d batch=%d peak_bytes=%d limit_bytes=%d seconds=%.2f", length, lo, good_peak,
              limit, e.calibration_seconds);
    if (options.on_entry) options.on_entry(e);
    if (lo > 0) previous = lo;
  }
  return plan;
}

}  // namespace qinfer::executor
