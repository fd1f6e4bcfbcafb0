// The OOM ladder (docs/design/memory.md, "The OOM ladder"): what happens to a batch when the
// primary device runs out of memory, in the order the steps are taken.
//  1. split: a failed piece is split in two and each half retried, down to
//     single jobs;
//  2. (after the batch) the runner refits the bucket's cap: OomLadder only
//     reports that an OOM happened and the largest piece that ran;
//  3. fallback: a single job that still does not fit runs alone on the
//     fallback device;
//  4. failure: with no fallback, or when the fallback fails too, the job gets
//     an `oom` record (or `model_error` when the model itself failed it).
// A failure that is not an OOM is split the same way, so that one bad input
// fails alone as `model_error` and the rest of its batch runs.
// Private to executor/; tests/executor/oom_ladder_test.cc drives it with
// models that fail on command.
#pragma once

#include <string>
#include <vector>

#include "batch_io.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/job.h"

namespace qinfer::executor {

// What the ladder runs on. Each Run throws what the model throws; the
// ladder tells an OOM (IsOutOfMemory) from any other failure.
class LadderModels {
 public:
  virtual ~LadderModels() = default;
  // The rows as one batch on the primary device, padded to the longest
  // (*padded receives the length that ran).
  virtual std::vector<std::vector<float>> RunPrimary(const std::vector<TokenRow>& rows, int64_t* padded) = 0;
  // One row alone on the fallback device. Called only with a fallback.
  virtual std::vector<float> RunFallback(const TokenRow& row) = 0;
  virtual const std::string& primary_name() const = 0;
  virtual const std::string& fallback_name() const = 0;  // "": none
  // Gives the primary's cached free memory back after an OOM.
  virtual void ReleaseCache() = 0;
};

// Not thread-safe: the executor thread runs one batch at a time.
class OomLadder {
 public:
  OomLadder(LadderModels& models, const ResultMaker& results, RunnerStats& stats, const Clock& clock)
      : models_(models), results_(results), stats_(stats), clock_(clock) {}

  // What a batch's run found, for the cap refit (step 2).
  struct Findings {
    bool had_oom = false;
    size_t largest_ok = 0;  // the largest piece that ran on the primary
  };

  // Runs jobs[...] of `batch` (indices into batch.jobs) on the primary in
  // pieces of at most `piece`, climbing the ladder where one fails; out[i]
  // receives job i's outcome.
  Findings Run(const Batch& batch, const std::vector<size_t>& jobs, size_t piece, SteadyTime batch_start,
               std::vector<Outcome>& out);

  // Steps 3 and 4 for job i, which cannot run on the primary (`why`).
  void RunAlone(const Batch& batch, size_t i, SteadyTime batch_start, const std::string& why,
                std::vector<Outcome>& out);

 private:
  // jobs[begin, end) as one batch on the primary; on failure, step 1.
  void RunSpan(const Batch& batch, const std::vector<size_t>& jobs, size_t begin, size_t end, SteadyTime batch_start,
               std::vector<Outcome>& out);

  LadderModels& models_;
  const ResultMaker& results_;
  RunnerStats& stats_;
  const Clock& clock_;
  Findings findings_;
};

}  // namespace qinfer::executor
