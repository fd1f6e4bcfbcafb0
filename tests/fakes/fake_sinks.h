// In-memory fakes of the outcome seams, for unit tests of module logic.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "qinfer/core/interfaces.h"

namespace qinfer::testing {

// Records every event ("put:<id>", "publish:<id>", "ack:<offset>") in one
// ordered log, so tests can check that a job is acked only after its write.
class EventLog {
 public:
  void Add(std::string e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  // The events that start with `prefix`.
  size_t count(std::string_view prefix) const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const std::string& e : events_) n += e.starts_with(prefix) ? 1 : 0;
    return n;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class RecordingStore final : public OutcomeStore {
 public:
  explicit RecordingStore(EventLog& log) : log_(log) {}
  using OutcomeStore::Put;
  absl::Status Put(std::span<const Outcome> outcomes, std::span<const std::string> json) override {
    if (failures_left_ > 0) {
      --failures_left_;
      log_.Add("put_failed");
      return absl::UnavailableError("injected store failure");
    }
    for (size_t i = 0; i < outcomes.size(); ++i) {
      log_.Add("put:" + outcomes[i].id);
      stored.push_back(outcomes[i]);
      stored_json.push_back(json[i]);
    }
    return absl::OkStatus();
  }
  void FailNextPuts(int n) { failures_left_ = n; }
  std::vector<Outcome> stored;
  std::vector<std::string> stored_json;  // the bytes each Put was given

 private:
  EventLog& log_;
  int failures_left_ = 0;
};

// Deliveries complete when the test calls Deliver(status).
class ManualPublisher final : public OutcomePublisher {
 public:
  explicit ManualPublisher(EventLog& log) : log_(log) {}
  // Results go out when they name a reply topic; failure records when
  // `dead_letters` is set (a dead-letter topic is configured).
  bool WantsToPublish(const Outcome& o) const override { return o.ok ? !o.reply_to.empty() : dead_letters; }
  using OutcomePublisher::Publish;
  void Publish(const Outcome& o, std::string_view json, Done done) override {
    log_.Add("publish:" + o.id);
    published.push_back(o);
    published_json.emplace_back(json);
    pending_.push_back(std::move(done));
  }
  bool dead_letters = false;
  std::vector<Outcome> published;
  std::vector<std::string> published_json;  // the bytes each Publish was given
  absl::Status Flush(std::chrono::milliseconds) override { return absl::OkStatus(); }
  // Completes the oldest pending delivery with `s`.
  void Deliver(absl::Status s) {
    Done done = std::move(pending_.front());
    pending_.pop_front();
    done(s);
  }
  size_t pending() const { return pending_.size(); }

 private:
  EventLog& log_;
  std::deque<Done> pending_;
};

class RecordingAcks final : public AckSink {
 public:
  explicit RecordingAcks(EventLog& log) : log_(log) {}
  void Ack(const Origin& origin) override { log_.Add("ack:" + std::to_string(origin.offset)); }

 private:
  EventLog& log_;
};

}  // namespace qinfer::testing
