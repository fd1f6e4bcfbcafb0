// KafkaJobProducer: publishes job messages to the jobs topic, for `submit`
// and `replay`: idempotent, waits for room when librdkafka's queue is full,
// and counts the broker's acknowledgements. Beside KafkaOutcomePublisher,
// storage's other Kafka producer: storage holds qinfer's producers, consumer
// its consumers. librdkafka stays out of this header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace qinfer::storage {

struct JobProducerConfig {
  std::string brokers;  // bootstrap.servers
  // librdkafka properties, verbatim; they win over the defaults
  // enable.idempotence=true and linger.ms=10 (and `brokers`).
  std::map<std::string, std::string> properties;
  // The logger of its librdkafka log lines (client=producer).
  std::string logger = "storage";
};

// Not thread-safe: one thread calls Send and Flush.
class KafkaJobProducer {
 public:
  // Errors: InvalidArgument naming the property librdkafka refused. Needs
  // no broker: the connection is made in the background.
  static absl::StatusOr<std::unique_ptr<KafkaJobProducer>> Create(const JobProducerConfig& config);
  // Destroys the producer without waiting: call Flush first.
  ~KafkaJobProducer();

  KafkaJobProducer(const KafkaJobProducer&) = delete;
  KafkaJobProducer& operator=(const KafkaJobProducer&) = delete;

  // Queues one message (key: empty for none), waiting while the local queue
  // is full; other errors are returned as they come (Unavailable).
  absl::Status Send(const std::string& topic, std::string_view key, std::string_view value);
  // Waits for every delivery report (bounded by message.timeout.ms), calling
  // `waiting` about twice a second meanwhile.
  void Flush(const std::function<void()>& waiting);

  uint64_t acked() const;
  uint64_t failed() const;
  // The first delivery error, once failed() > 0.
  const std::string& first_error() const;

 private:
  struct Impl;
  explicit KafkaJobProducer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qinfer::storage
