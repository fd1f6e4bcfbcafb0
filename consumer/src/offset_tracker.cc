#include "qinfer/consumer/offset_tracker.h"

namespace qinfer::consumer {

uint64_t OffsetTracker::Assign(const std::string& topic, int32_t partition) {
  MutexLock lock(&mu_);
  Partition& p = partitions_[{topic, partition}];
  p = Partition{};
  p.epoch = next_epoch_++;
  return p.epoch;
}

void OffsetTracker::Revoke(const std::string& topic, int32_t partition) {
  MutexLock lock(&mu_);
  partitions_.erase({topic, partition});
}

bool OffsetTracker::Track(const Origin& origin) {
  MutexLock lock(&mu_);
  auto it = partitions_.find({origin.topic, origin.partition});
  if (it == partitions_.end() || it->second.epoch != origin.epoch) return false;
  it->second.pending.emplace(origin.offset, false);
  return true;
}

void OffsetTracker::Ack(const Origin& origin) {
  MutexLock lock(&mu_);
  auto it = partitions_.find({origin.topic, origin.partition});
  if (it == partitions_.end() || it->second.epoch != origin.epoch) return;
  Partition& p = it->second;
  auto entry = p.pending.find(origin.offset);
  if (entry == p.pending.end()) return;  // duplicate ack
  entry->second = true;
  // Advance over the completed prefix only.
  while (!p.pending.empty() && p.pending.begin()->second) {
    p.committable = p.pending.begin()->first + 1;
    p.pending.erase(p.pending.begin());
  }
}

std::vector<CommitPoint> OffsetTracker::TakeCommittable() {
  MutexLock lock(&mu_);
  std::vector<CommitPoint> points;
  for (auto& [key, p] : partitions_) {
    if (p.committable >= 0 && p.committable != p.reported) {
      points.push_back({key.first, key.second, p.committable});
      p.reported = p.committable;
    }
  }
  return points;
}

std::vector<CommitPoint> OffsetTracker::Committable() const {
  MutexLock lock(&mu_);
  std::vector<CommitPoint> points;
  for (const auto& [key, p] : partitions_) {
    if (p.committable >= 0) points.push_back({key.first, key.second, p.committable});
  }
  return points;
}

size_t OffsetTracker::pending() const {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [key, p] : partitions_) n += p.pending.size();
  return n;
}

}  // namespace qinfer::consumer
