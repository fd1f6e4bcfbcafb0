// Per-partition progress of the consumer, read from librdkafka's statistics
// (the JSON its stats callback delivers every statistics.interval.ms) and
// refreshed with watermarks queried from the partition leaders.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace qinfer::consumer {

struct PartitionProgress {
  int32_t partition = -1;
  // The group's committed offset (the next offset to read); nullopt while
  // the group has committed nothing for the partition.
  std::optional<int64_t> committed_offset;
  int64_t low_watermark = -1;   // -1: not known yet
  int64_t high_watermark = -1;  // -1: not known yet
  // high_watermark - committed_offset, or - low_watermark while nothing is
  // committed; -1 when the broker's offsets are not known yet.
  int64_t lag = -1;

  friend bool operator==(const PartitionProgress&, const PartitionProgress&) = default;
};

// The partitions of `topic` in one statistics document, in partition order,
// leaving out librdkafka's internal UA partition (-1). Errors say what is
// missing or malformed.
absl::StatusOr<std::vector<PartitionProgress>> ParsePartitionProgress(std::string_view json, const std::string& topic);

// `p` with watermarks (low, high) learnt elsewhere (a ListOffsets query):
// watermarks only move forward, so each is the larger of the two, and the
// lag follows. -1: that one is not known.
PartitionProgress WithWatermarks(PartitionProgress p, int64_t low, int64_t high);

}  // namespace qinfer::consumer
