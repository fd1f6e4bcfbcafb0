#include "oom_ladder.h"

#include <algorithm>

#include "qinfer/core/logging.h"

namespace qinfer::executor {

OomLadder::Findings OomLadder::Run(const Batch& batch, const std::vector<size_t>& jobs, size_t piece,
                                   SteadyTime batch_start, std::vector<Outcome>& out) {
  findings_ = {};
  for (size_t begin = 0; begin < jobs.size(); begin += piece) {
    RunSpan(batch, jobs, begin, std::min(jobs.size(), begin + piece), batch_start, out);
  }
  return findings_;
}

void OomLadder::RunSpan(const Batch& batch, const std::vector<size_t>& jobs, size_t begin, size_t end,
                        SteadyTime batch_start, std::vector<Outcome>& out) {
  std::vector<TokenRow> rows;
  for (size_t k = begin; k < end; ++k) rows.push_back(TokenRow::Of(batch.jobs[jobs[k]]));
  const SteadyTime start = clock_.Now();
  std::string error;
  bool oom = false;
  try {
    // Padded to the longest job of the span, not to the bucket bound.
    int64_t padded = 0;
    std::vector<std::vector<float>> outputs = models_.RunPrimary(rows, &padded);
    const double run_seconds = SecondsBetween(start, clock_.Now());
    for (size_t k = begin; k < end; ++k) {
      out[jobs[k]] = results_.Make(batch, jobs[k], std::move(outputs[k - begin]), models_.primary_name(), end - begin,
                                   padded, batch_start, run_seconds);
    }
    findings_.largest_ok = std::max(findings_.largest_ok, end - begin);
    return;
  } catch (const std::exception& e) {
    oom = IsOutOfMemory(e);
    error = FirstLine(e);
  }
  if (oom) {
    stats_.oom_events++;
    findings_.had_oom = true;
    models_.ReleaseCache();
  }
  if (end - begin > 1) {
    stats_.splits++;
    const size_t mid = begin + (end - begin) / 2;
    Logger("executor")
        .Debug("event=split bucket=%d batch=%d oom=%s error=\"%s\"", batch.bucket_bound, end - begin,
               oom ? "true" : "false", error);
    RunSpan(batch, jobs, begin, mid, batch_start, out);
    RunSpan(batch, jobs, mid, end, batch_start, out);
    return;
  }
  if (oom) {
    RunAlone(batch, jobs[begin], batch_start, error, out);
    return;
  }
  const Job& job = batch.jobs[jobs[begin]];
  stats_.model_errors++;
  Logger("executor")
      .Warn("event=job_failed job=%s reason=model_error length=%d error=\"%s\"", job.id, job.length(), error);
  out[jobs[begin]] = FailureFor(job, reason::kModelError, error);
}

void OomLadder::RunAlone(const Batch& batch, size_t i, SteadyTime batch_start, const std::string& why,
                         std::vector<Outcome>& out) {
  const Job& job = batch.jobs[i];
  std::string error = why;
  const char* failure = reason::kOom;
  if (const std::string& fallback = models_.fallback_name(); !fallback.empty()) {
    const SteadyTime start = clock_.Now();
    try {
      std::vector<float> output = models_.RunFallback(TokenRow::Of(job));
      stats_.fallback_runs++;
      Logger("executor")
          .Info("event=fallback_run job=%s bucket=%d length=%d device=%s", job.id, batch.bucket_bound, job.length(),
                fallback);
      out[i] = results_.Make(batch, i, std::move(output), fallback, 1, int64_t(job.length()), batch_start,
                             SecondsBetween(start, clock_.Now()));
      return;
    } catch (const std::exception& e) {
      error = "primary: " + why + "; fallback " + fallback + ": " + FirstLine(e);
      // More memory would not help a job the model itself fails on.
      if (!IsOutOfMemory(e)) failure = reason::kModelError;
    }
  }
  (failure == reason::kOom ? stats_.oom_failures : stats_.model_errors)++;
  Logger("executor")
      .Warn("event=job_failed job=%s reason=%s bucket=%d length=%d error=\"%s\"", job.id, failure, batch.bucket_bound,
            job.length(), error);
  out[i] = FailureFor(job, failure, error);
}

}  // namespace qinfer::executor
