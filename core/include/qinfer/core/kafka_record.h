// A consumed Kafka message as plain data: what consumer::KafkaTopicReader
// reads and collect::Collector folds, so that neither header names
// librdkafka and the two agree on one type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace qinfer {

struct KafkaRecord {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  std::string key;
  std::string value;
  std::vector<std::pair<std::string, std::string>> headers;
  // > 0 when the message (key, value and headers) was larger than the bound
  // its reader applies: its size in bytes. Key, value and headers were then
  // not copied.
  size_t oversized_bytes = 0;
};

}  // namespace qinfer
