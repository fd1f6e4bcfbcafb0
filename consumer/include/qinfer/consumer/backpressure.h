// The consumer's backpressure decision; KafkaJobSource applies it to every
// assigned partition. The job queue alone decides: it fills when the
// executor falls behind, and stays full for as long as it does. (A full
// tokenizer pool makes DecodePool::Submit wait for one message's decode
// instead.)
//
// Pause while the queue is full; resume once it has room to resume (the
// queue's hysteresis). A queue found full is first waited on, up to
// `full_wait`, because it often has room again within milliseconds (the
// executor takes a batch) while a pause and its resume cost librdkafka a
// re-fetch: measured with the tokenizer pool's integration test (10,000
// text jobs, scheduler.max_queued_jobs 512), 4 pauses took a run from 1.5
// to 3.6 s.
#pragma once

#include <chrono>

#include "qinfer/consumer/source_stats.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/interfaces.h"

namespace qinfer::consumer {

// Thread-compatible: the consumer thread's.
class Backpressure {
 public:
  enum class Change { kNone, kPause, kResume };

  // `queue`, `clock` and `stats` must outlive this.
  Backpressure(const JobQueue& queue, const Clock& clock, SourceStats& stats, std::chrono::milliseconds full_wait)
      : queue_(queue), clock_(clock), stats_(stats), full_wait_(full_wait) {}

  // What the partitions need now; may wait up to `full_wait` (counted in
  // stats.full_waits). The caller applies it, then calls Applied.
  Change Next();
  // The change took effect (pauses are counted here).
  void Applied(Change change);
  bool paused() const { return paused_; }

 private:
  // True when the full queue had room again within `full_wait_`.
  bool WaitForRoom();

  const JobQueue& queue_;
  const Clock& clock_;
  SourceStats& stats_;
  const std::chrono::milliseconds full_wait_;
  bool paused_ = false;
};

}  // namespace qinfer::consumer
