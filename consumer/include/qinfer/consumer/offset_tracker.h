// Per-partition tracking of consumed and completed offsets. The committable
// position of a partition is one past the end of its contiguous completed
// prefix: an offset is committed only after every job at or below it has a
// durable record, whatever order the jobs complete in.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/mutex.h"

namespace qinfer::consumer {

struct CommitPoint {
  std::string topic;
  int32_t partition = -1;
  int64_t next_offset = -1;  // Kafka convention: the next offset to read

  friend bool operator==(const CommitPoint&, const CommitPoint&) = default;
};

// Thread-safe: the consumer thread tracks and takes commit points; acks
// come through the recorder from whichever thread records or delivers: the
// consumer thread (its own invalid and too_long records), the executor
// thread (results and failures), the publisher's poller thread (delivery
// reports, and the re-publication of retries), and, at shutdown, the thread
// that closes the publisher (what librdkafka never reported).
class OffsetTracker final : public AckSink {
 public:
  // Starts tracking a newly assigned partition; returns its epoch, which
  // the jobs from this assignment carry in Origin::epoch.
  uint64_t Assign(const std::string& topic, int32_t partition);
  // Forgets a revoked partition; later acks for it are ignored.
  void Revoke(const std::string& topic, int32_t partition);

  // Registers a consumed offset. Offsets of one partition arrive in
  // increasing order. Returns false (and tracks nothing) when the origin's
  // partition is not assigned or its epoch is stale.
  bool Track(const Origin& origin);

  // AckSink: the job at `origin` has a durable record.
  void Ack(const Origin& origin) override;

  // Commit points that advanced since the last call.
  std::vector<CommitPoint> TakeCommittable();

  // Current committable position for every assigned partition that has one.
  std::vector<CommitPoint> Committable() const;

  // Tracked offsets still waiting for a record, over all partitions.
  size_t pending() const;

 private:
  struct Partition {
    uint64_t epoch = 0;
    std::map<int64_t, bool> pending;  // offset -> completed
    int64_t committable = -1;         // next offset to commit; -1: none yet
    int64_t reported = -1;            // last value TakeCommittable returned
  };
  using Key = std::pair<std::string, int32_t>;

  mutable Mutex mu_;
  std::map<Key, Partition> partitions_ ABSL_GUARDED_BY(mu_);
  uint64_t next_epoch_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace qinfer::consumer
