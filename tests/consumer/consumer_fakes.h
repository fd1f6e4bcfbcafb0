// What a message's way ends in, for the consumer's tests without Kafka: a
// queue that takes, refuses or closes on command (and may hold its callers
// until released), and a sink that keeps the records and acks them.
#pragma once

#include <mutex>
#include <condition_variable>
#include <vector>

#include "qinfer/core/interfaces.h"

namespace qinfer::consumer::testing {

// Takes jobs up to `longest` ids (longer: OutOfRange, as a queue with no
// bucket for them), or refuses everything once closed. Thread-safe.
class CommandedQueue final : public JobQueue {
 public:
  size_t longest = 8;
  bool closed = false;

  absl::Status Push(Job job) override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !held_; });
    if (closed) return absl::FailedPreconditionError("the queue is closed");
    if (job.length() > longest) return absl::OutOfRangeError("no bucket holds a job this long");
    jobs_.push_back(std::move(job));
    return absl::OkStatus();
  }
  bool IsFull() const override { return false; }
  bool HasRoomToResume() const override { return true; }

  // While held, Push waits: the messages being decoded pile up.
  void Hold(bool held) {
    {
      std::lock_guard lock(mu_);
      held_ = held;
    }
    cv_.notify_all();
  }
  std::vector<Job> jobs() const {
    std::lock_guard lock(mu_);
    return jobs_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  std::vector<Job> jobs_;
};

// Keeps the records, and acks them as the recorder would once durable.
// Thread-safe.
class KeptRecords final : public OutcomeSink {
 public:
  explicit KeptRecords(AckSink& acks) : acks_(acks) {}
  absl::Status Record(std::vector<Outcome> outcomes) override {
    std::lock_guard lock(mu_);
    for (Outcome& o : outcomes) {
      acks_.Ack(o.origin);
      records_.push_back(std::move(o));
    }
    return absl::OkStatus();
  }
  std::vector<Outcome> records() const {
    std::lock_guard lock(mu_);
    return records_;
  }

 private:
  AckSink& acks_;
  mutable std::mutex mu_;
  std::vector<Outcome> records_;
};

}  // namespace qinfer::consumer::testing
