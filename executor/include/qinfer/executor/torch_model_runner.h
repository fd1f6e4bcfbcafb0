// TorchModelRunner: the libtorch side. Loads a TorchScript model that follows
// the contract forward(input_ids int64 [B,L], attention_mask int64 [B,L]) ->
// float [B,D], collates jobs into padded tensors, and runs them under
// torch::InferenceMode. Errors never escape as exceptions: c10::Error is
// caught here and becomes a failure record or a status.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/executor/model_manifest.h"

namespace qinfer::executor {

struct RunnerOptions {
  std::string model_path;     // model.pt
  std::string manifest_path;  // default: manifest.json beside model_path
  std::string device = "cpu"; // "cpu", "cuda:0"
  int intra_op_threads = 0;   // 0: libtorch's default
};

struct RunnerStats {
  uint64_t batches = 0;
  uint64_t forward_passes = 0;
  uint64_t splits = 0;        // a failed batch split in two
  uint64_t oom_events = 0;
  uint64_t model_errors = 0;  // jobs failed alone with model_error
  uint64_t real_tokens = 0;
  uint64_t padded_tokens = 0;
};

// Not thread-safe: one executor thread owns the runner and calls Run.
class TorchModelRunner final : public ModelRunner {
 public:
  // Loads the model onto the device and warms it up with one small batch.
  static absl::StatusOr<std::unique_ptr<TorchModelRunner>> Load(RunnerOptions options);
  ~TorchModelRunner() override;

  // One outcome per job, in order. A batch that fails is split in two and
  // each half retried, recursively, so a job that makes the model fail fails
  // alone (`model_error`, or `oom` when even a single job does not fit) and
  // its batch-mates still get results.
  absl::StatusOr<std::vector<Outcome>> Run(const Batch& batch) override;

  // Runs `rows` as one padded batch of length max(len) (or `padded_length`
  // when larger) and returns one output row per input row. For tests and
  // benchmarks; errors come back as a status.
  absl::StatusOr<std::vector<std::vector<float>>> Forward(
      const std::vector<std::vector<int64_t>>& rows, int padded_length = 0);

  const ModelManifest& manifest() const;
  const std::string& device() const;
  const RunnerStats& stats() const;

  struct Impl;

 private:
  explicit TorchModelRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qinfer::executor
