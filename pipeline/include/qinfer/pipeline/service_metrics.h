// The service's metrics, declared in one place and built from the registry
// that main owns (no global registry). Counters that other modules keep as
// atomics are brought up to date by Sync/SetTotal before each scrape.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <map>
#include <mutex>
#include <string>

#include "qinfer/core/health.h"
#include "qinfer/core/recorder.h"
#include "qinfer/pipeline/executor_loop.h"

namespace qinfer::pipeline {

// Thread-safe.
class ServiceMetrics final : public BatchObserver {
 public:
  explicit ServiceMetrics(prometheus::Registry& registry);

  // Batches, tokens and outcomes, counted once durable.
  void OnBatchRecorded(const RecordedBatch& batch) override;

  // Degraded modes and recorder totals: store errors, publish retries,
  // undeliverable outcomes by class, dead-letter notices, crash-isolated
  // jobs, abandoned jobs, fatal conditions.
  void Sync(const RecorderStats& recorder, const LoopStats& loop, const Health& health);

  // Sets the counter `labels` of `family` to `total` (a monotonic count kept
  // elsewhere).
  void SetTotal(prometheus::Family<prometheus::Counter>& family,
                const prometheus::Labels& labels, uint64_t total);

  prometheus::Family<prometheus::Counter>& outcomes;
  prometheus::Family<prometheus::Counter>& batches;
  prometheus::Family<prometheus::Counter>& tokens;
  prometheus::Family<prometheus::Counter>& store_errors;
  prometheus::Family<prometheus::Counter>& publish_retries;
  prometheus::Family<prometheus::Counter>& undeliverable;
  prometheus::Family<prometheus::Counter>& dead_letter_notices;
  prometheus::Family<prometheus::Counter>& crash_isolated;
  prometheus::Family<prometheus::Counter>& abandoned;
  prometheus::Family<prometheus::Counter>& rejected;
  prometheus::Family<prometheus::Counter>& ladder;
  prometheus::Family<prometheus::Gauge>& fatal;
  prometheus::Gauge& queued_jobs;
  prometheus::Gauge& queued_bytes;
  prometheus::Gauge& paused;
  prometheus::Family<prometheus::Gauge>& device_bytes;

 private:
  std::mutex mu_;
  std::map<const prometheus::Counter*, uint64_t> seen_;  // GUARDED_BY(mu_)
};

}  // namespace qinfer::pipeline
