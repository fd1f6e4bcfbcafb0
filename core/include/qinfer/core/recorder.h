// OutcomeRecorder: the one path by which an outcome becomes durable and its
// source offset becomes committable. Order per outcome: store (durable) ->
// publish (delivery acknowledged, where a topic wants it) -> ack.
//
// No permanent error is retried, and no job stays unacknowledged because of
// its reply (docs/design/guarantees.md):
//  - a store write goes through StoreWrites (retries, event=store_error,
//    the counter); one that keeps failing raises the fatal condition there:
//    the outcomes are not acked, the instance stops and is restarted;
//  - a delivery that fails for good (unknown topic, message too large,
//    authorization, no topic) or whose transient retries are spent is
//    recorded on the stored outcome (`delivery_error`), announced by a
//    compact dead-letter notice without the payload or output where a
//    dead-letter topic is configured, counted, and then acked;
//  - a fatal producer error raises a fatal condition; that job stays
//    unacked, so a restart publishes it again;
//  - a delivery cancelled because the publisher is closing leaves the job
//    unacked (it is published again after the restart).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "qinfer/core/clock.h"
#include "qinfer/core/health.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/stats.h"
#include "qinfer/core/store_writes.h"

namespace qinfer {

// The recorder's counters (core/stats.h): each outcome through its steps,
// and the degraded modes above.
#define QINFER_RECORDER_STATS(STAT)                                                                        \
  STAT(stored, "qinfer_recorder_outcomes_total", "step=stored",                                            \
       "Outcomes through each step of the recorder: stored (durable), published (reply delivered), acked " \
       "(offset committable)")                                                                             \
  STAT(published, "qinfer_recorder_outcomes_total", "step=published", "")                                  \
  STAT(acked, "qinfer_recorder_outcomes_total", "step=acked", "")                                          \
  STAT(publish_retries, "qinfer_publish_retries_total", "", "Transient delivery failures published again") \
  STAT(undeliverable_permanent, "qinfer_undeliverable_total", "class=permanent",                           \
       "Outcomes whose reply or dead letter could not be delivered, by class (permanent, "                 \
       "retries_exhausted); recorded and acked")                                                           \
  STAT(undeliverable_exhausted, "qinfer_undeliverable_total", "class=retries_exhausted", "")               \
  STAT(dead_letter_notices, "qinfer_dead_letter_notices_total", "",                                        \
       "Compact dead-letter notices of undeliverable outcomes")                                            \
  STAT(ack_ns, "qinfer_ack_seconds_total", "",                                                             \
       "Time the recorder spent marking recorded outcomes' offsets committable (the offset tracker's acks)")

struct RecorderStats {
  QINFER_DECLARE_STATS(QINFER_RECORDER_STATS)
};

// True for the delivery errors that no retry can fix: NotFound (unknown
// topic or partition), InvalidArgument (message too large, invalid),
// PermissionDenied (authorization), FailedPrecondition (no topic).
bool IsPermanentDeliveryError(const absl::Status& status);

// Told about every write that made outcomes durable (for metrics): the
// outcomes and how long the write took, retries included. Called on the
// recording thread, before any of them is published or acked.
class RecordObserver {
 public:
  virtual ~RecordObserver() = default;
  virtual void OnStored(std::span<const Outcome> outcomes, std::chrono::nanoseconds write_time) = 0;
};

// Thread-safe: the consumer thread (invalid messages) and the executor thread
// (results) both record. Does not own its collaborators; they must outlive it.
class OutcomeRecorder final : public OutcomeSink {
 public:
  struct Options {
    // Publications of one outcome when deliveries fail transiently. Each
    // delivery already includes the producer's own retries with backoff
    // (librdkafka's retry.backoff.ms, up to message.timeout.ms).
    int publish_attempts = 3;
    RecordObserver* observer = nullptr;  // not owned; may be null
    const Clock* clock = &RealClock();   // write time, ack time and wall time; not owned
  };

  // `publisher` may be null (no Kafka output configured). Store writes go
  // through `writes`, which raises the fatal condition when they keep
  // failing; `health` takes a fatal producer error.
  OutcomeRecorder(OutcomeStore& store, OutcomePublisher* publisher, AckSink& acks, StoreWrites& writes,
                  Health& health, Options options);

  // Stores all of `outcomes` in one write, then publishes and acks each.
  // Each outcome is encoded once (OutcomeToJson); the store write and the
  // reply share those bytes.
  // If the store keeps failing the outcomes are not acked (their offsets are
  // never committed, so the jobs run again after a restart) and a fatal
  // condition is raised. Returns the store's status.
  absl::Status Record(std::vector<Outcome> outcomes) override;

  // Waits for in-flight publications.
  absl::Status Flush(std::chrono::milliseconds timeout);

  const RecorderStats& stats() const { return stats_; }

 private:
  // An outcome between its store write and its ack, with its JSON.
  struct Encoded {
    Outcome outcome;
    std::string json;
  };

  absl::Status Store(std::span<const Outcome> outcomes, std::span<const std::string> json);
  void PublishThenAck(std::shared_ptr<const Encoded> recorded, int attempt);
  void Undeliverable(std::shared_ptr<const Encoded> recorded, const absl::Status& why, bool permanent);
  void Ack(const Outcome& outcome);

  OutcomeStore& store_;
  OutcomePublisher* publisher_;
  StoreWrites& writes_;
  AckSink& acks_;
  Health& health_;
  Options options_;
  RecorderStats stats_;
};

}  // namespace qinfer
