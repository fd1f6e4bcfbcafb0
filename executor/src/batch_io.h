// A batch into tensors and tensors back into outcomes: collation (the rows
// padded into [B, L] ids, mask and token types), output decoding by task
// ([B, D] a row per job, [B, L, C] a row of each job's own tokens) and the
// outcome a row becomes (ResultMaker: the one place a non-finite output
// turns into its job's failure). And how a forward pass's exception is read:
// out of memory or not, in one line. Private to executor/.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "model_backend.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/job.h"
#include "qinfer/executor/model_manifest.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {

// One row of a batch: its ids and, for a pair, their token types (null:
// every token of segment 0), or an image's pixel values. Views: the row
// outlives the forward pass.
struct TokenRow {
  const std::vector<int64_t>* ids = nullptr;
  const std::vector<int64_t>* type_ids = nullptr;
  int pool_skip = 0;  // Job::pool_skip: leading positions marked 2 in the mask (attended, not pooled)
  // An image job's row: its pixel_values (Job::pixels, 3 x height x width)
  // instead of ids; and, for zero_shot, its labels' hypotheses' ids.
  const std::vector<float>* pixels = nullptr;
  int height = 0;
  int width = 0;
  const std::vector<std::vector<int64_t>>* label_ids = nullptr;
  static TokenRow Of(const Job& job) {
    TokenRow row{&job.input_ids, job.type_ids.empty() ? nullptr : &job.type_ids, job.pool_skip};
    if (job.is_image()) {
      row = TokenRow{nullptr, nullptr, 0, &job.pixels, job.pixel_height, job.pixel_width,
                     job.label_ids.empty() ? nullptr : &job.label_ids};
    }
    return row;
  }
  bool is_image() const { return pixels != nullptr; }
};

// The rows on the CPU, padded to the longest row or `padded_length`,
// whichever is longer (*length receives it); token types only when
// `with_type_ids` (0 where a row has none). The mask is 1 over a row's ids,
// 0 over its padding, and 2 over its first pool_skip ids (a prompt a model
// exported with include_prompt false attends to but does not pool). Image
// rows (all of one shape, else std::runtime_error) become `pixels` [B, 3,
// H, W], and *length 0.
BatchTensors Collate(const std::vector<TokenRow>& rows, int64_t padded_length, bool with_type_ids, int64_t* length);

// Moves a collated batch to `device` (nothing to do for the CPU).
void MoveTo(BatchTensors& batch, torch::Device device);

// The model's output as one float row per input row: [B, D] rows whole; for
// task tokens [B, L, C], each row's own tokens' logits, not its padding's.
// Throws std::runtime_error when the shape is not the task's.
std::vector<std::vector<float>> DecodeOutput(const torch::Tensor& out, const std::vector<TokenRow>& rows,
                                             int64_t length, const std::string& task);

// True when `e` is running out of memory. The TorchScript interpreter
// re-throws an error raised inside forward() as another exception type whose
// message carries the original text, so an OOM is recognised by type where
// it survives and by message where it does not (pytorch/pytorch#148642).
bool IsOutOfMemory(const std::exception& e);

// One line that says what went wrong (TorchScript's traceback dropped).
std::string FirstLine(const std::exception& e);

// Throws c10::OutOfMemoryError naming `e`: an AOTInductor package turns an
// exception inside its forward into an error code, so the OOM that caused it
// may not be named in `e`; the device's count of refused allocations says
// it was one.
[[noreturn]] void ThrowOutOfMemory(const std::exception& e, uint64_t refused);

// Turns an output row into its job's outcome.
class ResultMaker {
 public:
  ResultMaker(const ModelManifest& manifest, RunnerStats& stats) : manifest_(manifest), stats_(stats) {}

  // A result, or a model_error record when the row holds NaN or Inf. `device`
  // ran it in a batch of `ran_with` rows padded to `padded`; the job waited
  // from its enqueue to `batch_start` (both on the scheduler's clock).
  Outcome Make(const Batch& batch, size_t i, std::vector<float> output, const std::string& device, size_t ran_with,
               int64_t padded, SteadyTime batch_start, double run_seconds) const;

 private:
  const ModelManifest& manifest_;
  RunnerStats& stats_;
};

}  // namespace qinfer::executor
