// What a running `serve` reports on /metrics and /status: the modules'
// figures of one moment, arranged into a pipeline::ServiceSnapshot. A pure
// function of what it is given (it reads the stats, changes nothing), so
// tests/app/serve_snapshot_test.cc checks it without Kafka or torch; serve
// gathers the figures from the live modules before each call.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "qinfer/consumer/consumer_statistics.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/health.h"
#include "qinfer/core/recorder.h"
#include "qinfer/executor/cpu_block_cache.h"
#include "qinfer/executor/device_memory.h"
#include "qinfer/executor/torch_model_runner.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/pipeline/service_snapshot.h"
#include "qinfer/scheduler/scheduler.h"

namespace qinfer::app {

// The figures, by module. The references are read during the call only.
struct SnapshotSources {
  // Who and where (version, libtorch, model, devices, threads): copied as is.
  const pipeline::ServiceSnapshot& identity;
  std::chrono::nanoseconds uptime{0};
  // Health: the probes are answered at `now`, with the stall bound of
  // health.executor_stall_s.
  const Health& health;
  SteadyTime now;
  std::chrono::nanoseconds stall{0};
  // The scheduler's buckets, the loop's totals per bucket (by bound), and
  // the buckets whose jobs run alone on the fallback device.
  std::vector<scheduler::BucketStats> buckets;
  std::map<int, pipeline::BucketTotals> totals;
  const std::set<int>& unfit;
  // The consumer.
  std::vector<consumer::PartitionProgress> partitions;
  const consumer::SourceStats& source;
  // The tokenizer pool.
  const consumer::DecodeStats& decode;
  // Durable records by "ok" and failure reason (ServiceMetrics::records).
  std::map<std::string, uint64_t> records;
  // The executor: device memory and the OOM ladder.
  const executor::DeviceMemory& memory;
  const executor::RunnerStats& runner;
  executor::BlockCacheStats cpu_block_cache;
  // The recorder's, the store writes' and the loop's counters.
  const RecorderStats& recorder;
  const StoreWriteStats& store;
  const pipeline::LoopStats& loop;
};

// The snapshot: identity, uptime, readiness and liveness with their reasons,
// the heartbeat's age, the fatal cause, one entry per bucket of `buckets` (in
// their order; a bucket without totals has zero batches), the partitions,
// the records, memory, and every component's counters (ServiceStatGroups).
pipeline::ServiceSnapshot BuildSnapshot(const SnapshotSources& sources);

// The components' counter lists (core/stats.h) under their names in the
// snapshot's `stats`: consumer, decode, recorder, store, loop and runner.
// ServiceMetrics
// exports each counter from them.
std::span<const StatGroup> ServiceStatGroups();

}  // namespace qinfer::app
