#include "qinfer/consumer/consumer_statistics.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace qinfer::consumer {
namespace {

void SetLag(PartitionProgress& p) {
  if (p.high_watermark < 0) {
    p.lag = -1;
    return;
  }
  const int64_t from = p.committed_offset ? *p.committed_offset : std::max<int64_t>(p.low_watermark, 0);
  p.lag = std::max<int64_t>(p.high_watermark - from, 0);
}

}  // namespace

absl::StatusOr<std::vector<PartitionProgress>> ParsePartitionProgress(std::string_view json, const std::string& topic) {
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InvalidArgumentError("statistics: not a JSON object");
  }
  std::vector<PartitionProgress> out;
  const auto topics = doc.find("topics");
  if (topics == doc.end() || !topics->is_object()) return out;  // no topic known yet
  const auto t = topics->find(topic);
  if (t == topics->end()) return out;
  const auto parts = t->find("partitions");
  if (parts == t->end() || !parts->is_object()) {
    return absl::InvalidArgumentError("statistics: topic " + topic + " has no partitions object");
  }
  auto number = [](const nlohmann::json& p, const char* key) -> int64_t {
    const auto it = p.find(key);
    return it != p.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
  };
  for (const auto& [_, p] : parts->items()) {
    if (!p.is_object()) continue;
    PartitionProgress progress;
    progress.partition = int32_t(number(p, "partition"));
    if (progress.partition < 0) continue;  // UA: librdkafka's unassigned queue
    // librdkafka says -1001 (RD_KAFKA_OFFSET_INVALID) before the first commit.
    if (const int64_t committed = number(p, "committed_offset"); committed >= 0) {
      progress.committed_offset = committed;
    }
    progress.low_watermark = std::max<int64_t>(number(p, "lo_offset"), -1);
    progress.high_watermark = std::max<int64_t>(number(p, "hi_offset"), -1);
    SetLag(progress);
    out.push_back(progress);
  }
  std::sort(out.begin(), out.end(),
            [](const PartitionProgress& a, const PartitionProgress& b) { return a.partition < b.partition; });
  return out;
}

PartitionProgress WithWatermarks(PartitionProgress p, int64_t low, int64_t high) {
  p.low_watermark = std::max(p.low_watermark, std::max<int64_t>(low, -1));
  p.high_watermark = std::max(p.high_watermark, std::max<int64_t>(high, -1));
  SetLag(p);
  return p;
}

}  // namespace qinfer::consumer
