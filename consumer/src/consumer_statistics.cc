#include "qinfer/consumer/consumer_statistics.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace qinfer::consumer {

absl::StatusOr<std::vector<PartitionProgress>> ParsePartitionProgress(std::string_view json,
                                                                      const std::string& topic) {
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
    progress.committed_offset = std::max<int64_t>(number(p, "committed_offset"), -1);
    progress.high_watermark = std::max<int64_t>(number(p, "hi_offset"), -1);
    const int64_t low = number(p, "lo_offset");
    if (progress.high_watermark >= 0) {
      const int64_t from = progress.committed_offset >= 0 ? progress.committed_offset
                                                          : std::max<int64_t>(low, 0);
      progress.lag = std::max<int64_t>(progress.high_watermark - from, 0);
    }
    out.push_back(progress);
  }
  std::sort(out.begin(), out.end(),
            [](const PartitionProgress& a, const PartitionProgress& b) { return a.partition < b.partition; });
  return out;
}

}  // namespace qinfer::consumer
