// Model loading and the memory plan, shared by `serve` and `plan`.
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
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::app {

// The runner's options as configured (device, fallback, autocast, CUDA
// caps): a pure translation, beside the serve_options.h ones because it
// needs the executor's size parser. Errors name memory.cuda_budget.
absl::StatusOr<executor::RunnerOptions> RunnerOptionsFrom(const Config& config);

// The runner as configured (RunnerOptionsFrom), loaded.
absl::StatusOr<std::unique_ptr<executor::TorchModelRunner>> LoadRunner(const Config& config);

// Bucket bounds from the config, defaulting to powers of two up to
// max_tokens; checked against the model's max_tokens.
absl::StatusOr<std::vector<int>> BucketBounds(const Config& config, const executor::ModelManifest& manifest);

// The over-long input settings (admission.*, long_lane.*) against the model
// and the longest bucket: chunk needs task embed or tokens and an overlap below
// max_tokens; a long lane needs a fallback device and a model whose
// positions reach long_lane.max_tokens. Errors say which key to change.
absl::Status CheckAdmission(const Config& config, const executor::ModelManifest& manifest, int max_tokens);

// `qinfer replay --policy chunk` against the model of `config` (model.path,
// when the configuration names one, and its manifest): refused, naming the
// task, when the model's task is classify or rerank (no library defines
// chunk for them). OK for any other policy, and when no manifest can be read
// (the service's admission then says the same for each job).
absl::Status CheckReplayPolicy(const Config& config, const std::string& policy);

// The model's tokenizer when its manifest names one (nullptr when it names
// none: the model takes input_ids only), checked against the model: its ids
// must lie in the model's vocabulary, and a chunk window must have room for
// admission.chunk_overlap tokens beside the special tokens. Errors name the
// file, or the key to change.
absl::StatusOr<std::unique_ptr<tokenizer::Tokenizer>> LoadTokenizer(const Config& config,
                                                                    const executor::ModelManifest& manifest,
                                                                    int max_tokens);

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
