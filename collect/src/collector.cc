#include "qinfer/collect/collector.h"

#include <algorithm>

#include "qinfer/core/dead_letter.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/outcome_json.h"

namespace qinfer::collect {
namespace {

Reading Unreadable(std::string why) {
  Reading r;
  r.kind = Reading::Kind::kUnreadable;
  r.why = std::move(why);
  return r;
}

// True when `json` nests arrays and objects deeper than `limit`. A scan
// before the parse, so that a hostile message costs no parser recursion.
bool NestedDeeperThan(std::string_view json, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : json) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

bool IsDeadLetter(const Message& m, const Topics& topics) {
  if (m.topic != topics.dead_letter) return false;
  if (m.topic != topics.reply) return true;
  return std::any_of(m.headers.begin(), m.headers.end(), [](const auto& h) { return h.first == dlq_header::kId; });
}

}  // namespace

Reading Read(const Message& m, const Topics& topics) {
  const bool reply = !topics.reply.empty() && m.topic == topics.reply;
  const bool dead_letter = !topics.dead_letter.empty() && m.topic == topics.dead_letter;
  if (!reply && !dead_letter) return Unreadable("not a collected topic");
  if (m.oversized_bytes > 0) {
    return Unreadable("message of " + std::to_string(m.oversized_bytes) + " bytes is over the size bound");
  }
  absl::StatusOr<Outcome> outcome;
  bool from_reply = false;
  if (dead_letter && IsDeadLetter(m, topics)) {
    outcome = FromDeadLetter(DeadLetter{m.key, m.value, m.headers});
  } else if (NestedDeeperThan(m.value, kMaxReplyDepth)) {
    return Unreadable("reply nested deeper than " + std::to_string(kMaxReplyDepth));
  } else {
    outcome = OutcomeFromJson(m.value);
    from_reply = true;
  }
  if (!outcome.ok()) return Unreadable(std::string(outcome.status().message()));
  if (outcome->id.empty()) return Unreadable("outcome with an empty id");
  if (outcome->attempt < 0) return Unreadable("outcome with a negative attempt");
  Reading r;
  if (!outcome->ok && outcome->reason == reason::kUndeliverable) {
    r.kind = Reading::Kind::kNotice;
  } else if (!outcome->ok && outcome->reason.empty()) {
    return Unreadable("failure record without a reason");
  } else {
    r.kind = Reading::Kind::kOutcome;
    const bool one_line = m.value.find('\n') == std::string::npos;
    r.json = from_reply && one_line ? m.value : OutcomeToJson(*outcome);
  }
  r.outcome = *std::move(outcome);
  return r;
}

Collector::Collector(OutcomeStore& store, Topics topics) : store_(store), topics_(std::move(topics)) {}

Reading::Kind Collector::Add(const Message& m) {
  Reading r = Read(m, topics_);
  stats_.messages++;
  held_messages_++;
  held_bytes_ += m.key.size() + m.value.size();
  for (const auto& [name, value] : m.headers) held_bytes_ += name.size() + value.size();
  int64_t& next = held_next_[{m.topic, m.partition}];
  next = std::max(next, m.offset + 1);
  switch (r.kind) {
    case Reading::Kind::kOutcome:
      held_outcomes_.push_back(std::move(r.outcome));
      held_json_.push_back(std::move(r.json));
      break;
    case Reading::Kind::kNotice:
      stats_.notices++;
      // The result exists, but only in the store of the instance that ran
      // the job: say where to look, once per notice.
      Logger("collect").Warn(
          "event=undeliverable_notice job=%v topic=%v partition=%v offset=%v "
          "(the result is only in the serving instance's store)",
          r.outcome.id, m.topic, m.partition, m.offset);
      break;
    case Reading::Kind::kUnreadable:
      stats_.unreadable++;
      Logger("collect").Warn("event=unreadable topic=%v partition=%v offset=%v error=\"%v\" (skipped)", m.topic,
                             m.partition, m.offset, r.why);
      break;
  }
  return r.kind;
}

absl::StatusOr<std::vector<Position>> Collector::Flush() {
  if (!held_outcomes_.empty()) {
    if (absl::Status s = store_.Put(held_outcomes_, held_json_); !s.ok()) return s;
    stats_.writes++;
  }
  for (const Outcome& o : held_outcomes_) (o.ok ? stats_.results : stats_.failures)++;
  std::vector<Position> positions;
  positions.reserve(held_next_.size());
  for (const auto& [tp, next] : held_next_) positions.push_back({tp.first, tp.second, next});
  held_outcomes_.clear();
  held_json_.clear();
  held_next_.clear();
  held_messages_ = 0;
  held_bytes_ = 0;
  return positions;
}

bool FlushDue(const FlushPolicy& policy, size_t held, size_t held_bytes, std::chrono::nanoseconds held_for,
              bool poll_was_empty) {
  if (held >= policy.max_held || held_bytes >= policy.max_held_bytes) return true;
  return held > 0 && (poll_was_empty || held_for >= policy.max_hold_time);
}

}  // namespace qinfer::collect
