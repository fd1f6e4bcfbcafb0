// The precision probe: how far the primary device's reduced-precision
// outputs (model.autocast bf16/fp16) drift from the same model in float32.
//
// A fixed set of synthetic rows (deterministic ids spread over the
// vocabulary, lengths from a few tokens up to the manifest's max_tokens) runs
// once through the primary device (TorchModelRunner::Forward, the rows of
// one length as one batch, under the runner's autocast) and once through the plain float32 CPU
// model (a batch of jobs with the override `device: "cpu"` through Run); the
// report holds the smallest cosine similarity between the two outputs of a
// row. A row whose reduced-precision output has a NaN or Inf counts as
// cosine 0. On a primary with a memory budget, rows that run out of memory
// together are retried one by one, and a row that does not fit alone is
// left out (counted in `skipped`).
//
// The float32 side goes through Run's `device: cpu` path, so its rows count
// in RunnerStats::override_runs (and a CPU copy of the model is loaded when
// neither the fallback nor the primary is a plain CPU model; it is then
// kept, as for any `device: cpu` job).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "qinfer/executor/torch_model_runner.h"

namespace qinfer::executor {

struct PrecisionReport {
  std::string dtype;        // the primary's dtype, as TorchModelRunner::dtype() says it
  double min_cosine = 1.0;  // over every row; 1.0 when rows == 0
  int rows = 0;             // rows compared
  int skipped = 0;          // rows left out: they do not fit the primary device alone
  int worst_length = 0;     // the length of the row with min_cosine
  double floor = 0;         // the min_cosine asked for
  // The primary's outputs are close enough to float32.
  bool accepted() const { return min_cosine >= floor; }
};

// Probes `runner` (see above) and compares against `min_cosine`, in (0, 1].
// At most 16 rows. Errors: InvalidArgument for a floor outside (0, 1]; the
// status of a forward pass that fails (on either side), or Internal for a
// float32 row that fails, naming its length. Not thread-safe: call it on the
// thread that owns the runner, before the runner serves jobs.
absl::StatusOr<PrecisionReport> CheckPrecision(TorchModelRunner& runner, double min_cosine);

}  // namespace qinfer::executor
