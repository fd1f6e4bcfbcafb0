#include "qinfer/consumer/decode_pool.h"

#include "qinfer/core/clock.h"
#include "qinfer/core/thread_name.h"

namespace qinfer::consumer {

DecodePool::DecodePool(std::vector<std::unique_ptr<MessageHandler>> handlers, Options options, DecodeStats& stats)
    : options_(options), handlers_(std::move(handlers)), stats_(stats) {
  workers_.reserve(handlers_.size());
  for (auto& handler : handlers_) {
    workers_.emplace_back([this, h = handler.get(), n = workers_.size()] {
      StageThread stage("decode", int(n));
      Work(*h);
    });
  }
}

DecodePool::~DecodePool() {
  Drain();
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  changed_.SignalAll();
  for (std::thread& worker : workers_) worker.join();
}

bool DecodePool::FullLocked() const {
  return pending_ >= options_.max_messages || (pending_ > 0 && pending_bytes_ >= options_.max_bytes);
}

void DecodePool::Submit(OwnedMessage message) {
  const size_t bytes = message.key.size() + message.value.size();
  {
    MutexLock lock(&mu_);
    if (FullLocked()) {
      stats_.waits++;
      while (FullLocked()) changed_.Wait(&mu_);
    }
    pending_++;
    pending_bytes_ += bytes;
    stats_.in_flight = pending_;
    stats_.in_flight_bytes = pending_bytes_;
    if (pending_ > stats_.peak_in_flight.load()) stats_.peak_in_flight = pending_;
    queue_.push_back(std::move(message));
  }
  changed_.SignalAll();
}

void DecodePool::Drain() {
  MutexLock lock(&mu_);
  while (pending_ > 0) changed_.Wait(&mu_);
}

void DecodePool::Work(MessageHandler& handler) {
  const Clock& clock = RealClock();
  while (true) {
    OwnedMessage message;
    {
      MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_) changed_.Wait(&mu_);
      if (queue_.empty()) return;  // stopping, nothing left
      message = std::move(queue_.front());
      queue_.pop_front();
    }
    const SteadyTime start = clock.Now();
    const size_t tokens = handler.Process(message.View());
    stats_.busy_ns += uint64_t(std::chrono::nanoseconds(clock.Now() - start).count());
    stats_.decoded++;
    stats_.decoded_tokens += tokens;
    {
      MutexLock lock(&mu_);
      pending_--;
      pending_bytes_ -= message.key.size() + message.value.size();
      stats_.in_flight = pending_;
      stats_.in_flight_bytes = pending_bytes_;
    }
    changed_.SignalAll();
  }
}

}  // namespace qinfer::consumer
