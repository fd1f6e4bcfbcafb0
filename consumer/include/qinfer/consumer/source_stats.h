// The consumer's counters, shared by the consumer thread and the tokenizer
// pool's workers.
#pragma once

#include <atomic>

#include "qinfer/core/stats.h"

namespace qinfer::consumer {

// The consumer's counters (core/stats.h).
#define QINFER_SOURCE_STATS(STAT)                                                                         \
  STAT(messages, "qinfer_messages_consumed_total", "", "Messages read from the jobs topic")               \
  STAT(rejected, "qinfer_rejected_messages_total", "",                                                    \
       "Messages the consumer turned into invalid or too_long records")                                   \
  STAT(replays, "qinfer_replayed_jobs_total", "",                                                         \
       "Messages read from the jobs topic that replay a failure (replay_of)")                             \
  STAT(pauses, "qinfer_consumer_pauses_total", "", "Backpressure pauses of the consumer")                 \
  STAT(full_waits, "qinfer_consumer_full_queue_waits_total", "",                                          \
       "Times the consumer found the job queue full and waited up to 250 ms for room before pausing")     \
  STAT(refused, "qinfer_refused_messages_total", "",                                                      \
       "Messages left unacked because the queue was closed (stopping): delivered again after a restart")  \
  STAT(offset_stores, "qinfer_offset_stores_total", "",                                                   \
       "Times the consumer thread handed librdkafka committable offsets (its auto-commit sends them)")     \
  STAT(offset_store_ns, "qinfer_offset_store_seconds_total", "",                                          \
       "Time the consumer thread spent finding and storing committable offsets")

struct SourceStats {
  QINFER_DECLARE_STATS(QINFER_SOURCE_STATS)
  std::atomic<int> assigned_partitions{0};
  std::atomic<bool> paused{false};
};

}  // namespace qinfer::consumer
