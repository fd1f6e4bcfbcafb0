// OutcomeRecorder: the one path by which an outcome becomes durable and its
// source offset becomes committable. Order per outcome: store (durable) ->
// publish (delivery acknowledged, where a topic wants it) -> ack.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "qinfer/core/interfaces.h"

namespace qinfer {

struct RecorderStats {
  std::atomic<uint64_t> stored{0};
  std::atomic<uint64_t> store_errors{0};
  std::atomic<uint64_t> published{0};
  std::atomic<uint64_t> publish_retries{0};
  std::atomic<uint64_t> acked{0};
};

// Thread-safe: the consumer thread (invalid messages) and the executor thread
// (results) both record. Does not own its collaborators; they must outlive it.
class OutcomeRecorder {
 public:
  struct Options {
    int store_attempts = 5;  // RocksDB write attempts before giving up
    std::chrono::milliseconds store_backoff{100};
    int publish_attempts = 10;  // re-publishes after a failed delivery
  };

  // `publisher` may be null (no Kafka output configured).
  OutcomeRecorder(OutcomeStore& store, OutcomePublisher* publisher,
                  AckSink& acks, Options options);

  // Stores all of `outcomes` in one write, then publishes and acks each.
  // If the store keeps failing the outcomes are not acked: their offsets are
  // never committed, so the jobs run again after a restart (at-least-once).
  // Returns the store's status.
  absl::Status Record(std::vector<Outcome> outcomes);

  // Waits for in-flight publications.
  absl::Status Flush(std::chrono::milliseconds timeout);

  const RecorderStats& stats() const { return stats_; }

 private:
  void PublishThenAck(std::shared_ptr<const Outcome> outcome, int attempt);

  OutcomeStore& store_;
  OutcomePublisher* publisher_;
  AckSink& acks_;
  Options options_;
  RecorderStats stats_;
};

}  // namespace qinfer
