#include "qinfer/pipeline/executor_loop.h"

#include <algorithm>

#include "qinfer/core/logging.h"

namespace qinfer::pipeline {
namespace {

std::vector<Origin> OriginsOf(const std::vector<Job>& jobs) {
  std::vector<Origin> origins;
  origins.reserve(jobs.size());
  for (const Job& job : jobs) origins.push_back(job.origin);
  return origins;
}

}  // namespace

ExecutorLoop::ExecutorLoop(scheduler::BatchQueue& queue, ModelRunner& runner,
                           OutcomeRecorder& recorder, AttemptLog* attempts, Health& health,
                           const Clock& clock, LoopOptions options, BatchObserver* observer)
    : queue_(queue),
      runner_(runner),
      recorder_(recorder),
      attempts_(attempts),
      health_(health),
      clock_(clock),
      options_(options),
      observer_(observer) {}

void ExecutorLoop::Run() {
  while (true) {
    health_.Beat(clock_.Now());
    if (health_.fatal()) {
      // Nothing more can become durable: leave everything unacked.
      size_t left = 0;
      for (const Batch& b : queue_.DrainAll()) left += b.jobs.size();
      queue_.Close();
      Abandon(left, "fatal");
      return;
    }
    if (!queue_.closed()) {
      if (std::optional<Batch> batch = queue_.WaitNextBatch(options_.poll)) {
        RunOne(*std::move(batch));
      }
      continue;
    }
    // Closed: what is queued runs within the drain timeout, ready or not.
    const SteadyTime deadline = clock_.Now() + options_.drain_timeout;
    size_t abandoned = 0;
    for (Batch& rest : queue_.DrainAll()) {
      health_.Beat(clock_.Now());
      if (clock_.Now() > deadline || health_.fatal()) {
        abandoned += rest.jobs.size();
        continue;
      }
      RunOne(std::move(rest));
    }
    if (abandoned > 0) Abandon(abandoned, "drain_timeout");
    return;
  }
}

void ExecutorLoop::Abandon(size_t jobs, const char* why) {
  if (jobs == 0) return;
  stats_.abandoned += jobs;
  Logger("pipeline")->warn(
      "event=jobs_abandoned why={} jobs={} (not acked: they run again after a restart)", why,
      jobs);
}

void ExecutorLoop::RunOne(Batch batch) {
  if (attempts_ == nullptr) {
    RunAndRecord(std::move(batch));
    return;
  }
  auto log = Logger("pipeline");
  absl::StatusOr<std::vector<int>> counts = attempts_->Attempts(OriginsOf(batch.jobs));
  if (!counts.ok()) {
    if (health_.RaiseFatal(fatal_cause::kStore,
                           "attempt log unreadable: " + std::string(counts.status().message()))) {
      log->error("event=fatal cause=store error=\"attempt log: {}\"",
                 std::string(counts.status().message()));
    }
    Abandon(batch.jobs.size(), "fatal");
    return;
  }
  Batch fresh{batch.bucket_bound, {}};
  std::vector<std::pair<int, Job>> suspects;  // (attempts so far, job)
  std::vector<Outcome> crashed;
  std::vector<Job> crashed_jobs;
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    Job& job = batch.jobs[i];
    // This life's own attempt (a chunk's earlier window) is not a crash.
    const int seen = (*counts)[i] - (begun_.contains(KeyOf(job.origin)) ? 1 : 0);
    if (seen >= options_.max_attempts) {
      log->warn("event=crash_isolated job={} partition={} offset={} attempts={}", job.id,
                job.origin.partition, job.origin.offset, seen);
      crashed.push_back(FailureFor(
          job, reason::kCrash,
          "the process died " + std::to_string(seen) +
              " times while this job was running; it is not run again (publish it again to retry)"));
      crashed_jobs.push_back(std::move(job));
    } else if (seen > 0) {
      suspects.emplace_back(seen, std::move(job));
    } else {
      fresh.jobs.push_back(std::move(job));
    }
  }
  if (!crashed.empty()) {
    const size_t n = crashed.size();
    if (Record(crashed_jobs, std::move(crashed), nullptr).ok()) stats_.crash_isolated += n;
  }
  auto run = [&](Batch b) {
    if (b.jobs.empty() || health_.fatal()) return;
    std::vector<Origin> first;  // once per message and life
    for (const Job& job : b.jobs) {
      if (begun_.insert(KeyOf(job.origin)).second) first.push_back(job.origin);
    }
    if (absl::Status s = attempts_->BeginAttempts(first); !s.ok()) {
      if (health_.RaiseFatal(fatal_cause::kStore,
                             "attempt log unwritable: " + std::string(s.message()))) {
        log->error("event=fatal cause=store error=\"attempt log: {}\"", std::string(s.message()));
      }
      Abandon(b.jobs.size(), "fatal");
      return;
    }
    RunAndRecord(std::move(b));
  };
  run(std::move(fresh));
  // Fewest attempts first: a job that was merely in the batch-mate's way
  // runs (and is done) before the likelier culprit can take the process
  // down again.
  std::stable_sort(suspects.begin(), suspects.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [seen, job] : suspects) {
    stats_.suspects_run_alone++;
    log->warn("event=suspect_run_alone job={} partition={} offset={} attempts={}", job.id,
              job.origin.partition, job.origin.offset, seen);
    Batch alone{batch.bucket_bound, {}};
    alone.jobs.push_back(std::move(job));
    run(std::move(alone));
  }
}

void ExecutorLoop::RunAndRecord(Batch batch) {
  if (options_.before_batch) options_.before_batch();
  const SteadyTime started = clock_.Now();
  absl::StatusOr<std::vector<Outcome>> outcomes = runner_.Run(batch);
  const std::chrono::nanoseconds run_time = clock_.Now() - started;
  std::vector<Outcome> records;
  if (outcomes.ok()) {
    records = *std::move(outcomes);
  } else {
    for (const Job& job : batch.jobs) {
      records.push_back(
          FailureFor(job, reason::kModelError, std::string(outcomes.status().message())));
    }
  }
  stats_.batches++;
  stats_.jobs_run += batch.jobs.size();
  Logger("pipeline")->debug("event=batch bucket={} batch={} tokens={}", batch.bucket_bound,
                            batch.jobs.size(), batch.total_tokens());
  // Summarised before the recorder consumes the outcomes; counted only once
  // they are durable.
  // Tokens are what ran on the device (chunk windows included); ok and
  // failed count the outcomes recorded (a chunked job once, when whole).
  RecordedBatch summary;
  summary.bucket = batch.bucket_bound;
  summary.jobs = batch.jobs.size();
  summary.run_time = run_time;
  for (const Outcome& o : records) {
    if (!o.ok) continue;
    summary.real_tokens += o.input_length;
    summary.padded_tokens += uint64_t(o.padded_length);
  }
  if (!Record(batch.jobs, std::move(records), &summary).ok()) {
    // The recorder raised the fatal condition; Run() stops on it.
    Logger("pipeline")->error("event=record_failed bucket={} batch={} (jobs stay unacked)",
                              batch.bucket_bound, batch.jobs.size());
    return;
  }
  const SteadyTime durable = clock_.Now();
  for (const Job& job : batch.jobs) {
    if (job.windows > 0) continue;  // a chunk window, not a whole job
    summary.latencies.push_back(durable - job.enqueued_at);
  }
  {
    std::lock_guard lock(mu_);
    BucketTotals& t = totals_[batch.bucket_bound];
    t.batches++;
    t.jobs += summary.jobs;
    t.real_tokens += summary.real_tokens;
    t.padded_tokens += summary.padded_tokens;
  }
  if (observer_ != nullptr) observer_->OnBatchRecorded(summary);
}

absl::Status ExecutorLoop::Record(const std::vector<Job>& jobs, std::vector<Outcome> outcomes,
                                  RecordedBatch* summary) {
  std::vector<Outcome> records;
  records.reserve(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (i < jobs.size() && jobs[i].windows > 0) {
      if (std::optional<Outcome> whole = chunks_.Add(jobs[i], std::move(outcomes[i]))) {
        records.push_back(*std::move(whole));
      }
      continue;
    }
    records.push_back(std::move(outcomes[i]));
  }
  if (records.empty()) return absl::OkStatus();
  for (const Outcome& o : records) {
    begun_.erase(KeyOf(o.origin));
    if (summary == nullptr) continue;
    if (o.ok) summary->ok++;
    else summary->failed[o.reason]++;
  }
  return recorder_.Record(std::move(records));
}

std::map<int, BucketTotals> ExecutorLoop::totals() const {
  std::lock_guard lock(mu_);
  return totals_;
}

}  // namespace qinfer::pipeline
