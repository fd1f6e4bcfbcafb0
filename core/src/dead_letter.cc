#include "qinfer/core/dead_letter.h"

#include <map>

#include "absl/strings/numbers.h"

namespace qinfer {

DeadLetter ToDeadLetter(const Outcome& f) {
  DeadLetter m;
  m.key = f.id;
  m.value = f.payload;
  auto add = [&](const char* name, std::string value) { m.headers.emplace_back(name, std::move(value)); };
  add(dlq_header::kTopic, f.origin.topic);
  add(dlq_header::kPartition, std::to_string(f.origin.partition));
  add(dlq_header::kOffset, std::to_string(f.origin.offset));
  add(dlq_header::kReason, f.reason);
  add(dlq_header::kMessage, f.error);
  add(dlq_header::kAttempt, std::to_string(f.attempt));
  add(dlq_header::kTimestamp, std::to_string(f.completed_at_ms));
  add(dlq_header::kId, f.id);
  add(dlq_header::kInputLength, std::to_string(f.input_length));
  if (f.payload_truncated) add(dlq_header::kPayloadTruncated, "true");
  if (!f.delivery_error.empty()) add(dlq_header::kDeliveryError, f.delivery_error);
  if (!f.replay_of.topic.empty()) {
    add(dlq_header::kReplayOfTopic, f.replay_of.topic);
    add(dlq_header::kReplayOfPartition, std::to_string(f.replay_of.partition));
    add(dlq_header::kReplayOfOffset, std::to_string(f.replay_of.offset));
  }
  return m;
}

absl::StatusOr<Outcome> FromDeadLetter(const DeadLetter& m) {
  std::map<std::string, std::string> h;
  for (const auto& [name, value] : m.headers) h[name] = value;  // the last one wins
  auto text = [&](const char* name) -> absl::StatusOr<std::string> {
    auto it = h.find(name);
    if (it == h.end()) return absl::InvalidArgumentError(std::string("dead letter without header ") + name);
    return it->second;
  };
  auto number = [&](const char* name, int64_t fallback, bool required) -> absl::StatusOr<int64_t> {
    auto it = h.find(name);
    if (it == h.end()) {
      if (required) return absl::InvalidArgumentError(std::string("dead letter without header ") + name);
      return fallback;
    }
    int64_t n = 0;
    if (!absl::SimpleAtoi(it->second, &n)) {
      return absl::InvalidArgumentError(std::string("dead letter header ") + name + " = '" + it->second +
                                        "' is not a number");
    }
    return n;
  };
  Outcome o;
  o.ok = false;
  o.payload = m.value;
  auto id = text(dlq_header::kId);
  if (!id.ok()) return id.status();
  o.id = *id;
  auto reason = text(dlq_header::kReason);
  if (!reason.ok()) return reason.status();
  o.reason = *reason;
  o.error = h.count(dlq_header::kMessage) ? h[dlq_header::kMessage] : "";
  auto topic = text(dlq_header::kTopic);
  if (!topic.ok()) return topic.status();
  o.origin.topic = *topic;
  auto partition = number(dlq_header::kPartition, -1, true);
  if (!partition.ok()) return partition.status();
  o.origin.partition = int32_t(*partition);
  auto offset = number(dlq_header::kOffset, -1, true);
  if (!offset.ok()) return offset.status();
  o.origin.offset = *offset;
  auto attempt = number(dlq_header::kAttempt, 0, false);
  if (!attempt.ok()) return attempt.status();
  if (*attempt < 0 || *attempt > 1'000'000) {
    return absl::InvalidArgumentError("dead letter header " + std::string(dlq_header::kAttempt) + " = " +
                                      std::to_string(*attempt) + " is out of range");
  }
  o.attempt = int(*attempt);
  auto timestamp = number(dlq_header::kTimestamp, 0, false);
  if (!timestamp.ok()) return timestamp.status();
  o.completed_at_ms = *timestamp;
  auto length = number(dlq_header::kInputLength, 0, false);
  if (!length.ok()) return length.status();
  o.input_length = size_t(*length);
  o.payload_truncated = h.count(dlq_header::kPayloadTruncated) && h[dlq_header::kPayloadTruncated] == "true";
  if (h.count(dlq_header::kDeliveryError)) o.delivery_error = h[dlq_header::kDeliveryError];
  if (h.count(dlq_header::kReplayOfTopic)) {
    o.replay_of.topic = h[dlq_header::kReplayOfTopic];
    auto rp = number(dlq_header::kReplayOfPartition, -1, true);
    if (!rp.ok()) return rp.status();
    auto ro = number(dlq_header::kReplayOfOffset, -1, true);
    if (!ro.ok()) return ro.status();
    o.replay_of.partition = int32_t(*rp);
    o.replay_of.offset = *ro;
  }
  return o;
}

}  // namespace qinfer
