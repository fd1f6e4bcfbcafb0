// ChunkAssembler: pools the windows of a chunked input (policy `chunk`)
// back into one outcome for the job. Windows run as ordinary jobs in their
// buckets; each window's outcome comes here instead of to the recorder, and
// the job's outcome leaves once every window has one:
//  - all windows ok, token_embed windows (a vector a token): a result of
//    the windows' token vectors in order, each window's Job::keep_from
//    and keep_tail left out (its special tokens inside the whole, the
//    overlap the previous window holds), so each token of the input is
//    there once, with the first window's leading and the last window's
//    trailing special tokens;
//  - all windows ok, tokens windows (whose outcomes hold entities): a result
//    whose entities are the windows' merged as the token-classification
//    pipeline merges a strided input's (MergeWindowEntities), without the
//    per-token list;
//  - all windows ok, otherwise: a result whose output is the length-weighted mean of
//    the windows' pooled outputs (weights: each window's token count, its
//    special tokens included, so tokens in an overlap count once per window
//    that holds them), then scaled to unit L2 length when the model's
//    outputs are normalised (the manifest's `normalized`), so that a pooled
//    result is of the same kind as every other; input_length = the whole
//    input, policy "chunk", windows = n;
//  - any window failed: a failure record for the job with the first failed
//    window's reason, its error prefixed "window i of n: ", and the job's
//    payload (which window 0 carries).
// Nothing is acked before that, so a crash re-reads the message and runs
// every window again. Used by the executor thread only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "qinfer/core/job.h"

namespace qinfer::pipeline {

class ChunkAssembler {
 public:
  // normalize: scale each pooled output to unit L2 length (a zero vector
  // stays zero).
  explicit ChunkAssembler(bool normalize = false) : normalize_(normalize) {}

  // Takes the outcome of `window` (a job with windows > 0). Returns the
  // job's outcome once all its windows are in, else nullopt.
  std::optional<Outcome> Add(const Job& window, Outcome outcome);

  // Jobs with some windows in and some still to come.
  size_t pending() const { return partial_.size(); }

 private:
  struct Partial {
    int received = 0;
    Outcome pooled;           // the job's outcome as it builds up
    std::vector<double> sum;  // weighted sum of outputs
    double weight = 0;
    std::optional<std::vector<Entity>> entities;  // tokens windows: all of theirs
    // token_embed windows: the token vectors each keeps (Job::keep_from,
    // keep_tail), by window, and a vector's width.
    std::map<int, std::vector<float>> rows;
    size_t width = 0;
    std::optional<Outcome> failed;  // the first failed window's outcome
    int failed_window = -1;
    std::string payload;
  };
  // An ok window's part of the job's outcome, into `p`.
  static void Take(Partial& p, const Job& window, Outcome outcome);
  // A window belongs to the job with its id at its message's coordinates.
  using Key = std::tuple<std::string, std::string, int32_t, int64_t>;
  bool normalize_;
  std::map<Key, Partial> partial_;
};

}  // namespace qinfer::pipeline
