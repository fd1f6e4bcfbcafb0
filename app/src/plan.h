// The memory plan: loaded or calibrated, kept when the ladder lowers a cap,
// and printed by `qinfer plan`.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "config.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/memory_plan.h"
#include "qinfer/core/store_writes.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/scheduler/batch_queue.h"

namespace qinfer::app {

// The stored plan for this model/device/dtype/budget/libtorch/buckets, or a
// fresh calibration (persisted through `writes`: a write that keeps failing
// is an error here and the fatal condition there) when there is none or
// `recalibrate`.
// nullopt when the device has no budget or memory.plan is false.
struct PlanChoice {
  std::optional<MemoryPlan> plan;
  bool calibrated = false;  // false: reused from the store
};
absl::StatusOr<PlanChoice> LoadOrCalibratePlan(executor::TorchModelRunner& runner, MetaStore& store,
                                               StoreWrites& writes, const Config& config,
                                               const std::vector<int>& bounds, bool recalibrate);

// Ladder step 2 at the service level: a lowered cap goes to the scheduler
// and into the stored plan, written through `writes` like every store write
// (one that keeps failing raises the store's fatal condition). Called on the
// executor thread.
class PlanKeeper final : public executor::CapListener {
 public:
  PlanKeeper(std::optional<MemoryPlan> plan, MetaStore& store, StoreWrites& writes, scheduler::BatchQueue& queue);
  void OnCapLowered(int bound, int new_cap, int failed_size) override;

 private:
  std::optional<MemoryPlan> plan_;
  MetaStore& store_;
  StoreWrites& writes_;
  scheduler::BatchQueue& queue_;
};

// `qinfer plan`: prints the plan table; returns the exit code.
int PlanCommand(const Config& config, bool recalibrate);

}  // namespace qinfer::app
