// KafkaJobSource: consumer-group membership on the jobs topic, decoding and
// validation, offset tracking, pause/resume for backpressure.
//
// At-least-once: enable.auto.offset.store=false, and an offset is stored only
// once the OffsetTracker says every job at or below it has a durable record;
// librdkafka's auto-commit then commits what was stored, and Close() commits
// once more, within a bound. Eager rebalancing (range/roundrobin) and per-message polling,
// because Debian's librdkafka 2.0.2 has known bugs in cooperative
// rebalancing and in batch consume combined with pause/resume.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/consumer/consumer_statistics.h"
#include "qinfer/consumer/decode_pool.h"
#include "qinfer/consumer/source_stats.h"
#include "qinfer/consumer/job_decoder.h"
#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/recorder.h"
#include "qinfer/core/stats.h"

namespace qinfer::consumer {

// The librdkafka properties of an at-least-once group consumer: the
// application stores an offset only once what it read up to there is
// durable (enable.auto.offset.store=false), librdkafka commits what was
// stored every second, a new group starts at the earliest offset, eager
// rebalancing (range, roundrobin), and a 16 MiB bound on the prefetch.
std::map<std::string, std::string> AtLeastOnceConsumerProperties(const std::string& brokers, const std::string& group);

struct SourceConfig {
  std::string brokers;
  std::string group_id = "qinfer";
  std::vector<std::string> topics;
  // librdkafka properties, passed through unchanged (they win over ours).
  std::map<std::string, std::string> properties;
  DecoderLimits limits;
  // Short, so that a stop request is noticed promptly.
  std::chrono::milliseconds poll_timeout{100};
  // How often offsets are stored, and the deadlines of Close; not owned.
  const Clock* clock = &RealClock();
  // The tokenizer pool (decode_pool.h): one DecoderLimits per worker, each
  // with its own tokenizer handle (`limits` above is then unused); empty:
  // messages are decoded on the consumer thread.
  std::vector<DecoderLimits> decode_workers;
  DecodePool::Options decode_pool;
};

// Not thread-safe except where noted: Run() and Close() belong to one thread
// (the consumer thread). Does not own queue, recorder or tracker; they must
// outlive it.
class KafkaJobSource {
 public:
  static absl::StatusOr<std::unique_ptr<KafkaJobSource>> Create(SourceConfig config, JobQueue& queue,
                                                                OutcomeSink& recorder, OffsetTracker& tracker);
  ~KafkaJobSource();

  KafkaJobSource(const KafkaJobSource&) = delete;
  KafkaJobSource& operator=(const KafkaJobSource&) = delete;

  // Polls, decodes and queues jobs until `stop` becomes true. Returns a
  // non-OK status only on a fatal consumer error.
  absl::Status Run(const std::atomic<bool>& stop);

  // Stores the committable offsets, commits them and leaves the group,
  // waiting at most `timeout` for the group coordinator over both. Call after
  // the executor drained and the recorder flushed. DeadlineExceeded when the
  // coordinator did not answer in time (a stopped broker): what was not
  // committed is delivered again, and the broker drops the member after its
  // session timeout. After that, the destructor leaves the librdkafka handle
  // open instead of waiting for the coordinator again: call Close with a
  // bound only when the process exits next.
  absl::Status Close(std::chrono::milliseconds timeout);

  // Thread-safe.
  const SourceStats& stats() const { return stats_; }
  // The tokenizer pool's counters (all 0 without a pool).
  const DecodeStats& decode_stats() const;
  // Thread-safe. The assigned partitions' committed offsets, watermarks and
  // lag: committed offsets from librdkafka's latest statistics (every
  // statistics.interval.ms, 5 s unless kafka.consumer sets it; empty until
  // the first), watermarks from those or from a query of the partition's
  // leader on the same interval, whichever is newer, so that a paused
  // partition's lag keeps up with what is produced to it. No statistics
  // (statistics.interval.ms=0): always empty.
  std::vector<PartitionProgress> partitions() const;

 private:
  struct Impl;
  explicit KafkaJobSource(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  SourceStats& stats_;
};

}  // namespace qinfer::consumer
