// What both of consumer's group members (KafkaJobSource, and
// KafkaTopicReader when it subscribes) do with librdkafka: answer a
// rebalance and store offsets; and the owners of librdkafka's lists,
// queues and events they use. Private to the consumer module.
#pragma once

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "qinfer/consumer/offset_tracker.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/logging.h"

namespace qinfer::consumer::internal {

// Owners of librdkafka's lists, queues and events.
struct TopicPartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* p) const { rd_kafka_topic_partition_list_destroy(p); }
};
using TopicPartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, TopicPartitionListDeleter>;

struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
using Queue = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;

struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
using Event = std::unique_ptr<rd_kafka_event_t, EventDeleter>;

// Serves `q`'s events to `on_event` until `done()` or `deadline` on `clock`.
template <typename Done, typename OnEvent>
void ServeUntil(rd_kafka_queue_t* q, const Clock& clock, SteadyTime deadline, Done done, OnEvent on_event) {
  while (!done()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.Now());
    if (left.count() <= 0) return;
    Event ev(rd_kafka_queue_poll(q, int(std::min<int64_t>(left.count(), 1000))));
    if (ev != nullptr) on_event(ev.get());
  }
}

// What a member does around an eager rebalance (whole sets assigned and
// revoked). Every hook may be empty.
struct RebalanceHooks {
  // Per partition, before it is assigned.
  std::function<void(const std::string& topic, int32_t partition)> assigning;
  // After the whole set is assigned (rd_kafka_assign).
  std::function<void(rd_kafka_topic_partition_list_t* assigned)> assigned;
  // Before the set is revoked: store the offsets of what is durable (see
  // StoreOffsets). True: commit them now, synchronously, so that the next
  // owner re-reads as little as possible; false: commit nothing.
  std::function<bool()> before_revoke;
  // Per partition, once revoked (after the commit), and once after the set.
  std::function<void(const std::string& topic, int32_t partition)> revoked;
  std::function<void()> after_revoke;
};

// librdkafka's rebalance callback, the one implementation: ASSIGN_PARTITIONS
// assigns `parts` (each one logged `event=assigned`); anything else (a
// revoke, an error) runs before_revoke, commits when it says so, logs
// `event=revoked` per partition and unassigns everything. Runs on the thread
// that polls (rd_kafka_consumer_poll), or that serves the close queue.
void Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, const Log& log,
               const RebalanceHooks& hooks);

// Stores `points` (the next offset to read, per partition) for librdkafka's
// next commit: the one offset-storing call, made only once what lies below
// each point is durable. A partition revoked meanwhile is skipped (logged
// at debug): its new owner re-reads from the last commit.
void StoreOffsets(rd_kafka_t* rk, const std::vector<CommitPoint>& points, const Log& log);

}  // namespace qinfer::consumer::internal
