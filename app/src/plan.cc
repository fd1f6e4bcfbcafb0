#include "plan.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "qinfer/core/logging.h"
#include "qinfer/executor/calibrator.h"
#include "qinfer/scheduler/buckets.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {

absl::StatusOr<executor::RunnerOptions> RunnerOptionsFrom(const Config& config) {
  executor::RunnerOptions o;
  o.model_path = config.model.path;
  o.manifest_path = config.model.manifest;
  o.device = config.model.device;
  o.intra_op_threads = config.model.threads;
  o.mkl_dispatch = config.model.mkl_dispatch;
  o.autocast = config.model.autocast;
  o.op_libraries = config.model.op_libraries;
  if (config.model.fallback_device == "cpu" ||
      (config.model.fallback_device == "auto" && config.model.device != "cpu")) {
    o.fallback_device = "cpu";
  }
  o.cuda_memory_fraction = config.memory.cuda_memory_fraction;
  o.cap_margin = config.memory.margin;
  if (!config.memory.cuda_budget.empty()) {
    auto bytes = executor::ParseBytes(config.memory.cuda_budget);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError("memory.cuda_budget: " + std::string(bytes.status().message()));
    }
    o.cuda_budget_bytes = *bytes;
  }
  absl::StatusOr<int64_t> cache = ParseSizeOrZero(config.memory.cpu_block_cache);
  if (!cache.ok()) {
    return absl::InvalidArgumentError("memory.cpu_block_cache: " + std::string(cache.status().message()));
  }
  o.cpu_block_cache_bytes = *cache;
  return o;
}

absl::StatusOr<std::unique_ptr<executor::TorchModelRunner>> LoadRunner(const Config& config) {
  absl::StatusOr<executor::RunnerOptions> options = RunnerOptionsFrom(config);
  if (!options.ok()) return options.status();
  return executor::TorchModelRunner::Load(*options);
}

absl::StatusOr<std::vector<int>> BucketBounds(const Config& config, const executor::ModelManifest& manifest) {
  const int max_tokens = config.scheduler.max_tokens > 0 ? config.scheduler.max_tokens : manifest.max_tokens;
  if (max_tokens > manifest.max_tokens) {
    return absl::InvalidArgumentError("scheduler.max_tokens=" + std::to_string(max_tokens) +
                                      " exceeds the model's max_tokens=" + std::to_string(manifest.max_tokens));
  }
  std::vector<int> bounds = config.scheduler.bucket_bounds.empty() ? scheduler::DefaultBucketBounds(max_tokens)
                                                                   : config.scheduler.bucket_bounds;
  if (absl::Status s = scheduler::ValidateBucketBounds(bounds, max_tokens); !s.ok()) {
    return absl::InvalidArgumentError("scheduler.bucket_bounds: " + std::string(s.message()));
  }
  return bounds;
}

absl::StatusOr<std::unique_ptr<tokenizer::Tokenizer>> LoadTokenizer(const Config& config,
                                                                    const executor::ModelManifest& manifest,
                                                                    int max_tokens) {
  if (manifest.tokenizer_path.empty()) return std::unique_ptr<tokenizer::Tokenizer>();
  auto loaded = tokenizer::Tokenizer::Load(manifest.tokenizer_path);
  if (!loaded.ok()) {
    return absl::InvalidArgumentError("the model manifest's tokenizer: " + std::string(loaded.status().message()));
  }
  const tokenizer::Tokenizer& t = **loaded;
  if (t.vocab_size() > size_t(manifest.vocab_size)) {
    return absl::InvalidArgumentError("tokenizer " + manifest.tokenizer_path + " has " +
                                      std::to_string(t.vocab_size()) + " tokens, more than the model's vocab_size " +
                                      std::to_string(manifest.vocab_size) + ": not this model's tokenizer?");
  }
  const size_t room = size_t(max_tokens) > t.added_tokens() ? size_t(max_tokens) - t.added_tokens() : 0;
  if (room == 0) {
    return absl::InvalidArgumentError("max_tokens " + std::to_string(max_tokens) + " leaves no room beside the " +
                                      std::to_string(t.added_tokens()) + " special tokens of tokenizer " +
                                      manifest.tokenizer_path + ": raise scheduler.max_tokens");
  }
  if (config.admission.too_long == "chunk" && size_t(config.admission.chunk_overlap) >= room) {
    return absl::InvalidArgumentError("admission.chunk_overlap=" + std::to_string(config.admission.chunk_overlap) +
                                      " must be below " + std::to_string(room) + ": a text's window holds max_tokens " +
                                      std::to_string(max_tokens) + " less its " + std::to_string(t.added_tokens()) +
                                      " special tokens");
  }
  return loaded;
}

absl::Status CheckReplayPolicy(const Config& config, const std::string& policy) {
  if (policy != "chunk" || config.model.path.empty()) return absl::OkStatus();
  const std::string path =
      config.model.manifest.empty()
          ? (std::filesystem::path(config.model.path).parent_path() / "manifest.json").string()
          : config.model.manifest;
  absl::StatusOr<executor::ModelManifest> manifest = executor::ModelManifest::Load(path);
  if (!manifest.ok() || manifest->task.chunks()) return absl::OkStatus();
  return absl::InvalidArgumentError("--policy chunk: the model of this configuration (" + path + ") has task " +
                                    manifest->task.task +
                                    ", for which no library defines chunk (defined for embed, tokens and token_embed); replay "
                                    "with --policy truncate or long_lane");
}

absl::Status CheckAdmission(const Config& config, const executor::ModelManifest& manifest, int max_tokens) {
  const std::string& too_long = config.admission.too_long;
  if (too_long == "chunk" && !manifest.task.chunks()) {
    return absl::InvalidArgumentError("admission.too_long=chunk is defined for tasks embed (pooled windows), "
                                      "tokens and token_embed (stitched windows); this model's task is " +
                                      manifest.task.task +
                                      " (no library defines chunk for it): choose reject, truncate or long_lane");
  }
  if (config.admission.chunk_overlap >= max_tokens) {
    return absl::InvalidArgumentError("admission.chunk_overlap=" + std::to_string(config.admission.chunk_overlap) +
                                      " must be below max_tokens " + std::to_string(max_tokens));
  }
  const int lane = config.long_lane.max_tokens;
  if (lane == 0) {
    if (too_long == "long_lane") {
      return absl::InvalidArgumentError(
          "admission.too_long=long_lane needs long_lane.max_tokens: set it above max_tokens " +
          std::to_string(max_tokens) + ", up to what the model's positions allow (" +
          std::to_string(manifest.max_positions) + ")");
    }
    return absl::OkStatus();
  }
  if (lane <= max_tokens) {
    return absl::InvalidArgumentError("long_lane.max_tokens=" + std::to_string(lane) + " must be above max_tokens " +
                                      std::to_string(max_tokens) + " (or 0: no long lane)");
  }
  if (lane > manifest.max_positions) {
    return absl::InvalidArgumentError(
        "long_lane.max_tokens=" + std::to_string(lane) + ": the model's positions allow at most " +
        std::to_string(manifest.max_positions) + " tokens (manifest max_positions" +
        (manifest.max_positions == manifest.max_tokens ? ", the same as its max_tokens: it has no long lane" : "") +
        "); lower it or set it to 0");
  }
  const bool fallback =
      config.model.fallback_device == "cpu" || (config.model.fallback_device == "auto" && config.model.device != "cpu");
  if (!fallback) {
    return absl::InvalidArgumentError(
        "long_lane.max_tokens needs a fallback device to run long inputs on: set model.fallback_device=cpu");
  }
  return absl::OkStatus();
}

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
