// The logic of `qinfer collect`: it folds the reply topic and the dead-letter
// topic into one outcome store with the layout and the one-record-per-id
// rule of `qinfer serve`'s own store, so that the results of every instance
// of a consumer group can be read in one place (docs/design/guarantees.md:
// the topics are the shared record). Pure: the Kafka consumer and the
// RocksDB store come from app/, through plain data and OutcomeStore.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/job.h"
#include "qinfer/core/kafka_record.h"

namespace qinfer::collect {

// A consumed Kafka message as plain data.
using Message = KafkaRecord;

// The topics collected. At least one is set; they may be the same topic.
struct Topics {
  std::string reply;        // "": not collected
  std::string dead_letter;  // "": not collected
};

// Nesting deeper than this in a reply's JSON is unreadable; checked by a
// scan before the value is parsed. Outcomes nest three levels deep.
inline constexpr int kMaxReplyDepth = 32;

// What one message means for the store.
struct Reading {
  enum class Kind {
    kOutcome,  // `outcome` belongs in the store
    // A dead-letter notice that a job has a result whose reply could not be
    // delivered (reason `undeliverable`): the result itself is only in the
    // store of the instance that ran the job, so there is nothing to store.
    kNotice,
    kUnreadable,  // not a qinfer outcome; `why` says what is wrong
  };
  Kind kind = Kind::kUnreadable;
  Outcome outcome;
  // kOutcome: the record to store. A reply's own bytes when they are one
  // line (the serving instance's OutcomeToJson, passed through, not
  // re-encoded); else, and for a dead letter, OutcomeToJson(outcome).
  std::string json;
  std::string why;
};

// Reads one message. A message of topics.reply holds OutcomeToJson bytes
// (OutcomeFromJson); a message of topics.dead_letter holds the original
// payload and `__qinfer.errors.*` headers (FromDeadLetter). When both name
// the same topic, a message with the dead-letter id header is a dead
// letter. Unreadable: a message of another topic, one over the size bound,
// a reply nested deeper than kMaxReplyDepth or that does not parse, an
// outcome with an empty id, a negative attempt, or a failure without a
// reason (OutcomeStore::Put would refuse its whole batch).
Reading Read(const Message& message, const Topics& topics);

// Kafka convention: the next offset to read in a partition.
struct Position {
  std::string topic;
  int32_t partition = -1;
  int64_t next_offset = -1;

  friend bool operator==(const Position&, const Position&) = default;
};

// Counts since the collector was made. Plain numbers: one thread owns them.
struct CollectStats {
  uint64_t messages = 0;    // taken by Add
  uint64_t results = 0;     // ok outcomes written
  uint64_t failures = 0;    // failure records written
  uint64_t notices = 0;     // kNotice
  uint64_t unreadable = 0;  // kUnreadable, skipped
  uint64_t writes = 0;      // successful OutcomeStore::Put calls

  friend bool operator==(const CollectStats&, const CollectStats&) = default;
};

// Holds what consumed messages mean until the store has it, and says which
// offsets may then be committed: a message's offset becomes committable only
// once its outcome is durable (or it needed none: a notice, an unreadable
// message, which is logged with `event=` and skipped, never retried).
// Writing the same outcomes again leaves the store as it was (see
// OutcomeStore::Put), so a message read again after a restart is harmless.
//
// Not thread-safe: one thread (the consumer's) calls it. Does not own
// `store`, which must outlive it.
class Collector {
 public:
  Collector(OutcomeStore& store, Topics topics);

  // Reads `message` (see Read) and holds the result until Flush. Messages
  // of one partition come in increasing offset order.
  Reading::Kind Add(const Message& message);

  // Messages taken since the last successful Flush, and their bytes (key,
  // value and headers; an oversized message, not copied, counts none).
  size_t held() const { return held_messages_; }
  size_t held_bytes() const { return held_bytes_; }

  // Writes the held outcomes in one OutcomeStore::Put. OK: they are
  // durable; returns, for every partition with held messages, the position
  // after its last one (which may now be committed), and holds nothing.
  // Error: the store's; everything stays held and nothing is committable,
  // so a later Flush writes the same outcomes again.
  absl::StatusOr<std::vector<Position>> Flush();

  const CollectStats& stats() const { return stats_; }

 private:
  OutcomeStore& store_;
  const Topics topics_;
  std::vector<Outcome> held_outcomes_;
  std::vector<std::string> held_json_;  // held_outcomes_' records
  size_t held_messages_ = 0;
  size_t held_bytes_ = 0;
  std::map<std::pair<std::string, int32_t>, int64_t> held_next_;  // -> next offset
  CollectStats stats_;
};

// When the reader writes what the collector holds (Flush) and stores the
// offsets past it: few, short writes keep the uncommitted tail small.
struct FlushPolicy {
  size_t max_held = 1000;                        // messages held
  size_t max_held_bytes = size_t{64} << 20;      // their bytes, whatever their count
  std::chrono::milliseconds max_hold_time{200};  // the longest one waits
};

// True when `held` messages of `held_bytes` (Collector::held(),
// held_bytes()) are due to be written: as many as the policy allows, or as
// many bytes, or some are held and either the first of them was taken
// max_hold_time ago (`held_for`) or the last poll got nothing (the
// partitions have nothing more for now).
bool FlushDue(const FlushPolicy& policy, size_t held, size_t held_bytes, std::chrono::nanoseconds held_for,
              bool poll_was_empty);

}  // namespace qinfer::collect
