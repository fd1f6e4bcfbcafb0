#include "admission_checks.h"

#include <filesystem>

#include "model_load.h"
#include "qinfer/scheduler/buckets.h"

namespace qinfer::app {

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
  // Windows are a text's: a vision-only model has none.
  if (manifest.takes_tokens && config.admission.chunk_overlap >= max_tokens) {
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
  if (!FallsBackToCpu(config)) {
    return absl::InvalidArgumentError(
        "long_lane.max_tokens needs a fallback device to run long inputs on: set model.fallback_device=cpu");
  }
  return absl::OkStatus();
}

}  // namespace qinfer::app
