#include "qinfer/consumer/decode_pool.h"

#include "qinfer/core/clock.h"
#include "qinfer/core/thread_name.h"

namespace qinfer::consumer {

DecodePool::DecodePool(std::vector<std::unique_ptr<MessageHandler>> handlers, Options options, DecodeStats& stats)
    : options_(options), handlers_(std::move(handlers)), stats_(stats) {
  stats_.workers = uint32_t(handlers_.size());
  workers_.reserve(handlers_.size());
  for (auto& handler : handlers_) {
    workers_.emplace_back([this, h = handler.get(), n = workers_.size()] {
      StageThread stage("decode", int(n));
      Work(*h, n);
    });
  }
}

DecodePool::~DecodePool() {
  Drain();
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  work_.SignalAll();
  for (std::thread& worker : workers_) worker.join();
}

bool DecodePool::FullLocked() const {
  return pending_ >= options_.max_messages || (pending_ > 0 && pending_bytes_ >= options_.max_bytes);
}

bool DecodePool::RoomLocked() const {
  return pending_ == 0 || (2 * pending_ <= options_.max_messages && 2 * pending_bytes_ <= options_.max_bytes);
}

void DecodePool::Submit(OwnedMessage message) {
  const size_t bytes = message.key.size() + message.value.size();
  bool wake = false;
  {
    MutexLock lock(&mu_);
    if (FullLocked()) {
      stats_.waits++;
      submitter_waits_ = true;
      while (!RoomLocked()) room_.Wait(&mu_);
      submitter_waits_ = false;
    }
    pending_++;
    pending_bytes_ += bytes;
    stats_.in_flight = pending_;
    stats_.in_flight_bytes = pending_bytes_;
    if (pending_ > stats_.peak_in_flight.load()) stats_.peak_in_flight = pending_;
    queue_.push_back(std::move(message));
    wake = idle_workers_ > 0;
  }
  if (wake) work_.Signal();
}

void DecodePool::Drain() {
  MutexLock lock(&mu_);
  drainers_++;
  while (pending_ > 0) room_.Wait(&mu_);
  drainers_--;
}

void DecodePool::Work(MessageHandler& handler, size_t worker) {
  const Clock& clock = RealClock();
  while (true) {
    OwnedMessage message;
    {
      MutexLock lock(&mu_);
      idle_workers_++;
      while (queue_.empty() && !stopping_) work_.Wait(&mu_);
      idle_workers_--;
      if (queue_.empty()) return;  // stopping, nothing left
      message = std::move(queue_.front());
      queue_.pop_front();
    }
    const SteadyTime start = clock.Now();
    const size_t tokens = handler.Process(message.View());
    const uint64_t busy = uint64_t(std::chrono::nanoseconds(clock.Now() - start).count());
    stats_.busy_ns += busy;
    stats_.worker_busy_ns[worker] += busy;
    stats_.decoded++;
    stats_.decoded_tokens += tokens;
    bool wake = false;
    {
      MutexLock lock(&mu_);
      pending_--;
      pending_bytes_ -= message.key.size() + message.value.size();
      stats_.in_flight = pending_;
      stats_.in_flight_bytes = pending_bytes_;
      // Wake the consumer only once the pool has drained to half its bounds
      // (or empty, for Drain): one wake-up for many messages, not one each.
      wake = (submitter_waits_ && RoomLocked()) || (drainers_ > 0 && pending_ == 0);
    }
    if (wake) room_.SignalAll();
  }
}

}  // namespace qinfer::consumer
