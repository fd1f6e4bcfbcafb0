#include "serve_snapshot.h"

#include <algorithm>

namespace qinfer::app {
namespace {

std::vector<pipeline::BucketSnapshot> Buckets(const SnapshotSources& in) {
  std::vector<pipeline::BucketSnapshot> buckets;
  for (const scheduler::BucketStats& b : in.buckets) {
    pipeline::BucketSnapshot bucket;
    bucket.bound = b.bound;
    bucket.cap = b.cap;
    bucket.unfit = in.unfit.contains(b.bound);
    bucket.queued_jobs = b.queued_jobs;
    bucket.queued_bytes = b.queued_bytes;
    if (auto t = in.totals.find(b.bound); t != in.totals.end()) {
      bucket.batches = t->second.batches;
      bucket.jobs = t->second.jobs;
      bucket.real_tokens = t->second.real_tokens;
      bucket.padded_tokens = t->second.padded_tokens;
    }
    buckets.push_back(bucket);
  }
  return buckets;
}

// The components' counters, under the names ServiceStatGroups gives them.
std::map<std::string, StatValues> Stats(const SnapshotSources& in) {
  return {{"consumer", in.source.Values()},
          {"decode", in.decode.Values()},
          {"recorder", in.recorder.Values()},
          {"store", in.store.Values()},
          {"loop", in.loop.Values()},
          {"runner", in.runner.Values()}};
}

}  // namespace

pipeline::ServiceSnapshot BuildSnapshot(const SnapshotSources& in) {
  pipeline::ServiceSnapshot s = in.identity;
  s.uptime_seconds = std::chrono::duration<double>(in.uptime).count();
  const int assigned = in.source.assigned_partitions.load();
  const ProbeResult ready = Readiness(in.health, assigned);
  const ProbeResult live = Liveness(in.health, in.now, in.stall);
  s.ready = ready.ok;
  s.readiness = ready.text;
  s.live = live.ok;
  s.liveness = live.text;
  s.heartbeat_age_seconds = std::chrono::duration<double>(in.now - in.health.last_beat()).count();
  if (in.health.fatal()) s.fatal_cause = in.health.cause();
  s.buckets = Buckets(in);
  for (const consumer::PartitionProgress& p : in.partitions) {
    s.partitions.push_back({p.partition, p.committed_offset, p.lag, p.high_watermark});
  }
  s.assigned_partitions = assigned;
  s.paused = in.source.paused.load();
  s.decoding = in.decode.in_flight.load();
  const size_t workers = std::min<size_t>(in.decode.workers.load(), consumer::DecodeStats::kMaxWorkers);
  for (size_t w = 0; w < workers; ++w) s.decode_worker_busy_ns.push_back(in.decode.worker_busy_ns[w].load());
  s.records = in.records;
  s.memory_allocated = in.memory.allocated_bytes();
  s.memory_reserved = in.memory.reserved_bytes();
  s.memory_peak = in.memory.peak_bytes();
  s.memory_budget = in.memory.budget_bytes();
  const executor::BlockCacheStats& cache = in.cpu_block_cache;
  s.cpu_block_cache = {{"held_bytes", uint64_t(cache.held_bytes)},   {"free_bytes", uint64_t(cache.free_bytes)},
                       {"limit_bytes", uint64_t(cache.limit_bytes)}, {"hits", cache.hits},
                       {"misses", cache.misses},                     {"released", cache.released}};
  s.stats = Stats(in);
  return s;
}

std::span<const StatGroup> ServiceStatGroups() {
  static constexpr StatGroup kGroups[] = {{"consumer", consumer::SourceStats::kDefs},
                                          {"decode", consumer::DecodeStats::kDefs},
                                          {"recorder", RecorderStats::kDefs},
                                          {"store", StoreWriteStats::kDefs},
                                          {"loop", pipeline::LoopStats::kDefs},
                                          {"runner", executor::RunnerStats::kDefs}};
  return kGroups;
}

}  // namespace qinfer::app
