// The dead-letter message of a failure record, in the convention Kafka users
// know from Kafka Connect's `__connect.errors.*` headers: the value is the
// original message value, and headers say where it came from and why it
// failed. Pure data: the Kafka producer and `qinfer replay` both use it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/job.h"

namespace qinfer {

// Header names: Kafka Connect's pattern under qinfer's own prefix.
namespace dlq_header {
inline constexpr const char* kTopic = "__qinfer.errors.topic";
inline constexpr const char* kPartition = "__qinfer.errors.partition";
inline constexpr const char* kOffset = "__qinfer.errors.offset";
inline constexpr const char* kReason = "__qinfer.errors.reason";
inline constexpr const char* kMessage = "__qinfer.errors.message";
inline constexpr const char* kAttempt = "__qinfer.errors.attempt";
inline constexpr const char* kTimestamp = "__qinfer.errors.timestamp";  // ms since the epoch
inline constexpr const char* kId = "__qinfer.errors.id";
inline constexpr const char* kInputLength = "__qinfer.errors.input_length";
// "true" when the value is not the whole original message (a prefix of an
// oversized one, or nothing): the original is at topic/partition/offset.
inline constexpr const char* kPayloadTruncated = "__qinfer.errors.payload_truncated";
inline constexpr const char* kDeliveryError = "__qinfer.errors.delivery_error";
inline constexpr const char* kReplayOfTopic = "__qinfer.errors.replay_of.topic";
inline constexpr const char* kReplayOfPartition = "__qinfer.errors.replay_of.partition";
inline constexpr const char* kReplayOfOffset = "__qinfer.errors.replay_of.offset";
}  // namespace dlq_header

struct DeadLetter {
  std::string key;    // the job id
  std::string value;  // the original message value (see kPayloadTruncated)
  std::vector<std::pair<std::string, std::string>> headers;
};

// The dead-letter message for a failure record (ok == false).
DeadLetter ToDeadLetter(const Outcome& failure);

// The failure record a dead-letter message describes: id, reason, error,
// attempt, origin, replay_of, input length, payload (the value) and
// payload_truncated. InvalidArgument when a required header (id, reason,
// topic, partition, offset) is missing or not a number where one is due.
absl::StatusOr<Outcome> FromDeadLetter(const DeadLetter& message);

}  // namespace qinfer
