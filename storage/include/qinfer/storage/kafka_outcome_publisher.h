// KafkaOutcomePublisher: sends results to their reply topic (key = job id,
// value = OutcomeToJson) and failure records to the dead-letter topic in
// the dead-letter convention (qinfer/core/dead_letter.h: key = job id,
// value = the original message value, the failure in `__qinfer.errors.*`
// headers).
// librdkafka stays out of this header; users need only qinfer::core.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/job.h"

namespace qinfer::storage {

struct PublisherConfig {
  // bootstrap.servers. REQUIRED unless `properties` sets bootstrap.servers.
  std::string brokers;
  // Results whose reply_to is empty go here. Default: empty (not published).
  std::string default_reply_topic;
  // Failure records go here. Default: empty (not published).
  std::string dead_letter_topic;
  // librdkafka producer properties, passed unchanged; they override the
  // defaults enable.idempotence=true and linger.ms=5 (and `brokers`).
  std::map<std::string, std::string> properties;
  // How long Publish waits for room when librdkafka's local queue is full
  // before it fails the outcome with ResourceExhausted. Publish calls made
  // from a `done` callback never wait. Default: 2 s.
  std::chrono::milliseconds queue_full_timeout{2000};
  // How long the destructor waits for outstanding deliveries before it
  // cancels them. Default: 10 s.
  std::chrono::milliseconds close_timeout{10000};
  // The queue-full backoff and the waits for deliveries; not owned.
  const Clock* clock = &RealClock();
};

// Thread-safe. Owns one librdkafka producer and one thread (the "publisher
// thread") that serves its delivery reports: every `done` runs on it, one at
// a time, and may call Publish again (e.g. to retry) but must not call Flush
// or destroy the publisher.
class KafkaOutcomePublisher final : public OutcomePublisher {
 public:
  // Errors: InvalidArgument naming the librdkafka property that is unknown
  // or has a bad value, or the missing setting. Needs no broker: the
  // connection is made in the background.
  static absl::StatusOr<std::unique_ptr<KafkaOutcomePublisher>> Create(const PublisherConfig& config);

  // Waits up to close_timeout for outstanding deliveries, then cancels the
  // rest (their `done` gets Cancelled), stops the publisher thread and
  // destroys the producer. Every `done` has run when it returns; the few
  // librdkafka never reported run on the destroying thread, after the
  // publisher thread stopped. So whatever a `done` uses must outlive the
  // publisher. REQUIRES: no Publish or Flush is in progress on another
  // thread.
  ~KafkaOutcomePublisher() override;

  KafkaOutcomePublisher(const KafkaOutcomePublisher&) = delete;
  KafkaOutcomePublisher& operator=(const KafkaOutcomePublisher&) = delete;

  // ok outcomes: reply_to is set or there is a default reply topic.
  // Failure records: there is a dead-letter topic.
  bool WantsToPublish(const Outcome& outcome) const override;

  // Queues `outcome` for its topic (reply_to, else default_reply_topic, for
  // results; dead_letter_topic for failures). `done` runs exactly once on
  // the publisher thread: OK when the broker acknowledged the message
  // (acks=all under idempotence); otherwise an error naming the topic and
  // the job — also when the message could not even be queued (unknown
  // topic, too large, queue full past queue_full_timeout) or the outcome
  // has no topic (FailedPrecondition; see WantsToPublish). Never blocks for
  // longer than queue_full_timeout. A result's message value is `json`
  // (OutcomeToJson(outcome), as the caller stored it), copied.
  void Publish(const Outcome& outcome, std::string_view json, Done done) override;
  using OutcomePublisher::Publish;

  // Waits until every `done` of an outcome published so far (and of those
  // they publish in turn) has run, or `timeout` passed: DeadlineExceeded
  // with the number still outstanding.
  absl::Status Flush(std::chrono::milliseconds timeout) override;

  // Outcomes whose `done` has not run yet.
  size_t InFlight() const;

 private:
  struct Impl;
  explicit KafkaOutcomePublisher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qinfer::storage
