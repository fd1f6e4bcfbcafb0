#include "plan.h"

#include <iostream>

#include "admission_checks.h"
#include "model_load.h"
#include "qinfer/core/logging.h"
#include "qinfer/executor/calibrator.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {

absl::StatusOr<PlanChoice> LoadOrCalibratePlan(executor::TorchModelRunner& runner, MetaStore& store,
                                               StoreWrites& writes, const Config& config,
                                               const std::vector<int>& bounds, bool recalibrate) {
  auto log = Logger("app");
  PlanChoice choice;
  if (!config.memory.plan) return choice;
  if (runner.memory().budget_bytes() <= 0) {
    log.Info("event=no_plan reason=\"device %v has no memory budget; caps come from scheduler.tokens_per_batch\"",
             config.model.device);
    return choice;
  }
  MemoryPlan wanted;
  wanted.model_digest = runner.primary_digest();
  wanted.device = runner.device();
  wanted.dtype = runner.dtype();
  wanted.torch_version = executor::TorchVersion();
  wanted.budget_bytes = runner.memory().budget_bytes();
  wanted.margin = config.memory.margin;
  wanted.max_batch_size = config.scheduler.max_batch_size;
  wanted.bounds = bounds;
  const std::string key = wanted.Key();
  if (!recalibrate) {
    auto stored = store.GetMeta(key);
    if (!stored.ok()) return stored.status();
    if (stored->has_value()) {
      auto plan = PlanFromJson(**stored);
      if (plan.ok()) {
        log.Info("event=plan_reused key=%v", key);
        choice.plan = *std::move(plan);
        return choice;
      }
      log.Warn("event=plan_unreadable key=%v error=\"%v\" (recalibrating)", key, std::string(plan.status().message()));
    }
  }
  log.Info("event=calibrating device=%v budget_bytes=%v buckets=%v", wanted.device, wanted.budget_bytes, bounds.size());
  executor::CalibrationOptions options;
  options.bounds = bounds;
  options.max_batch_size = config.scheduler.max_batch_size;
  options.margin = config.memory.margin;
  auto plan = executor::Calibrate(runner, options);
  if (!plan.ok()) return plan.status();
  const std::string json = PlanToJson(*plan);
  if (absl::Status s = writes.Write(StoreWrite::kPlan, [&] { return store.PutMeta(key, json); }); !s.ok()) return s;
  choice.plan = *std::move(plan);
  choice.calibrated = true;
  return choice;
}

PlanKeeper::PlanKeeper(std::optional<MemoryPlan> plan, MetaStore& store, StoreWrites& writes,
                       scheduler::BatchQueue& queue)
    : plan_(std::move(plan)), store_(store), writes_(writes), queue_(queue) {}

void PlanKeeper::OnCapLowered(int bound, int new_cap, int failed_size) {
  auto log = Logger("app");
  const std::vector<int>& bounds = queue_.bounds();
  const auto it = std::find(bounds.begin(), bounds.end(), bound);
  if (it == bounds.end()) return;
  const int index = int(it - bounds.begin());
  const int old_cap = queue_.cap(index);
  if (new_cap >= old_cap) return;  // another OOM already lowered it further
  if (absl::Status s = queue_.SetCap(index, new_cap); !s.ok()) return;
  log.Warn("event=cap_lowered bucket=%v from=%v to=%v failed_batch=%v", bound, old_cap, new_cap, failed_size);
  if (!plan_ || size_t(index) >= plan_->entries.size()) return;  // not a planned bucket
  PlanEntry& e = plan_->entries[size_t(index)];
  if (e.lowered_from == 0) e.lowered_from = e.batch_size;
  e.batch_size = new_cap;
  // A write that keeps failing raised the fatal condition in StoreWrites:
  // the instance stops, and the cap is found again after the restart.
  const std::string json = PlanToJson(*plan_);
  (void)writes_.Write(StoreWrite::kPlan, [&] { return store_.PutMeta(plan_->Key(), json); });
}

int PlanCommand(const Config& config, bool recalibrate) {
  auto runner = LoadRunner(config);
  if (!runner.ok()) {
    std::cerr << "qinfer plan: " << runner.status().message() << "\n";
    return 2;
  }
  auto bounds = BucketBounds(config, (*runner)->manifest());
  if (!bounds.ok()) {
    std::cerr << "qinfer plan: " << bounds.status().message() << "\n";
    return 2;
  }
  auto store = storage::RocksDbOutcomeStore::Open(config.storage.path, {});
  if (!store.ok()) {
    std::cerr << "qinfer plan: storage.path: " << store.status().message()
              << " (a running server holds the store: stop it, or point storage.path elsewhere)\n";
    return 2;
  }
  Config with_plan = config;
  with_plan.memory.plan = true;
  Health health;  // this command's own: a plan write that keeps failing ends it
  StoreWrites writes(health, {});
  auto choice = LoadOrCalibratePlan(**runner, **store, writes, with_plan, *bounds, recalibrate);
  if (!choice.ok()) {
    std::cerr << "qinfer plan: " << choice.status().message() << "\n";
    return 2;
  }
  if (!choice->plan) {
    std::cerr << "qinfer plan: device " << config.model.device
              << " has no memory budget to plan in; use cpu-budget:<size> or cuda:N\n";
    return 2;
  }
  std::cout << (choice->calibrated ? "calibrated" : "reused the stored plan") << " (key " << choice->plan->Key()
            << ")\n"
            << FormatPlan(*choice->plan);
  return 0;
}

}  // namespace qinfer::app
