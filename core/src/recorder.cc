#include "qinfer/core/recorder.h"

#include <thread>

namespace qinfer {

OutcomeRecorder::OutcomeRecorder(OutcomeStore& store,
                                 OutcomePublisher* publisher, AckSink& acks,
                                 Options options)
    : store_(store), publisher_(publisher), acks_(acks), options_(options) {}

absl::Status OutcomeRecorder::Record(std::vector<Outcome> outcomes) {
  if (outcomes.empty()) return absl::OkStatus();
  absl::Status status;
  for (int attempt = 1; attempt <= options_.store_attempts; ++attempt) {
    status = store_.Put(outcomes);
    if (status.ok()) break;
    stats_.store_errors++;
    // A transient I/O error deserves a retry; a lasting one leaves the jobs
    // unacknowledged so that they are redelivered, never lost.
    std::this_thread::sleep_for(options_.store_backoff * attempt);
  }
  if (!status.ok()) return status;
  stats_.stored += outcomes.size();
  for (Outcome& outcome : outcomes) {
    if (publisher_ != nullptr && publisher_->WantsToPublish(outcome)) {
      PublishThenAck(std::make_shared<const Outcome>(std::move(outcome)), 1);
    } else {
      acks_.Ack(outcome.origin);
      stats_.acked++;
    }
  }
  return absl::OkStatus();
}

void OutcomeRecorder::PublishThenAck(std::shared_ptr<const Outcome> outcome,
                                     int attempt) {
  publisher_->Publish(*outcome, [this, outcome, attempt](absl::Status s) {
    if (s.ok()) {
      stats_.published++;
      acks_.Ack(outcome->origin);
      stats_.acked++;
      return;
    }
    // The result is durable in the store; only the reply is missing. Retry;
    // after the last attempt leave it unacked so a restart publishes it again.
    if (attempt < options_.publish_attempts) {
      stats_.publish_retries++;
      PublishThenAck(outcome, attempt + 1);
    }
  });
}

absl::Status OutcomeRecorder::Flush(std::chrono::milliseconds timeout) {
  if (publisher_ == nullptr) return absl::OkStatus();
  return publisher_->Flush(timeout);
}

}  // namespace qinfer
