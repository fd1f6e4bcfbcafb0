#include "qinfer/core/recorder.h"


#include "qinfer/core/logging.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer {

bool IsPermanentDeliveryError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
      return true;
    default:
      return false;
  }
}

OutcomeRecorder::OutcomeRecorder(OutcomeStore& store, OutcomePublisher* publisher, AckSink& acks,
                                 StoreWrites& writes, Health& health, Options options)
    : store_(store), publisher_(publisher), writes_(writes), acks_(acks), health_(health), options_(options) {}

absl::Status OutcomeRecorder::Store(std::span<const Outcome> outcomes, std::span<const std::string> json) {
  // A failure raised the fatal condition in StoreWrites: nothing is acked.
  return writes_.Write(StoreWrite::kResults, [&] { return store_.Put(outcomes, json); });
}

absl::Status OutcomeRecorder::Record(std::vector<Outcome> outcomes) {
  if (outcomes.empty()) return absl::OkStatus();
  const SteadyTime start = options_.clock->Now();
  std::vector<std::string> json;
  json.reserve(outcomes.size());
  const int64_t wall = options_.clock->WallMillis();
  for (Outcome& o : outcomes) {
    if (o.completed_at_ms == 0) o.completed_at_ms = wall;
    json.push_back(OutcomeToJson(o));
  }
  if (absl::Status s = Store(outcomes, json); !s.ok()) return s;
  stats_.stored += outcomes.size();
  if (options_.observer != nullptr) {
    options_.observer->OnStored(outcomes, options_.clock->Now() - start);
  }
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (publisher_ != nullptr && publisher_->WantsToPublish(outcomes[i])) {
      PublishThenAck(std::make_shared<const Encoded>(Encoded{std::move(outcomes[i]), std::move(json[i])}), 1);
    } else {
      Ack(outcomes[i]);
    }
  }
  return absl::OkStatus();
}

void OutcomeRecorder::Ack(const Outcome& outcome) {
  const SteadyTime start = options_.clock->Now();
  acks_.Ack(outcome.origin);
  stats_.acked++;
  stats_.ack_ns += uint64_t(std::chrono::nanoseconds(options_.clock->Now() - start).count());
}

void OutcomeRecorder::PublishThenAck(std::shared_ptr<const Encoded> recorded, int attempt) {
  // The reply carries the bytes the store got.
  publisher_->Publish(recorded->outcome, recorded->json, [this, recorded, attempt](absl::Status s) {
    const Outcome& outcome = recorded->outcome;
    if (s.ok()) {
      stats_.published++;
      Ack(outcome);
      return;
    }
    if (absl::IsCancelled(s)) return;  // closing: a restart publishes it again
    if (absl::IsInternal(s)) {
      // A fatal producer error: every later delivery fails too.
      if (health_.RaiseFatal(fatal_cause::kProducer, std::string(s.message()))) {
        Logger("core").Error("event=fatal cause=producer job=%v error=\"%v\"", outcome.id, std::string(s.message()));
      }
      return;
    }
    const bool permanent = IsPermanentDeliveryError(s);
    if (!permanent && attempt < options_.publish_attempts) {
      stats_.publish_retries++;
      PublishThenAck(recorded, attempt + 1);
      return;
    }
    Undeliverable(recorded, s, permanent);
  });
}

void OutcomeRecorder::Undeliverable(std::shared_ptr<const Encoded> recorded, const absl::Status& why, bool permanent) {
  const Outcome& outcome = recorded->outcome;
  (permanent ? stats_.undeliverable_permanent : stats_.undeliverable_exhausted)++;
  const std::string error = std::string(why.message());
  Logger("core").Warn("event=delivery_failed job=%v class=%v error=\"%v\" (recorded, acked)", outcome.id,
                      permanent ? "permanent" : "retries_exhausted", error);
  // The stored outcome says its message never arrived. Its write is a
  // store write like any other: if it keeps failing, the store is fatal.
  Outcome marked = outcome;
  marked.delivery_error = error;
  const std::string marked_json = OutcomeToJson(marked);
  if (!Store({&marked, 1}, {&marked_json, 1}).ok()) return;

  // A compact notice where the failure can be seen by whoever reads the
  // dead letters: no output and no payload (an oversized payload may be why
  // delivery failed); the original stays at its coordinates.
  Outcome notice = std::move(marked);
  notice.output.clear();
  notice.payload.clear();
  notice.payload_truncated = true;
  if (notice.ok) {
    notice.ok = false;
    notice.reason = reason::kUndeliverable;
    notice.error = "the result is stored, but its reply could not be delivered";
  }
  if (publisher_ == nullptr || !publisher_->WantsToPublish(notice)) {
    Ack(outcome);
    return;
  }
  publisher_->Publish(notice, [this, recorded](absl::Status s) {
    if (s.ok()) {
      stats_.dead_letter_notices++;
    } else {
      Logger("core").Warn("event=dead_letter_notice_failed job=%v error=\"%v\"", recorded->outcome.id,
                          std::string(s.message()));
    }
    // The record is durable and says what happened: never wait for more.
    Ack(recorded->outcome);
  });
}

absl::Status OutcomeRecorder::Flush(std::chrono::milliseconds timeout) {
  if (publisher_ == nullptr) return absl::OkStatus();
  return publisher_->Flush(timeout);
}

}  // namespace qinfer
