// librdkafka configuration helpers shared inside storage (the consumer module
// keeps its own copy until one moves to a shared place).
#pragma once

#include <map>
#include <string>

#include <librdkafka/rdkafka.h>

#include "absl/status/status.h"

namespace qinfer::storage {

// Sets each property on `conf` unchanged, in key order. Stops at the first
// one librdkafka refuses: InvalidArgument naming the property and giving
// librdkafka's reason. The value is not added (it may be a secret); only
// librdkafka's reason for a malformed value may quote it.
absl::Status ApplyKafkaProperties(
    rd_kafka_conf_t* conf, const std::map<std::string, std::string>& props);

}  // namespace qinfer::storage
