// KafkaTopicReader: the consumer of the CLI's commands, in one of two modes.
//
// - Subscribe (`qinfer collect`): a member of a consumer group on some
//   topics, at-least-once as KafkaJobSource is: eager rebalancing (whole
//   sets assigned and revoked), enable.auto.offset.store=false, and an
//   offset is stored (StoreOffsets) only once the owner has made durable
//   what was read below it; librdkafka's auto-commit commits what was
//   stored, and a revoke commits first.
// - ForRanges (`qinfer replay --dead-letter-topic`): no group membership;
//   reads fixed offset ranges of one topic's partitions, up to each range's
//   end or the partition's, and commits nothing.
//
// Messages come back as plain data (Record); librdkafka stays out of this
// header. Not thread-safe: one thread makes every call, and the
// BeforeRevoke hook runs on it, inside Poll and Close.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/core/kafka_record.h"

namespace qinfer::consumer {

// A consumed Kafka message as plain data (its size bound:
// ReaderConfig::max_message_bytes).
using Record = KafkaRecord;

struct ReaderConfig {
  std::string brokers;  // bootstrap.servers
  std::string group;    // group.id
  // librdkafka properties, verbatim; they win over the reader's own.
  std::map<std::string, std::string> properties;
  // The logger of its lifecycle and librdkafka log lines, and the
  // `client=` of the latter.
  std::string logger = "consumer";
  std::string client = "reader";
  // Default: no bound.
  size_t max_message_bytes = std::numeric_limits<size_t>::max();
};

// What one Poll got.
struct Polled {
  enum class Kind {
    kNothing,         // no message within the timeout
    kRecord,          // `record`
    kEndOfPartition,  // enable.partition.eof=true only
    kError,           // a consumer error librdkafka recovers from by itself
    kFatal,           // a fatal consumer error: every later call fails
  };
  Kind kind = Kind::kNothing;
  Record record;
  std::string error;  // kError, kFatal: librdkafka's text, secrets redacted
};

// Offsets [from, end) of one partition.
struct PartitionRange {
  std::string topic;
  int32_t partition = -1;
  int64_t from = 0;
  int64_t end = 0;  // exclusive

  friend bool operator==(const PartitionRange&, const PartitionRange&) = default;
};

// The part of a partition whose watermarks are [low, high) that lies within
// offsets from_offset..to_offset (both inclusive; to_offset < 0: no upper
// bound); nullopt when nothing does.
std::optional<PartitionRange> RangeWithin(const std::string& topic, int32_t partition, int64_t low, int64_t high,
                                          int64_t from_offset, int64_t to_offset);

// Whether a partition has been read to `high` (its high watermark now).
// `position` is the next offset this reader will fetch (< 0: it fetched
// nothing yet), `committed` the group's committed offset (< 0: none); a
// partition with neither starts at `high` when `starts_at_end`, else at
// `low` (auto.offset.reset).
bool ReadToEnd(int64_t position, int64_t committed, int64_t low, int64_t high, bool starts_at_end);

// Whether an auto.offset.reset value starts a partition with no committed
// offset at its end (latest, largest, end) rather than its beginning.
bool StartsAtEnd(const std::string& auto_offset_reset);

class KafkaTopicReader {
 public:
  // Runs before the group takes partitions away (and when Close leaves it):
  // make durable what was read, and return the positions past it, which
  // are stored and committed before the partitions go. nullopt when nothing
  // may be committed (the owner's store failed).
  using BeforeRevoke = std::function<std::optional<std::vector<CommitPoint>>()>;

  // A member of config.group subscribed to `topics`, with
  // AtLeastOnceConsumerProperties under config.properties. Errors:
  // InvalidArgument when enable.auto.offset.store is not false, when
  // partition.assignment.strategy is cooperative, or naming a property
  // librdkafka refused; Internal when the subscription failed.
  static absl::StatusOr<std::unique_ptr<KafkaTopicReader>> Subscribe(const ReaderConfig& config,
                                                                     const std::vector<std::string>& topics,
                                                                     BeforeRevoke before_revoke);
  // A reader of the ranges given to Read, without group membership
  // (group.id is still set: librdkafka wants one), with
  // enable.auto.commit=false and enable.partition.eof=true under
  // config.properties. Errors: InvalidArgument naming a property.
  static absl::StatusOr<std::unique_ptr<KafkaTopicReader>> ForRanges(const ReaderConfig& config);

  // Closes the consumer unless Close did (without Close's commit; a group
  // member's revoke still runs BeforeRevoke), and destroys the handle.
  ~KafkaTopicReader();
  KafkaTopicReader(const KafkaTopicReader&) = delete;
  KafkaTopicReader& operator=(const KafkaTopicReader&) = delete;

  // Subscribe: waits at most `timeout` for a message; serves rebalances.
  Polled Poll(std::chrono::milliseconds timeout);
  // Subscribe: stores `points` for the next commit (see above). A partition
  // revoked meanwhile is skipped: its new owner re-reads from the last
  // commit.
  void StoreOffsets(const std::vector<CommitPoint>& points);
  // Subscribe: partitions assigned now.
  int assigned() const;
  // Subscribe: true when every assigned partition has been read to its high
  // watermark (ReadToEnd, with auto.offset.reset as configured); false also
  // when the broker did not say within 5 s.
  bool CaughtUp();
  // Subscribe: commits what was stored (synchronously; a failure is logged
  // `event=commit_failed`), then leaves the group; the revoke of what is
  // still assigned runs BeforeRevoke once more.
  void Close();

  // ForRanges: the ranges of `topic`'s partitions (all, or only `partition`
  // when >= 0) within offsets from_offset..to_offset (see RangeWithin).
  // Errors: NotFound when the topic or the partition does not exist;
  // Unavailable when the broker did not answer within 10 s.
  absl::StatusOr<std::vector<PartitionRange>> Ranges(const std::string& topic, int32_t partition, int64_t from_offset,
                                                     int64_t to_offset);
  // ForRanges: calls `fn` with every message of `ranges`, in offset order
  // per partition, until each range has been read to its end or to its
  // partition's. Stops at the first error `fn` returns (that error), or the
  // consumer's (Unavailable).
  absl::Status Read(const std::vector<PartitionRange>& ranges, const std::function<absl::Status(const Record&)>& fn);

  struct Impl;

 private:
  explicit KafkaTopicReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qinfer::consumer
