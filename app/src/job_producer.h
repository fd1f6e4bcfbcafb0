// A Kafka producer for job messages, shared by `submit` and `replay`:
// idempotent, waits for room when librdkafka's queue is full, and counts
// the broker's acknowledgements.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

struct rd_kafka_s;
struct rd_kafka_message_s;

namespace qinfer::kafka {
class KafkaLog;
}

namespace qinfer::app {

class JobProducer {
 public:
  // `properties` (librdkafka, verbatim) win over the defaults
  // enable.idempotence=true and linger.ms=10. Errors name the property.
  static absl::StatusOr<std::unique_ptr<JobProducer>> Create(
      const std::string& brokers, const std::map<std::string, std::string>& properties);
  ~JobProducer();

  // Queues one message (key: empty for none), waiting while the local queue
  // is full; other errors are returned as they come.
  absl::Status Send(const std::string& topic, std::string_view key, std::string_view value);
  // Waits for every delivery report (bounded by message.timeout.ms), calling
  // `waiting` about twice a second meanwhile.
  void Flush(const std::function<void()>& waiting);

  uint64_t acked() const { return delivery_.acked.load(); }
  uint64_t failed() const { return delivery_.failed.load(); }
  // The first delivery error, once failed() > 0.
  const std::string& first_error() const { return delivery_.first_error; }

 private:
  struct Delivery {
    std::atomic<uint64_t> acked{0};
    std::atomic<uint64_t> failed{0};
    std::string first_error;
  };
  JobProducer();
  static void OnDelivery(rd_kafka_s*, const rd_kafka_message_s* msg, void* opaque);

  // librdkafka's log and error callbacks (the "app" logger); outlives rk_.
  std::unique_ptr<kafka::KafkaLog> kafka_log_;
  rd_kafka_s* rk_ = nullptr;
  Delivery delivery_;
};

}  // namespace qinfer::app
