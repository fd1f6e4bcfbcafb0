// ServiceSnapshot: what a running instance reports about itself at one
// moment: the figures behind /metrics, and the JSON /status serves and
// `qinfer status` prints as a table. Plain data: app gathers it from the
// modules, this module turns it into JSON and text.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace qinfer::pipeline {

struct BucketSnapshot {
  int bound = 0;       // tokens
  int cap = 0;         // jobs per batch
  bool unfit = false;  // its jobs run alone on the fallback device
  uint64_t queued_jobs = 0;
  uint64_t queued_bytes = 0;
  uint64_t batches = 0;  // with durable records, this run
  uint64_t jobs = 0;
  uint64_t real_tokens = 0;
  uint64_t padded_tokens = 0;
  // real / padded tokens; 0 before the first batch.
  double padding_efficiency() const { return padded_tokens ? double(real_tokens) / double(padded_tokens) : 0.0; }
};

struct PartitionSnapshot {
  int32_t partition = -1;
  // nullopt: the group has committed nothing for the partition yet (JSON
  // null; /metrics then has no qinfer_committed_offset sample for it and
  // qinfer_consumer_has_commit 0).
  std::optional<int64_t> committed_offset;
  // high_watermark - committed_offset (- the low watermark while nothing is
  // committed); -1: not known yet.
  int64_t lag = -1;
  int64_t high_watermark = -1;  // -1: not known yet
};

struct ServiceSnapshot {
  // Who and where.
  std::string version;
  std::string libtorch;
  std::string model;
  std::string model_digest;
  std::string device;
  std::string fallback_device;  // "" = none
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  // model.mkl_dispatch and the kernel path MKL chose (executor/mkl_dispatch.h:
  // 0 its generic code); -1: not known (no MKL, or the JSON of an older
  // instance).
  std::string mkl_dispatch;
  int mkl_kernel_path = -1;
  // The start-up precision probe (model.autocast): the primary's dtype and
  // the smallest cosine of a probe row's output to float32, over
  // precision_rows rows, against the floor model.min_cosine. Empty dtype:
  // no probe ran (float32).
  std::string precision_dtype;
  double precision_min_cosine = 0;
  int precision_rows = 0;
  double precision_floor = 0;
  // A classify, rerank or tokens model's probe compares the scores its user
  // reads instead: the largest difference from float32's, the rows whose top
  // label changed (0, or it would not have started) and the bound
  // model.max_score_diff; the cosine fields are then unused.
  bool precision_scores = false;
  double precision_max_score_diff = 0;
  int precision_label_changes = 0;
  double precision_bound = 0;
  double uptime_seconds = 0;
  // Health.
  bool ready = false;
  std::string readiness;  // why (not) ready
  bool live = true;
  std::string liveness;
  double heartbeat_age_seconds = 0;
  std::string fatal_cause;  // "" = none; else store, consumer or producer
  // Work.
  std::vector<BucketSnapshot> buckets;
  std::vector<PartitionSnapshot> partitions;
  int assigned_partitions = 0;
  bool paused = false;
  uint64_t decoding = 0;  // messages in the tokenizer pool, not yet decoded
  // Time each of the tokenizer pool's workers spent decoding, by worker;
  // empty without a pool.
  std::vector<uint64_t> decode_worker_busy_ns;
  // Durable records this run: "ok" and each failure reason.
  std::map<std::string, uint64_t> records;
  // Device memory, bytes (budget 0: none).
  uint64_t memory_allocated = 0;
  uint64_t memory_reserved = 0;
  uint64_t memory_peak = 0;
  uint64_t memory_budget = 0;
  // The CPU allocator's large-block cache (executor/cpu_block_cache.h):
  // held_bytes, free_bytes, limit_bytes, hits, misses, released.
  std::map<std::string, uint64_t> cpu_block_cache;
  // The components' counters (core/stats.h) by component (consumer,
  // decode, recorder, store, loop, runner) and counter name: the consumer's counts, each
  // outcome's steps, the OOM ladder and the degraded modes.
  std::map<std::string, std::map<std::string, uint64_t>> stats;
};

std::string SnapshotToJson(const ServiceSnapshot& snapshot);
absl::StatusOr<ServiceSnapshot> SnapshotFromJson(const std::string& json);

// A readable report for a terminal: the instance, buckets (queue, cap,
// batches, padding efficiency), memory against the budget, lag per
// partition, records by status and reason, and each component's counters
// that are not 0.
std::string FormatSnapshot(const ServiceSnapshot& snapshot);

}  // namespace qinfer::pipeline
