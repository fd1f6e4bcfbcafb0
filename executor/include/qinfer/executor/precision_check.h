// The precision probe: how far the primary device's reduced-precision
// outputs (model.autocast bf16/fp16) drift from the same model in float32.
//
// A fixed set of synthetic rows (deterministic ids spread over the
// vocabulary, lengths from a few tokens up to the text tower's
// max_text_tokens; for a model with an image tower, three synthetic images
// too, through its image method, their worst_length 0) runs
// once through the primary device (TorchModelRunner::Forward, the rows of
// one length as one batch, under the runner's autocast) and once through the plain float32 CPU
// model (a batch of jobs with the override `device: "cpu"` through Run); the
// report holds, for an embed model, the smallest cosine similarity between
// the two outputs of a row (a row whose reduced-precision output has a NaN
// or Inf counts as cosine 0). For classify, rerank and tokens it compares
// what their user reads instead: the activated scores (the softmax, or the
// sigmoid per label, of each row's logits; of each token's for tokens), as
// the largest absolute difference of a score, and the rows (tokens) whose
// top label differs from float32's (an entity list follows each token's
// top label); a non-finite score counts as a difference of 1. On a primary
// with a memory budget, rows that run out of memory together are retried
// one by one, and a row that does not fit alone is left out (counted in
// `skipped`).
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
  bool scores = false;      // classify, rerank, tokens: scores compared (else cosines)
  double min_cosine = 1.0;  // embed: over every row; 1.0 when rows == 0
  double max_score_diff = 0;  // scores: the largest |score - float32's|
  int label_changes = 0;      // scores: rows (tokens) whose top label is not float32's
  int rows = 0;               // rows compared
  int skipped = 0;            // rows left out: they do not fit the primary device alone
  int worst_length = 0;       // the length of the row with min_cosine (max_score_diff)
  double floor = 0;           // embed: the min_cosine asked for
  double bound = 0;           // scores: the max_score_diff allowed
  // The primary's outputs are close enough to float32.
  bool accepted() const {
    return scores ? max_score_diff <= bound && label_changes == 0 : min_cosine >= floor;
  }
};

// Probes `runner` (see above): an embed model against `min_cosine`, in
// (0, 1]; any other against `max_score_diff`, in [0, 1], with no top label
// changed. At most 16 rows. Errors: InvalidArgument for a floor or bound
// outside its range; the status of a forward pass that fails (on either
// side), or Internal for a float32 row that fails, naming its length. Not
// thread-safe: call it on the thread that owns the runner, before the runner
// serves jobs.
absl::StatusOr<PrecisionReport> CheckPrecision(TorchModelRunner& runner, double min_cosine,
                                               double max_score_diff = 0.01);

}  // namespace qinfer::executor
