#include "collect.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "qinfer/core/clock.h"
#include "qinfer/collect/collector.h"
#include "qinfer/consumer/kafka_topic_reader.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/recorder.h"
#include "qinfer/pipeline/run_control.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {
namespace {


std::atomic<bool> g_collect_stop{false};
void OnCollectSignal(int) { g_collect_stop = true; }

constexpr int kStoreAttempts = 5;
constexpr std::chrono::milliseconds kStoreBackoff{100};  // times the attempt number
constexpr std::chrono::milliseconds kPollTimeout{100};
constexpr std::chrono::seconds kProgressEvery{5};

int StartFailed(const std::string& what) {
  Logger("collect").Error("event=start_failed error=\"%v\"", what);
  return 2;
}

// What is wrong with the options, if anything.
std::optional<std::string> OptionsError(const CollectOptions& o) {
  if (o.store.empty()) return "--store is required";
  if (o.reply_topic.empty() && o.dead_letter_topic.empty()) {
    return "name a topic to collect: --reply-topic, --dead-letter-topic, or both";
  }
  if (o.idle_exit_seconds < 0) return "--idle-exit must be 0 (off) or a number of seconds";
  if (o.max_message_bytes == 0) return "--max-message-bytes must be positive";
  return std::nullopt;
}

// The topics collected, each once; missing ones are an error naming the flags.
absl::StatusOr<std::vector<std::string>> CheckedTopics(const CollectOptions& o) {
  std::vector<std::string> topics;
  for (const std::string& t : {o.reply_topic, o.dead_letter_topic}) {
    if (!t.empty() && (topics.empty() || topics.front() != t)) topics.push_back(t);
  }
  consumer::TopicCheck check;
  check.brokers = o.brokers;
  check.properties = o.properties;
  check.topics = topics;
  if (absl::Status s = consumer::EnsureTopics(check); !s.ok()) {
    std::string why(s.message());
    // EnsureTopics's fix names serve's configuration; collect has flags.
    if (absl::IsNotFound(s)) {
      why = why.substr(0, why.find(": create them")) +
            ": create them, or fix the names given to --reply-topic and --dead-letter-topic";
    }
    return absl::Status(s.code(), why);
  }
  return topics;
}

// One run of `qinfer collect`: reads the topics into the collector, writes
// what it holds when collect::FlushDue says so, and stores the offsets past
// each write for the reader's commit. Runs on one thread.
class CollectRun {
 public:
  CollectRun(const CollectOptions& o, collect::Collector& collector) : o_(o), collector_(collector) {}

  absl::Status Start(const std::vector<std::string>& topics) {
    consumer::ReaderConfig config;
    config.brokers = o_.brokers;
    config.group = o_.group;
    config.properties = o_.properties;
    config.logger = "collect";
    config.client = "collect";
    config.max_message_bytes = o_.max_message_bytes;
    auto reader = consumer::KafkaTopicReader::Subscribe(config, topics, [this] { return Flush(); });
    if (!reader.ok()) return reader.status();
    reader_ = *std::move(reader);
    log_.Info("event=collecting brokers=%v group=%v reply_topic=%v dead_letter_topic=%v store=%v", o_.brokers, o_.group,
              o_.reply_topic, o_.dead_letter_topic, o_.store);
    return absl::OkStatus();
  }

  // Reads until a signal, a fatal error or (idle_exit_seconds) the end.
  pipeline::RunDecision Loop() {
    SystemClock clock;
    std::optional<pipeline::RunControl> control;
    control.emplace(clock, std::chrono::seconds(o_.idle_exit_seconds));
    while (true) {
      const pipeline::RunDecision decision =
          control->Tick({collector_.stats().messages, collector_.held(), 0, reader_->assigned()}, g_collect_stop.load(),
                        fatal_ || consumer_fatal_);
      if (decision == pipeline::RunDecision::kIdleExit && !reader_->CaughtUp()) {
        // Quiet, but not at the end of every partition (a slow fetch): wait
        // for another idle period.
        log_.Info("event=idle_not_caught_up idle_seconds=%v", o_.idle_exit_seconds);
        control.emplace(clock, std::chrono::seconds(o_.idle_exit_seconds));
        continue;
      }
      if (decision != pipeline::RunDecision::kContinue) return decision;
      const bool empty = !Take(reader_->Poll(kPollTimeout));
      if (collect::FlushDue(policy_, collector_.held(), collector_.held_bytes(), RealClock().Now() - first_held_,
                            empty)) {
        if (auto points = Flush()) reader_->StoreOffsets(*points);
      }
      ShowProgress();
    }
  }

  // Makes durable what was read, commits it, leaves the group. True when the
  // store took everything and the consumer never failed for good.
  bool Finish() {
    std::optional<std::vector<consumer::CommitPoint>> points = Flush();
    if (points) reader_->StoreOffsets(*points);
    reader_->Close();
    return points.has_value() && !consumer_fatal_;
  }

  void LogSummary(const storage::RocksDbOutcomeStore& store) const {
    const collect::CollectStats& s = collector_.stats();
    auto results = store.CountResults();
    auto failures = store.CountFailures();
    auto superseded = store.CountSuperseded();
    log_.Info(
        "event=summary run_seconds=%.1f messages=%v results=%v failures=%v notices=%v unreadable=%v "
        "writes=%v store_results=%v store_failures=%v store_superseded=%v",
        std::chrono::duration<double>(RealClock().Now() - started_).count(), s.messages, s.results, s.failures,
        s.notices, s.unreadable, s.writes, results.ok() ? int64_t(*results) : -1,
        failures.ok() ? int64_t(*failures) : -1, superseded.ok() ? int64_t(*superseded) : -1);
  }

 private:
  // Hands a polled message to the collector, or logs the consumer's error.
  // False when the poll got no message at all.
  bool Take(consumer::Polled polled) {
    switch (polled.kind) {
      case consumer::Polled::Kind::kNothing:
        return false;
      case consumer::Polled::Kind::kRecord:
        if (collector_.held() == 0) first_held_ = RealClock().Now();
        collector_.Add(polled.record);
        break;
      case consumer::Polled::Kind::kFatal:
        consumer_fatal_ = true;
        log_.Error("event=fatal cause=consumer error=\"%v\"", polled.error);
        break;
      case consumer::Polled::Kind::kError:
        log_.Warn("event=consume_error error=\"%v\"", polled.error);
        break;
      case consumer::Polled::Kind::kEndOfPartition:
        break;
    }
    return true;
  }

  // Writes what the collector holds (retrying a failing store a few times):
  // the positions past it, which may be stored. nullopt (fatal) when the
  // store keeps failing: nothing held is then committed.
  std::optional<std::vector<consumer::CommitPoint>> Flush() {
    if (fatal_) return std::nullopt;
    absl::StatusOr<std::vector<collect::Position>> positions;
    const absl::Status written = WriteWithRetries(
        [&] {
          positions = collector_.Flush();
          return positions.status();
        },
        "results", kStoreAttempts, kStoreBackoff, RealClock(), log_, nullptr);
    if (!written.ok()) {
      fatal_ = true;
      log_.Error("event=fatal cause=store error=\"%v\" (offsets not committed)", std::string(written.message()));
      return std::nullopt;
    }
    std::vector<consumer::CommitPoint> points;
    for (collect::Position& p : *positions) points.push_back({std::move(p.topic), p.partition, p.next_offset});
    return points;
  }

  void ShowProgress() {
    if (!o_.progress || RealClock().Now() < next_progress_) return;
    next_progress_ = RealClock().Now() + kProgressEvery;
    const collect::CollectStats& s = collector_.stats();
    if (s.messages == progress_shown_) return;
    progress_shown_ = s.messages;
    const double secs = std::chrono::duration<double>(RealClock().Now() - started_).count();
    log_.Info("event=progress messages=%v results=%v failures=%v notices=%v unreadable=%v rate=%.0f/s", s.messages,
              s.results, s.failures, s.notices, s.unreadable, secs > 0 ? s.messages / secs : 0.0);
  }

  const CollectOptions& o_;
  collect::Collector& collector_;
  const collect::FlushPolicy policy_;
  Log log_ = Logger("collect");
  bool fatal_ = false;           // the store failed for good
  bool consumer_fatal_ = false;  // the consumer did
  const SteadyTime started_ = RealClock().Now();
  SteadyTime first_held_ = started_;
  SteadyTime next_progress_ = started_ + kProgressEvery;
  uint64_t progress_shown_ = 0;
  // Declared last: leaving the group (its destructor, when Finish did not
  // run) flushes through the members above.
  std::unique_ptr<consumer::KafkaTopicReader> reader_;
};

}  // namespace

int Collect(const CollectOptions& o) {
  struct sigaction sa {};
  sa.sa_handler = OnCollectSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  if (std::optional<std::string> error = OptionsError(o)) return StartFailed(*error);
  absl::StatusOr<std::vector<std::string>> topics = CheckedTopics(o);
  if (!topics.ok()) return StartFailed(std::string(topics.status().message()));
  auto store = storage::RocksDbOutcomeStore::Open(o.store);
  if (!store.ok()) return StartFailed(std::string(store.status().message()));
  collect::Collector collector(**store, collect::Topics{o.reply_topic, o.dead_letter_topic});

  CollectRun run(o, collector);
  if (absl::Status s = run.Start(*topics); !s.ok()) return StartFailed(std::string(s.message()));
  if (run.Loop() == pipeline::RunDecision::kIdleExit) {
    Logger("collect").Info("event=idle_exit idle_seconds=%v", o.idle_exit_seconds);
  }
  const bool ok = run.Finish();
  run.LogSummary(**store);
  return ok ? 0 : 1;
}

}  // namespace qinfer::app
