// The service's metrics, declared in one place and built from the registry
// that main owns (no global registry). Events are counted as they happen
// (records when durable, batches, timings); figures other modules keep
// (queues, lag, memory, ladder and degraded-mode totals) are copied from a
// ServiceSnapshot before each scrape.
//
// Names: prefix qinfer_, base units (seconds, bytes), counters end in
// _total, labels only from small fixed sets (bucket bounds, partitions,
// statuses and reasons, ladder stages). Process metrics use the standard
// process_* names.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "qinfer/core/mutex.h"
#include "qinfer/core/recorder.h"
#include "qinfer/core/stats.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/pipeline/service_snapshot.h"

// The service's own metric families (core/stats.h): the member each is
// kept in (its name and `_`), the type, the family, its label keys and its
// help. The components' counters come from their own lists (StatGroup).
#define QINFER_SERVICE_METRICS(M) \
  M(outcomes, Counter, "qinfer_outcomes_total", "status,reason", \
    "Durable records by status (ok, failed) and failure reason, including the consumer's invalid, too_long and " \
    "too_large records") \
  M(batches, Counter, "qinfer_batches_total", "bucket", "Batches with durable records, by bucket bound") \
  M(tokens, Counter, "qinfer_tokens_total", "bucket,kind", \
    "Tokens of successful jobs by bucket bound and kind (real, padded)") \
  M(queued_jobs, Gauge, "qinfer_queued_jobs", "bucket", "Jobs waiting in the scheduler, by bucket bound") \
  M(queued_bytes, Gauge, "qinfer_queued_bytes", "bucket", "Bytes held by waiting jobs, by bucket bound") \
  M(batch_cap, Gauge, "qinfer_batch_cap", "bucket", "Most jobs per batch, by bucket bound") \
  M(padding, Gauge, "qinfer_padding_efficiency", "bucket", \
    "Real / padded tokens of the batches run so far, by bucket bound") \
  M(device_bytes, Gauge, "qinfer_device_memory_bytes", "kind", \
    "Primary device memory: allocated, reserved, peak, budget (0: none)") \
  M(cpu_cache_bytes, Gauge, "qinfer_cpu_block_cache_bytes", "kind", \
    "The CPU allocator's large blocks: held (live and free), free, limit (memory.cpu_block_cache)") \
  M(cpu_cache_blocks, Counter, "qinfer_cpu_block_cache_blocks_total", "result", \
    "CPU blocks of 128 KiB and more: hit (a freed one handed out again), miss (taken from the system), " \
    "released (given back to the system)") \
  M(lag, Gauge, "qinfer_consumer_lag", "partition", \
    "Messages after the committed offset, by assigned partition of the jobs topic") \
  M(committed, Gauge, "qinfer_committed_offset", "partition", \
    "Committed offset, by assigned partition of the jobs topic; no sample while the group has committed " \
    "nothing for it (qinfer_consumer_has_commit 0)") \
  M(has_commit, Gauge, "qinfer_consumer_has_commit", "partition", \
    "1 once the group has a committed offset for the assigned partition, 0 before (its lag then counts " \
    "from the partition's low watermark)") \
  M(assigned, Gauge, "qinfer_assigned_partitions", "", "Partitions of the jobs topic assigned here") \
  M(paused, Gauge, "qinfer_consumer_paused", "", "1 while the consumer is paused for backpressure") \
  M(decoding, Gauge, "qinfer_decode_queue_messages", "", \
    "Messages in the tokenizer pool, consumed and not yet decoded (bounded like queued jobs)") \
  M(decode_worker_busy, Counter, "qinfer_decode_worker_busy_seconds_total", "worker", \
    "Time each of the tokenizer pool's workers spent decoding, by worker (0 to tokenizer.threads - 1)") \
  M(fatal, Gauge, "qinfer_fatal", "cause", "1 once a fatal condition was raised, by cause (the instance then exits)") \
  M(ready, Gauge, "qinfer_ready", "", "1 while /readyz answers ready") \
  M(heartbeat_age, Gauge, "qinfer_executor_heartbeat_age_seconds", "", "Seconds since the executor thread last beat") \
  M(build_info, Gauge, "qinfer_build_info", "version,libtorch,model,model_digest,device", \
    "1, labelled with the qinfer version, libtorch version, model, model digest and device") \
  M(torch_threads, Gauge, "qinfer_torch_threads", "kind", "libtorch threads by pool (intra_op, inter_op)") \
  M(mkl_kernel_path, Gauge, "qinfer_mkl_kernel_path", "dispatch", \
    "The kernel path MKL chose, as MKL numbers it (0: its generic kernels), by model.mkl_dispatch") \
  M(precision, Gauge, "qinfer_precision_min_cosine", "dtype", \
    "Start-up precision probe under model.autocast: the smallest cosine similarity of a probe row's " \
    "output to its float32 output, by dtype (no sample without autocast)") \
  M(precision_scores, Gauge, "qinfer_precision_max_score_diff", "dtype", \
    "Start-up precision probe under model.autocast of a classify, rerank or tokens model: the largest " \
    "difference of a probe row's scores from its float32 scores, by dtype (no sample without autocast)") \
  M(process_cpu, Counter, "process_cpu_seconds_total", "", "User and system CPU time, seconds") \
  M(process_rss, Gauge, "process_resident_memory_bytes", "", "Resident memory, bytes") \
  M(process_start, Gauge, "process_start_time_seconds", "", "Start time, seconds since the epoch") \
  M(process_fds, Gauge, "process_open_fds", "", "Open file descriptors") \
  M(batch_size, Histogram, "qinfer_batch_size", "bucket", "Jobs per batch, by bucket bound") \
  M(inference_seconds, Histogram, "qinfer_inference_seconds", "bucket", \
    "Time of one batch through the model (the OOM ladder included), by bucket bound") \
  M(latency_seconds, Histogram, "qinfer_job_latency_seconds", "", \
    "From a job's arrival in the scheduler to its durable record") \
  M(store_write_seconds, Histogram, "qinfer_store_write_seconds", "", \
    "One store write of a batch of records, retries included")

namespace qinfer::pipeline {

// Every family of QINFER_SERVICE_METRICS, in its order.
inline constexpr MetricDef kServiceMetricDefs[] = {QINFER_SERVICE_METRICS(QINFER_METRIC_DEF_)};

// Thread-safe.
class ServiceMetrics final : public BatchObserver, public RecordObserver {
 public:
  // Registers every metric, the counters of `groups` (the components'
  // lists, core/stats.h) among them, each series with a fixed label set from 0.
  explicit ServiceMetrics(prometheus::Registry& registry, std::span<const StatGroup> groups = {});

  // qinfer_build_info, qinfer_torch_threads, qinfer_mkl_kernel_path and,
  // when the precision probe ran, qinfer_precision_min_cosine (embed) or
  // qinfer_precision_max_score_diff (the scored tasks), from the snapshot's
  // identity fields.
  // Call once the model is loaded.
  void SetIdentity(const ServiceSnapshot& identity);

  // Durable records by status and reason (every record: the consumer's
  // invalid and too_long ones too), and the store write time.
  void OnStored(std::span<const Outcome> outcomes, std::chrono::nanoseconds write_time) override;

  // Batches, tokens, batch sizes, inference time and job latency.
  void OnBatchRecorded(const RecordedBatch& batch) override;

  // Brings the gauges and the totals kept elsewhere up to `snapshot`, and
  // reads the process metrics. Call before each scrape.
  void Update(const ServiceSnapshot& snapshot);

  // Reads the process metrics alone (CPU, memory, start time, open files):
  // what a scrape during start-up, before there is a snapshot, calls. The
  // constructor calls it, so process_start_time_seconds holds the real
  // start of the process from the moment the metrics exist.
  void UpdateProcess();

  // Durable records so far: "ok" and each failure reason.
  std::map<std::string, uint64_t> records() const;

  // Where a run's time went, summed over its jobs and batches, from the
  // histograms: the batches' forward passes (ladder included), the store
  // writes (retries included), and the jobs' latencies (arrival in the
  // scheduler to the durable record). For the run's summary line, which
  // bench/pipeline reads per stage.
  struct StageSeconds {
    double inference = 0;
    double store_write = 0;
    double job_latency = 0;
    uint64_t store_writes = 0;
  };
  StageSeconds Stages() const;

 private:
  // Sets `counter` to `total` × `scale` (a monotonic count kept elsewhere).
  void SetTotal(prometheus::Counter& counter, uint64_t total, double scale = 1.0);

  // Registers the counter of `def` (its family on first sight), from 0.
  void AddStat(prometheus::Registry& registry, const std::string& component, const StatDef& def);

  // A bucket's series, looked up in their families once (Family::Add hashes
  // the labels and takes the family's lock) rather than for every batch.
  struct BucketSeries {
    prometheus::Counter* batches = nullptr;
    prometheus::Counter* real_tokens = nullptr;
    prometheus::Counter* padded_tokens = nullptr;
    prometheus::Histogram* batch_size = nullptr;
    prometheus::Histogram* inference_seconds = nullptr;
  };
  BucketSeries& SeriesOf(int bucket);
  // The outcome counter of `what` ("ok" or a failure reason).
  prometheus::Counter& OutcomeCounter(const std::string& what);

#define QINFER_METRIC_FAMILY_(field, type, metric, labels, help) prometheus::Family<prometheus::type>& field##_;
  QINFER_SERVICE_METRICS(QINFER_METRIC_FAMILY_)
#undef QINFER_METRIC_FAMILY_
  prometheus::Histogram& latency_;
  prometheus::Histogram& store_write_;
  // The outcome counters of "ok" and of each failure reason, from the
  // constructor on.
  std::map<std::string, prometheus::Counter*, std::less<>> outcome_counters_;

  // The components' counters (core/stats.h), each synced from the
  // snapshot's stats[component][name].
  struct StatSeries {
    std::string component;
    std::string name;
    prometheus::Counter* counter = nullptr;
    double scale = 1.0;  // 1e-9: a count of nanoseconds, exported in seconds
  };
  std::map<std::string, prometheus::Family<prometheus::Counter>*> stat_families_;
  std::vector<StatSeries> stats_;

  mutable Mutex mu_;
  std::map<const prometheus::Counter*, uint64_t> seen_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> records_ ABSL_GUARDED_BY(mu_);
  std::set<int32_t> partitions_ ABSL_GUARDED_BY(mu_);  // exported lag series
  std::unordered_map<int, BucketSeries> buckets_ ABSL_GUARDED_BY(mu_);
  double process_cpu_seen_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace qinfer::pipeline
