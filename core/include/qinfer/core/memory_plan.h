// The memory plan: for each length bucket, the largest batch that fits the
// device-memory budget, measured by running the real model (docs/design/memory.md,
// "The memory plan"). A plain value type; the executor measures it, the app
// persists it and hands the caps to the scheduler.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qinfer {

struct PlanEntry {
  int bound = 0;           // bucket upper bound, tokens
  int batch_size = 0;      // largest batch that fits; 0: not even one job fits
  int64_t peak_bytes = 0;  // measured peak at (batch_size, bound)
  double calibration_seconds = 0;
  int lowered_from = 0;  // >0: an OOM at run time lowered the cap from this

  bool fits() const { return batch_size > 0; }
  friend bool operator==(const PlanEntry&, const PlanEntry&) = default;
};

struct MemoryPlan {
  std::string model_digest;
  std::string device;  // e.g. "cpu-budget:256MiB", "cuda:0"
  std::string dtype;   // "float32", or the autocast dtype
  std::string torch_version;
  int64_t budget_bytes = 0;
  double margin = 0.1;  // plan within budget * (1 - margin)
  int max_batch_size = 0;
  std::vector<int> bounds;
  std::vector<PlanEntry> entries;  // one per bound, same order
  int64_t created_at_ms = 0;

  // The identity of a plan: a stored plan is reused only when every part of
  // the key matches (model, device, dtype, budget, libtorch, buckets, ...).
  std::string Key() const;
  int64_t limit_bytes() const { return int64_t(double(budget_bytes) * (1.0 - margin)); }
  friend bool operator==(const MemoryPlan&, const MemoryPlan&) = default;
};

std::string PlanToJson(const MemoryPlan& plan);
absl::StatusOr<MemoryPlan> PlanFromJson(std::string_view json);

// The table `qinfer plan` prints: bound, batch, tokens/batch, peak, % of
// budget, calibration time.
std::string FormatPlan(const MemoryPlan& plan);

// The plan's search, over a function alone (no model, no device): whether a
// batch of `batch` inputs fits, with *peak set to its measured peak when it
// ran. An error other than "does not fit" is returned as is and ends the
// search.
using FitsFn = std::function<absl::StatusOr<bool>(int batch, int64_t* peak)>;

struct FittingBatch {
  int batch = 0;     // 0: not even one input fits
  int64_t peak = 0;  // measured at `batch`
};

// Bisection in (lo.batch, hi): `lo` fits (0: nothing known), `hi` does not
// (or is the largest batch + 1). Returns lo when hi - lo.batch <= 1.
absl::StatusOr<FittingBatch> BisectFittingBatch(const FitsFn& fits, FittingBatch lo, int hi);

// The largest batch in [1, max_batch] that fits: tries `first` (clamped to
// the range; the next longer bucket's batch, which fits a shorter one in all
// but odd cases), doubles while it fits, or tries 1, 2, 4, ... below it when
// it does not, then bisects between what fits and what does not. With
// `limit_bytes` (the bound `fits` holds peaks to), once two batches fit it
// tries where their peaks' line meets the limit, and one more, before
// doubling on: a long bucket's batches cost seconds each on a CPU, and a
// peak that grows by a fixed amount a row is found in four tries.
absl::StatusOr<FittingBatch> SearchFittingBatch(const FitsFn& fits, int first, int max_batch,
                                                int64_t limit_bytes = 0);

}  // namespace qinfer
