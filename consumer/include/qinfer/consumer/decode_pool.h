// The tokenizer pool (`tokenizer.threads`): decodes the jobs topic's
// messages off the consumer thread, so that tokenizing runs on every core
// the model leaves free instead of capping the service at one thread's
// rate. The consumer thread polls and tracks each message's offset in
// order (OffsetTracker), then hands the pool a copy of the message, which
// the pool owns from then on (librdkafka's message is destroyed at once).
// Each worker decodes with its own MessageHandler (its own tokenizer
// handle) and queues the jobs or records the failure, as the consumer
// thread would. Offsets are committed in order whatever order the workers
// finish in: a commit point only passes offsets whose records are durable.
//
// Bounded: the messages being decoded count against `max_messages` and
// `max_bytes`; once either is reached Submit waits until the workers have
// brought both down to half (or the pool is empty), so a burst never holds
// more than the bounds and the consumer is woken once for many messages,
// not once a message. The
// consumer does not pause for a full pool (only for a full job queue, which
// stays full for as long as the executor is behind; see backpressure.h):
// pausing and resuming a partition costs librdkafka a re-fetch, 0.3-0.5 s
// each time.
//
// Drain() waits until every submitted message is decoded: the consumer
// calls it before a revoke commits and before Close commits, so that no
// decode outlives the assignment it came from unseen.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "qinfer/consumer/job_decoder.h"
#include "qinfer/consumer/message_handler.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/stats.h"

namespace qinfer::consumer {

// The pool's counters (core/stats.h).
#define QINFER_DECODE_STATS(STAT)                                                                          \
  STAT(decoded, "qinfer_decoded_messages_total", "", "Messages the tokenizer pool decoded")                \
  STAT(decoded_tokens, "qinfer_decoded_tokens_total", "",                                                  \
       "Tokens of the jobs the tokenizer pool queued (its rate is the pool's tokens/s)")                   \
  STAT(busy_ns, "qinfer_decode_busy_seconds_total", "",                                                    \
       "Time the tokenizer pool's workers spent decoding, all workers together")                            \
  STAT(waits, "qinfer_decode_full_waits_total", "",                                                        \
       "Times the consumer waited for room in the tokenizer pool (its bounds were reached)")                \
  STAT(image_jobs, "qinfer_image_jobs_total", "", "Image jobs decoded and prepared (`image` or `image_url`)") \
  STAT(image_too_large, "qinfer_image_failures_total", "reason=too_large",                                    \
       "Image jobs refused before or while decoding, by reason: too_large (limits.max_image_bytes or "        \
       "max_image_pixels), unsupported_format, corrupt (truncated or damaged data), source (not base64, a "   \
       "file outside inputs.image_roots or missing, a URL that failed)")                                       \
  STAT(image_unsupported, "qinfer_image_failures_total", "reason=unsupported_format", "")                     \
  STAT(image_corrupt, "qinfer_image_failures_total", "reason=corrupt", "")                                    \
  STAT(image_source, "qinfer_image_failures_total", "reason=source", "")                                      \
  STAT(image_decode_ns, "qinfer_image_decode_seconds_total", "",                                              \
       "Time spent reading, decoding and preparing images, every decoder together")

struct DecodeStats {
  QINFER_DECLARE_STATS(QINFER_DECODE_STATS)
  // The most workers a pool has (tokenizer.threads' upper bound).
  static constexpr size_t kMaxWorkers = 256;

  std::atomic<uint64_t> in_flight{0};        // messages submitted, not yet decoded
  std::atomic<uint64_t> in_flight_bytes{0};  // their bytes
  std::atomic<uint64_t> peak_in_flight{0};   // the most messages held at once
  // The pool's workers, and each one's share of busy_ns (the first
  // `workers` entries; set before any worker starts).
  std::atomic<uint32_t> workers{0};
  std::array<std::atomic<uint64_t>, kMaxWorkers> worker_busy_ns{};
};

// One message as the pool owns it.
struct OwnedMessage {
  std::string key;
  std::string value;
  Origin origin;
  RawMessage View() const { return {key, value, origin}; }
};

// Thread-safe: Submit and Drain belong to the consumer thread; the
// workers are the pool's own.
class DecodePool {
 public:
  struct Options {
    size_t max_messages = 4096;
    size_t max_bytes = size_t{64} << 20;
  };

  // One worker per handler; REQUIRES: 1 <= handlers.size() <=
  // DecodeStats::kMaxWorkers. `stats` (not owned) must outlive the pool.
  DecodePool(std::vector<std::unique_ptr<MessageHandler>> handlers, Options options, DecodeStats& stats);
  // Drains, then ends the workers.
  ~DecodePool();

  DecodePool(const DecodePool&) = delete;
  DecodePool& operator=(const DecodePool&) = delete;

  // Takes a tracked message (MessageHandler::Track said yes); when the pool
  // is full, waits until it has room again (see above).
  void Submit(OwnedMessage message);
  // Waits until every message submitted so far is decoded.
  void Drain();
  size_t threads() const { return workers_.size(); }


 private:
  void Work(MessageHandler& handler, size_t worker);
  bool FullLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Both counts at most half their bound, or nothing pending.
  bool RoomLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  std::vector<std::unique_ptr<MessageHandler>> handlers_;
  DecodeStats& stats_;
  mutable Mutex mu_;
  CondVar work_;  // a message was submitted, or the pool stops
  CondVar room_;  // the pool has room again, or is empty
  std::deque<OwnedMessage> queue_ ABSL_GUARDED_BY(mu_);
  size_t pending_ ABSL_GUARDED_BY(mu_) = 0;  // submitted, not yet decoded
  size_t pending_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  size_t idle_workers_ ABSL_GUARDED_BY(mu_) = 0;  // waiting on work_
  bool submitter_waits_ ABSL_GUARDED_BY(mu_) = false;
  size_t drainers_ ABSL_GUARDED_BY(mu_) = 0;  // waiting on room_ in Drain
  std::vector<std::thread> workers_;
};

}  // namespace qinfer::consumer
