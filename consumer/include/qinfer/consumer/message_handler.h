// What becomes of one message of the jobs topic, once the consumer has read
// it (Kafka itself is KafkaJobSource's): its offset is tracked, it is
// decoded, and its jobs are queued, or it becomes a failure record (invalid,
// or too_long when no bucket takes it). A message the queue refuses because
// it is closing gets no record: it stays unacked and is read again after the
// restart. Tested without Kafka (tests/consumer/message_handler_test.cc).
#pragma once

#include "qinfer/consumer/job_decoder.h"
#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/consumer/source_stats.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/logging.h"

namespace qinfer::consumer {

// Not thread-safe: the consumer thread handles one message at a time. Does
// not own its collaborators; they must outlive it.
class MessageHandler {
 public:
  MessageHandler(const DecoderLimits& limits, JobQueue& queue, OutcomeSink& records, OffsetTracker& tracker,
                 SourceStats& stats)
      : limits_(limits), queue_(queue), records_(records), tracker_(tracker), stats_(stats) {}

  // `message.origin` must be complete (its epoch: the assignment's), and a
  // partition's offsets arrive in increasing order (OffsetTracker::Track). A
  // message of a partition no longer assigned, or of an older assignment,
  // is left alone: its new owner reads it.
  // Track, then Process.
  void Handle(const RawMessage& message);

  // The first half, on the consumer thread, in offset order: whether the
  // message is still this assignment's (its offset is then tracked).
  bool Track(const RawMessage& message) { return tracker_.Track(message.origin); }
  // The second half, on the consumer thread or a tokenizer pool's worker:
  // decode, then queue or record. Returns the tokens queued.
  size_t Process(const RawMessage& message);

 private:
  // Queues the jobs of one message; the failure record when no bucket takes
  // them, nullopt otherwise (queued, or refused while closing). `tokens`
  // receives the tokens queued.
  std::optional<Outcome> Queue(const RawMessage& message, std::vector<Job>& jobs, size_t& tokens);

  const DecoderLimits& limits_;
  JobQueue& queue_;
  OutcomeSink& records_;
  OffsetTracker& tracker_;
  SourceStats& stats_;
  Log log_ = Logger("consumer");
};

}  // namespace qinfer::consumer
