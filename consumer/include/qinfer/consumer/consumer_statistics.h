// Per-partition progress of the consumer, read from librdkafka's statistics
// (the JSON its stats callback delivers every statistics.interval.ms).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qinfer::consumer {

struct PartitionProgress {
  int32_t partition = -1;
  int64_t committed_offset = -1;  // -1: nothing committed yet
  int64_t high_watermark = -1;    // -1: not known yet
  // Messages after the committed offset (from the low watermark when
  // nothing is committed); -1 when the broker's offsets are not known yet.
  int64_t lag = -1;

  friend bool operator==(const PartitionProgress&, const PartitionProgress&) = default;
};

// The partitions of `topic` in one statistics document, in partition order,
// leaving out librdkafka's internal UA partition (-1). Errors say what is
// missing or malformed.
absl::StatusOr<std::vector<PartitionProgress>> ParsePartitionProgress(std::string_view json,
                                                                      const std::string& topic);

}  // namespace qinfer::consumer
