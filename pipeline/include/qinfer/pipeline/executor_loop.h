// ExecutorLoop: the executor thread, the only path to the device. It takes
// batches from the scheduler's queue, isolates jobs that crashed the process
// before, runs the rest through the model runner, and records every outcome
// (store -> publish -> ack) through the OutcomeRecorder.
//
// Crash-loop isolation (docs/design/guarantees.md, "Poison isolation"): before a job runs
// its attempt is recorded durably (AttemptLog). A job that already has
// attempts without an outcome was in flight when the process died: it runs
// alone, so a poison job cannot take its batch-mates down with it again. A
// job whose attempts reached max_attempts gets a `crash` failure record
// (payload kept, so it can be published again) and is never run again.
// Attempts count lives of the process, not runs: the windows of a chunked
// input (see ChunkAssembler) share their message's count, which each life
// raises once.
// With a record queue, batches are recorded while later ones run; the jobs
// of a batch whose run ended lose their attempts in the next batch's attempt
// write (AttemptLog::BeginAttempts' `finished`), so a crash counts against
// the jobs that were running, not against those still waiting to be
// recorded.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "qinfer/core/clock.h"
#include "qinfer/core/health.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/core/recorder.h"
#include "qinfer/core/stats.h"
#include "qinfer/core/store_writes.h"
#include "qinfer/core/task.h"
#include "qinfer/pipeline/chunk_assembler.h"

namespace qinfer::pipeline {

struct LoopOptions {
  // After the queue is closed, how long queued batches may still run; jobs
  // left then stay unacked (they run again after a restart). Default 30 s.
  std::chrono::milliseconds drain_timeout{30000};
  // Attempts a job may take without an outcome before it gets a `crash`
  // record. >= 1. Default 3.
  int max_attempts = 3;
  // How long one wait for a batch blocks (bounds how late a stop is seen).
  std::chrono::milliseconds poll{100};
  // Called on the executor thread before each batch runs, with no heartbeat
  // while it runs: a test hook that stands for a forward pass that hangs.
  std::function<void()> before_batch;
  // Batches whose outcomes may wait to be recorded while later batches run.
  // 0 (default): the executor thread records each batch (store write,
  // replies, acks, metrics) before it takes the next. N > 0: a recording
  // thread of the loop's own does that, in order, and the executor thread
  // runs the model meanwhile, waiting only when N batches are waiting; the
  // batches waiting when it takes the next are recorded in one store write
  // (fewer, larger writes while it is behind). The
  // guarantees stay: a job is acked only once its record is durable, its
  // attempt is durable before it runs, and only the jobs running when the
  // process dies are counted for it (see above).
  size_t record_queue = 0;
  // Chunked inputs: scale each pooled output to unit length (the model's
  // outputs are normalised; see ChunkAssembler). Default false.
  bool normalize_pooled = false;
  // The model's task: each result (each chunk window's, before the
  // windows are put together) gets its task's fields from its output
  // (FinishOutcome: classify's label and scores, rerank's score, tokens'
  // entities and tokens). Default: embed (nothing added).
  TaskSpec task;
  // How a result's output is written when its job names no `encoding`
  // (output.encoding; "" or "float": JSON numbers), and the int8 / uint8
  // encodings' calibration ranges (the decoder refuses those without).
  std::string encoding;
  std::optional<QuantizationRanges> int8_ranges;
  // A result of more vectors than one (token_embed) whose record would be
  // larger than this is a `too_long` failure instead (limits.max_result_bytes).
  size_t max_result_bytes = size_t{16} << 20;
};

// Per-bucket figures for the run summary and /metrics.
struct BucketTotals {
  uint64_t batches = 0;
  uint64_t jobs = 0;
  uint64_t real_tokens = 0;
  uint64_t padded_tokens = 0;
};

// The executor loop's counters (core/stats.h).
#define QINFER_LOOP_STATS(STAT)                                                                            \
  STAT(batches, "qinfer_executor_batches_total", "", "Batches the executor thread ran, all buckets")        \
  STAT(jobs_run, "qinfer_executor_jobs_total", "", "Jobs the executor thread ran, all buckets")            \
  STAT(suspects_run_alone, "qinfer_suspects_run_alone_total", "",                                          \
       "Jobs with an earlier attempt run alone, so that a crash names one job")                            \
  STAT(crash_isolated, "qinfer_crash_isolated_total", "",                                                  \
       "Jobs given a crash record after taking the process down")                                          \
  STAT(abandoned, "qinfer_abandoned_jobs_total", "", "Jobs left unacked at a drain timeout or a fatal condition")

struct LoopStats {
  QINFER_DECLARE_STATS(QINFER_LOOP_STATS)
};

// What one batch became, once its outcomes are durable.
struct RecordedBatch {
  int bucket = 0;
  size_t jobs = 0;
  uint64_t real_tokens = 0;    // of the results
  uint64_t padded_tokens = 0;  // of the results
  size_t ok = 0;
  std::map<std::string, size_t> failed;  // reason -> jobs
  std::chrono::nanoseconds run_time{0};  // the runner's Run, ladder included
  // Arrival in the scheduler to durable record, for each job of the batch
  // (chunk windows left out: they are parts of a job).
  std::vector<std::chrono::nanoseconds> latencies;
};

// Told about each batch whose outcomes are durable (for metrics). Called on
// the thread that records (see LoopOptions::record_queue).
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  virtual void OnBatchRecorded(const RecordedBatch& batch) = 0;
};

// Run() belongs to one thread; totals() and stats() are thread-safe.
// Collaborators are not owned and must outlive the loop; `attempts` and
// `observer` may be null (no crash isolation / no observer). The attempt
// log's writes go through `writes` (retries, event=store_error, the counter,
// the fatal condition when they keep failing), as the recorder's do.
class ExecutorLoop {
 public:
  ExecutorLoop(BatchSource& queue, ModelRunner& runner, OutcomeSink& recorder, AttemptLog* attempts,
               StoreWrites& writes, Health& health, const Clock& clock, LoopOptions options,
               BatchObserver* observer = nullptr);
  // Stops the recording thread, if any, leaving what it had not recorded
  // unacked.
  ~ExecutorLoop();

  // Runs batches until the queue is closed and drained (or the drain timeout
  // passed), or a fatal condition is raised: then the queued jobs are
  // abandoned unacked and Run returns at once. Beats health's heartbeat.
  // With a record queue, returns once every batch run is recorded (or
  // abandoned, when fatal).
  void Run();

  std::map<int, BucketTotals> totals() const;
  const LoopStats& stats() const { return stats_; }

 private:
  using OriginKey = std::tuple<std::string, int32_t, int64_t>;
  static OriginKey KeyOf(const Origin& o) { return {o.topic, o.partition, o.offset}; }

  // A batch's outcomes on their way to the recorder.
  struct Pending {
    std::vector<Outcome> records;
    std::optional<RecordedBatch> summary;  // none: crash records
    std::vector<SteadyTime> arrivals;      // of the whole jobs, for latencies
  };

  void RunOne(Batch batch);
  void RunAndRecord(Batch batch);
  // Window outcomes go to the assembler; what is left (and the jobs it
  // completes) is recorded, then counted in `summary` (none: crash records).
  void Record(const std::vector<Job>& jobs, std::vector<Outcome> outcomes, std::optional<RecordedBatch> summary,
              std::vector<SteadyTime> arrivals);
  // Records the batches of `group` (at least one) in one store write
  // (store, publish, ack), then counts each.
  void Commit(std::vector<Pending> group);
  // The recording thread (record_queue > 0).
  void RecordLoop();
  // Waits for the recording thread to record what is queued (abandon: to
  // drop it unacked), then stops it.
  void StopRecording(bool abandon);
  void Abandon(size_t jobs, const char* why);

  BatchSource& queue_;
  ModelRunner& runner_;
  OutcomeSink& recorder_;
  AttemptLog* attempts_;
  StoreWrites& writes_;
  Health& health_;
  const Clock& clock_;
  const LoopOptions options_;
  BatchObserver* observer_;
  // Looked up once: Logger() takes a global lock and a map lookup.
  const Log log_;
  LoopStats stats_;
  ChunkAssembler chunks_;
  // Messages whose attempt this life has already recorded (and not yet
  // their outcome): their windows add no further attempts.
  std::set<OriginKey> begun_;
  // With a record queue: whole jobs whose run ended since the last
  // BeginAttempts, whose attempts the next one forgets.
  std::vector<Origin> finished_;
  mutable Mutex mu_;
  std::map<int, BucketTotals> totals_ ABSL_GUARDED_BY(mu_);

  // The record queue (record_queue > 0).
  Mutex record_mu_;
  CondVar record_cv_;
  std::deque<Pending> pending_ ABSL_GUARDED_BY(record_mu_);
  bool recording_ ABSL_GUARDED_BY(record_mu_) = false;  // one is being recorded
  bool stop_recording_ ABSL_GUARDED_BY(record_mu_) = false;
  bool abandon_pending_ ABSL_GUARDED_BY(record_mu_) = false;
  std::thread record_thread_;
};

}  // namespace qinfer::pipeline
