// The memory plan: for each length bucket, the largest batch that fits the
// device-memory budget, measured by running the real model (DESIGN.md,
// "Memory plan"). A plain value type; the executor measures it, the app
// persists it and hands the caps to the scheduler.
#pragma once

#include <cstdint>
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

}  // namespace qinfer
