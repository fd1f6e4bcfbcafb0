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

namespace qinfer::pipeline {

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

  prometheus::Family<prometheus::Counter>& outcomes_;
  prometheus::Family<prometheus::Counter>& batches_;
  prometheus::Family<prometheus::Counter>& tokens_;
  prometheus::Family<prometheus::Gauge>& queued_jobs_;
  prometheus::Family<prometheus::Gauge>& queued_bytes_;
  prometheus::Family<prometheus::Gauge>& batch_cap_;
  prometheus::Family<prometheus::Gauge>& padding_;
  prometheus::Family<prometheus::Gauge>& device_bytes_;
  prometheus::Family<prometheus::Gauge>& cpu_cache_bytes_;
  prometheus::Family<prometheus::Counter>& cpu_cache_blocks_;
  prometheus::Family<prometheus::Gauge>& lag_;
  prometheus::Family<prometheus::Gauge>& committed_;
  prometheus::Family<prometheus::Gauge>& has_commit_;
  prometheus::Family<prometheus::Gauge>& assigned_;
  prometheus::Family<prometheus::Gauge>& paused_;
  prometheus::Family<prometheus::Gauge>& decoding_;
  prometheus::Family<prometheus::Counter>& decode_worker_busy_;
  prometheus::Family<prometheus::Gauge>& fatal_;
  prometheus::Family<prometheus::Gauge>& ready_;
  prometheus::Family<prometheus::Gauge>& heartbeat_age_;
  prometheus::Family<prometheus::Gauge>& build_info_;
  prometheus::Family<prometheus::Gauge>& torch_threads_;
  prometheus::Family<prometheus::Gauge>& mkl_kernel_path_;
  prometheus::Family<prometheus::Gauge>& precision_;
  prometheus::Family<prometheus::Gauge>& precision_scores_;
  prometheus::Family<prometheus::Counter>& process_cpu_;
  prometheus::Family<prometheus::Gauge>& process_rss_;
  prometheus::Family<prometheus::Gauge>& process_start_;
  prometheus::Family<prometheus::Gauge>& process_fds_;
  prometheus::Family<prometheus::Histogram>& batch_size_;
  prometheus::Family<prometheus::Histogram>& inference_seconds_;
  prometheus::Family<prometheus::Histogram>& latency_seconds_;
  prometheus::Family<prometheus::Histogram>& store_write_seconds_;
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
