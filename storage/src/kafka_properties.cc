#include "qinfer/storage/kafka_properties.h"

#include "qinfer/core/secrets.h"

namespace qinfer::storage {

absl::Status ApplyKafkaProperties(
    rd_kafka_conf_t* conf, const std::map<std::string, std::string>& props) {
  char errstr[512];
  for (const auto& [key, value] : props) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), errstr,
                          sizeof(errstr)) != RD_KAFKA_CONF_OK) {
      return absl::InvalidArgumentError(PropertyError(key, value, errstr));
    }
  }
  return absl::OkStatus();
}

}  // namespace qinfer::storage
