// librdkafka configuration helpers, for the producers and consumers that
// storage and the CLI (`submit`, `replay`) create. The consumer module keeps
// its own copy: it does not depend on storage.
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
