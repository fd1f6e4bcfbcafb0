#include "qinfer/pipeline/executor_loop.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/thread_name.h"

namespace qinfer::pipeline {
namespace {

std::vector<Origin> OriginsOf(const std::vector<Job>& jobs) {
  std::vector<Origin> origins;
  origins.reserve(jobs.size());
  for (const Job& job : jobs) origins.push_back(job.origin);
  return origins;
}

// A sparse result's `k` largest weights, as SparseEncoder's max_active_dims
// keeps them (a tie at the k-th weight goes to the lower index; the library
// leaves that order to torch.topk), still by index.
void KeepTopK(Outcome& outcome, size_t k) {
  std::vector<int32_t>& indices = *outcome.sparse_indices;
  if (indices.size() <= k) return;
  std::vector<size_t> order(indices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::partial_sort(order.begin(), order.begin() + ptrdiff_t(k), order.end(), [&](size_t a, size_t b) {
    return outcome.output[a] != outcome.output[b] ? outcome.output[a] > outcome.output[b] : a < b;
  });
  order.resize(k);
  std::sort(order.begin(), order.end());
  std::vector<int32_t> kept_indices;
  std::vector<float> kept_values;
  for (size_t i : order) {
    kept_indices.push_back(indices[i]);
    kept_values.push_back(outcome.output[i]);
  }
  indices = std::move(kept_indices);
  outcome.output = std::move(kept_values);
}

// A bound `o`'s record never exceeds, reckoned without writing it: a float
// as its longest JSON number (16 bytes with its comma, a row's brackets
// included), an index 12, every string escaped at its worst (6 bytes a
// byte: \u00XX), and 4,096 for the members' names and the other numbers.
size_t RecordBytesAtMost(const Outcome& o) {
  size_t chars = o.id.size() + o.encoding.size() + o.label.size() + o.text.size() + o.device.size() +
                 o.model_name.size() + o.model_digest.size() + o.reason.size() + o.error.size() + o.reply_to.size() +
                 o.meta_json.size() + o.payload.size() + o.origin.topic.size() + o.replay_of.topic.size() +
                 o.policy.size() + o.delivery_error.size();
  size_t numbers = 16 * o.output.size() + 2 * o.output_bytes.size() + 4096;
  if (o.sparse_indices) numbers += 12 * o.sparse_indices->size();
  for (const LabelScore& s : o.scores) chars += s.label.size(), numbers += 64;
  if (o.entities) {
    for (const Entity& e : *o.entities) chars += e.label.size() + e.text.size(), numbers += 128;
  }
  if (o.tokens) {
    for (const TokenLabel& t : *o.tokens) chars += t.token.size() + t.label.size(), numbers += 128;
  }
  for (const TokenSpan& t : o.spans) chars += t.token.size(), numbers += 128;
  return 6 * chars + numbers;
}

// A result within `max_bytes` as a record, else a `too_long` failure record
// saying what would fix it. Measured only where the reckoning above says it
// could be over; a vector a token (token_embed) as JSON numbers is over
// without measuring where even 2 bytes a value ("0,") are.
Outcome Bounded(Outcome outcome, const Job* job, size_t max_bytes) {
  if (RecordBytesAtMost(outcome) <= max_bytes) return outcome;
  const bool base64 = !outcome.encoding.empty();
  const size_t values = base64 ? outcome.output_bytes.size() / sizeof(float) : outcome.output.size();
  const int rows = outcome.output_rows;
  const bool over = rows > 0 && !base64 && 2 * values > max_bytes;
  // The recorder stamps the wall time where the record has none: 13 digits
  // (ms, until the year 2286) where this one writes "0".
  const size_t stamp = outcome.completed_at_ms == 0 ? 12 : 0;
  const size_t bytes = over ? 2 * values : OutcomeToJson(outcome).size() + stamp;
  if (bytes <= max_bytes) return outcome;
  Logger("pipeline").Warn("event=result_too_large job=%v bytes=%v measured=%v max_result_bytes=%v (a too_long record)",
                          outcome.id, bytes, !over, max_bytes);
  // The result's own fields (a chunked job's whole, not its last window), and
  // the message, for the replay.
  Outcome failed = std::move(outcome);
  failed.ok = false;
  failed.reason = reason::kTooLong;
  if (failed.payload.empty() && job != nullptr) failed.payload = job->payload;
  if (rows > 0) {
    failed.error = absl::StrFormat(
        "the result would be %s%d bytes (%d tokens' vectors of %d values as %s), more than "
        "limits.max_result_bytes %d: replay it with --truncate-to N for its first N tokens (about %d fit)%s",
        over ? "over " : "", bytes, rows, values / size_t(rows), base64 ? "base64" : "JSON numbers", max_bytes,
        uint64_t(double(rows) * double(max_bytes) / double(bytes)),
        base64 ? "" : ", or send it with `encoding` base64 (5.3 bytes a value, not about 12)");
  } else {
    failed.error = absl::StrFormat(
        "the result would be %d bytes, more than limits.max_result_bytes %d: raise the bound (the reply topic's "
        "max.message.bytes must hold it too), or replay it with --truncate-to N for a shorter input",
        bytes, max_bytes);
  }
  failed.output.clear();
  failed.output_bytes.clear();
  failed.encoding.clear();
  failed.output_rows = 0;
  failed.sparse_indices.reset();
  failed.label.clear();
  failed.scores.clear();
  failed.score.reset();
  failed.entities.reset();
  failed.tokens.reset();
  return failed;
}

// A finished outcome as its job asked for it: a sparse one's `top_k`; its
// `dimensions`, the vector's first N values, as encode(truncate_dim=N)
// returns them (after chunk assembly; not normalised again); written in its
// `encoding` (the job's, else the configured one); within the result bound.
Outcome Finished(Outcome outcome, const Job* job, const LoopOptions& options) {
  if (!outcome.ok) return outcome;
  if (outcome.sparse_indices && job && job->top_k > 0) KeepTopK(outcome, size_t(job->top_k));
  const int dimensions = job ? job->dimensions : 0;
  if (dimensions > 0 && outcome.output.size() > size_t(dimensions)) outcome.output.resize(size_t(dimensions));
  const std::string& name = job && !job->encoding.empty() ? job->encoding : options.encoding;
  if (!name.empty() && name != encoding::kFloat) {
    const QuantizationRanges* ranges = options.int8_ranges ? &*options.int8_ranges : nullptr;
    if (NeedsRanges(name) && (!ranges || ranges->dim() < outcome.output.size())) {
      // The decoder and start-up refuse int8 without ranges that cover the
      // embedding; a record says so rather than guess.
      std::string error = "`encoding` " + name + ": no calibration ranges cover this output";
      if (job) return FailureFor(*job, reason::kInvalid, std::move(error));
      outcome.ok = false;
      outcome.reason = reason::kInvalid;
      outcome.error = std::move(error);
      outcome.output.clear();
      return outcome;
    }
    // embed (every encoding) and token_embed (base64): the decoder and
    // start-up see to it.
    outcome.output_bytes = EncodeOutput(outcome.output, name, ranges);
    outcome.encoding = name;
    outcome.output.clear();
  }
  return Bounded(std::move(outcome), job, options.max_result_bytes);
}

}  // namespace

ExecutorLoop::ExecutorLoop(BatchSource& queue, ModelRunner& runner, OutcomeSink& recorder,
                           AttemptLog* attempts, StoreWrites& writes, Health& health, const Clock& clock,
                           LoopOptions options, BatchObserver* observer)
    : queue_(queue),
      runner_(runner),
      recorder_(recorder),
      attempts_(attempts),
      writes_(writes),
      health_(health),
      clock_(clock),
      options_(options),
      observer_(observer),
      log_(Logger("pipeline")),
      chunks_(options.normalize_pooled) {}

ExecutorLoop::~ExecutorLoop() { StopRecording(/*abandon=*/true); }

void ExecutorLoop::Run() {
  if (options_.record_queue > 0 && !record_thread_.joinable()) {
    {
      MutexLock lock(&record_mu_);
      stop_recording_ = false;
      abandon_pending_ = false;
    }
    record_thread_ = std::thread([this] {
      StageThread stage("record");
      RecordLoop();
    });
  }
  // Should the runner throw (a test's simulated crash), what waits to be
  // recorded is lost unacked, as in a real crash.
  struct StopOnExit {
    ExecutorLoop* loop;
    ~StopOnExit() { loop->StopRecording(/*abandon=*/true); }
  } stop_on_exit{this};
  while (true) {
    health_.Beat(clock_.Now());
    if (health_.fatal()) {
      // Nothing more can become durable: leave everything unacked.
      size_t left = 0;
      for (const Batch& b : queue_.DrainAll()) left += b.jobs.size();
      queue_.Close();
      Abandon(left, "fatal");
      StopRecording(/*abandon=*/true);
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
    StopRecording(/*abandon=*/false);
    return;
  }
}

void ExecutorLoop::StopRecording(bool abandon) {
  if (!record_thread_.joinable()) return;
  {
    MutexLock lock(&record_mu_);
    stop_recording_ = true;
    abandon_pending_ = abandon_pending_ || abandon;
  }
  record_cv_.SignalAll();
  record_thread_.join();
}

void ExecutorLoop::RecordLoop() {
  while (true) {
    std::vector<Pending> next;
    size_t dropped = 0;
    {
      MutexLock lock(&record_mu_);
      while (pending_.empty() && !stop_recording_) record_cv_.Wait(&record_mu_);
      if (pending_.empty()) return;  // stopped, and all is recorded
      if (abandon_pending_ || health_.fatal()) {
        // Nothing more can become durable: leave it unacked.
        for (const Pending& p : pending_) dropped += p.records.size();
        pending_.clear();
      } else {
        // Everything waiting, in one store write.
        next.reserve(pending_.size());
        for (Pending& p : pending_) next.push_back(std::move(p));
        pending_.clear();
        recording_ = true;
      }
    }
    record_cv_.SignalAll();  // room in the queue
    if (dropped > 0) {
      Abandon(dropped, "fatal");
      continue;
    }
    Commit(std::move(next));
    {
      MutexLock lock(&record_mu_);
      recording_ = false;
    }
    record_cv_.SignalAll();
  }
}

void ExecutorLoop::Abandon(size_t jobs, const char* why) {
  if (jobs == 0) return;
  stats_.abandoned += jobs;
  log_.Warn("event=jobs_abandoned why=%v jobs=%v (not acked: they run again after a restart)", why, jobs);
}

void ExecutorLoop::RunOne(Batch batch) {
  if (attempts_ == nullptr) {
    RunAndRecord(std::move(batch));
    return;
  }
  const Log& log = log_;
  absl::StatusOr<std::vector<int>> counts = attempts_->Attempts(OriginsOf(batch.jobs));
  if (!counts.ok()) {
    if (health_.RaiseFatal(fatal_cause::kStore, "attempt log unreadable: " + std::string(counts.status().message()))) {
      log.Error("event=fatal cause=store error=\"attempt log: %v\"", std::string(counts.status().message()));
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
      log.Warn("event=crash_isolated job=%v partition=%v offset=%v attempts=%v", job.id, job.origin.partition,
               job.origin.offset, seen);
      crashed.push_back(
          FailureFor(job, reason::kCrash,
                     "the process died " + std::to_string(seen) +
                         " times while this job was running; it is not run again (publish it again to retry)"));
      crashed_jobs.push_back(std::move(job));
    } else if (seen > 0) {
      suspects.emplace_back(seen, std::move(job));
    } else {
      fresh.jobs.push_back(std::move(job));
    }
  }
  if (!crashed.empty()) Record(crashed_jobs, std::move(crashed), std::nullopt, {});
  auto run = [&](Batch b) {
    if (b.jobs.empty()) return;
    if (health_.fatal()) {
      Abandon(b.jobs.size(), "fatal");
      return;
    }
    std::vector<Origin> first;  // once per message and life
    for (const Job& job : b.jobs) {
      if (begun_.insert(KeyOf(job.origin)).second) first.push_back(job.origin);
    }
    // The batches run before this one ended without taking the process
    // down, whether or not their records are durable yet: their attempts go
    // in the same write, so a crash now is not held against them.
    // A write that keeps failing raised the fatal condition in StoreWrites.
    if (!writes_.Write(StoreWrite::kAttempts, [&] { return attempts_->BeginAttempts(first, finished_); }).ok()) {
      Abandon(b.jobs.size(), "fatal");
      return;
    }
    finished_.clear();
    RunAndRecord(std::move(b));
  };
  run(std::move(fresh));
  // Fewest attempts first: a job that was merely in the batch-mate's way
  // runs (and is done) before the likelier culprit can take the process
  // down again.
  std::stable_sort(suspects.begin(), suspects.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [seen, job] : suspects) {
    stats_.suspects_run_alone++;
    log.Warn("event=suspect_run_alone job=%v partition=%v offset=%v attempts=%v", job.id, job.origin.partition,
             job.origin.offset, seen);
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
      records.push_back(FailureFor(job, reason::kModelError, std::string(outcomes.status().message())));
    }
  }
  stats_.batches++;
  stats_.jobs_run += batch.jobs.size();
  if (options_.record_queue > 0 && attempts_ != nullptr) {
    // The run is over: these jobs did not take the process down. (A chunk
    // window's message keeps its attempt until the whole input is done.)
    for (const Job& job : batch.jobs) {
      if (job.windows == 0) finished_.push_back(job.origin);
    }
  }
  log_.Debug("event=batch bucket=%v batch=%v tokens=%v", batch.bucket_bound, batch.jobs.size(), batch.total_tokens());
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
  std::vector<SteadyTime> arrivals;
  arrivals.reserve(batch.jobs.size());
  for (const Job& job : batch.jobs) {
    if (job.windows == 0) arrivals.push_back(job.enqueued_at);  // a window is not a whole job
  }
  Record(batch.jobs, std::move(records), std::move(summary), std::move(arrivals));
}

void ExecutorLoop::Record(const std::vector<Job>& jobs, std::vector<Outcome> outcomes,
                          std::optional<RecordedBatch> summary, std::vector<SteadyTime> arrivals) {
  Pending pending{{}, std::move(summary), std::move(arrivals)};
  std::vector<Outcome>& records = pending.records;
  records.reserve(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    // Each outcome gets its task's fields first: a tokens window's entities
    // come from its own spans, and the assembler stitches them.
    FinishOutcome(options_.task, outcomes[i]);
    const Job* job = i < jobs.size() ? &jobs[i] : nullptr;
    if (job && job->windows > 0) {
      if (std::optional<Outcome> whole = chunks_.Add(*job, std::move(outcomes[i]))) {
        records.push_back(Finished(*std::move(whole), job, options_));
      }
      continue;
    }
    records.push_back(Finished(std::move(outcomes[i]), job, options_));
  }
  for (const Outcome& o : records) {
    begun_.erase(KeyOf(o.origin));
    if (!pending.summary) continue;
    if (o.ok)
      pending.summary->ok++;
    else
      pending.summary->failed[o.reason]++;
  }
  if (records.empty() && !pending.summary) return;
  if (options_.record_queue == 0) {
    std::vector<Pending> one;
    one.push_back(std::move(pending));
    Commit(std::move(one));
    return;
  }
  {
    MutexLock lock(&record_mu_);
    while (pending_.size() >= options_.record_queue && !health_.fatal() && !stop_recording_) {
      record_cv_.Wait(&record_mu_);
    }
    pending_.push_back(std::move(pending));
  }
  record_cv_.SignalAll();
}

void ExecutorLoop::Commit(std::vector<Pending> group) {
  size_t crash_records = 0;
  for (const Pending& p : group) crash_records += p.summary ? 0 : p.records.size();
  // The first batch's outcomes, with the others' appended.
  std::vector<Outcome> records = std::move(group.front().records);
  for (size_t i = 1; i < group.size(); ++i) {
    std::move(group[i].records.begin(), group[i].records.end(), std::back_inserter(records));
  }
  if (!records.empty() && !recorder_.Record(std::move(records)).ok()) {
    // The recorder raised the fatal condition; Run() stops on it.
    for (const Pending& p : group) {
      if (p.summary) {
        log_.Error("event=record_failed bucket=%v batch=%v (jobs stay unacked)", p.summary->bucket, p.summary->jobs);
      }
    }
    return;
  }
  stats_.crash_isolated += crash_records;
  // Counted only once durable.
  const SteadyTime durable = clock_.Now();
  for (Pending& p : group) {
    if (!p.summary) continue;
    RecordedBatch& summary = *p.summary;
    summary.latencies.reserve(p.arrivals.size());
    for (SteadyTime arrived : p.arrivals) summary.latencies.push_back(durable - arrived);
    {
      MutexLock lock(&mu_);
      BucketTotals& t = totals_[summary.bucket];
      t.batches++;
      t.jobs += summary.jobs;
      t.real_tokens += summary.real_tokens;
      t.padded_tokens += summary.padded_tokens;
    }
    if (observer_ != nullptr) observer_->OnBatchRecorded(summary);
  }
}

std::map<int, BucketTotals> ExecutorLoop::totals() const {
  MutexLock lock(&mu_);
  return totals_;
}

}  // namespace qinfer::pipeline
