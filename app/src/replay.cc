#include "replay.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "qinfer/consumer/kafka_topic_reader.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/dead_letter.h"
#include "qinfer/core/logging.h"
#include "qinfer/storage/kafka_job_producer.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {
namespace {

// Calls `fn` with every failure record of the store that the selection
// takes; `total` first gets their count (a first pass), for progress.
absl::Status FromStore(const ReplayOptions& o, uint64_t* total, const std::function<void(const Outcome&)>& fn) {
  storage::RocksDbOutcomeStore::Options options;
  options.read_only = true;
  auto store = storage::RocksDbOutcomeStore::Open(o.store, options);
  if (!store.ok()) return store.status();
  using Kind = storage::RocksDbOutcomeStore::Kind;
  *total = 0;
  absl::Status s = (*store)->ForEach(Kind::kFailures, [&](const Outcome& f) {
    if (replay::Selected(f, o.selection)) ++*total;
    return true;
  });
  if (!s.ok()) return s;
  return (*store)->ForEach(Kind::kFailures, [&](const Outcome& f) {
    if (replay::Selected(f, o.selection)) fn(f);
    return true;
  });
}

// Reads the dead-letter topic's range with a group-less reader; `total`
// gets the number of messages in the range. With a store, each letter's
// attempt becomes that of the id's current record in it when that is later:
// a letter is a snapshot of one try, and the job may have been replayed
// since.
absl::Status FromDeadLetters(const ReplayOptions& o, const storage::RocksDbOutcomeStore* store, uint64_t* total,
                             const std::function<void(const Outcome&)>& fn,
                             const std::function<void(const std::string&)>& unreadable) {
  consumer::ReaderConfig config;
  config.brokers = o.brokers;
  config.group = "qinfer-replay";
  config.properties = o.consumer_properties;
  config.logger = "app";
  config.client = "replay";
  auto reader = consumer::KafkaTopicReader::ForRanges(config);
  if (!reader.ok()) return reader.status();
  auto ranges = (*reader)->Ranges(o.dead_letter_topic, o.partition, o.from_offset, o.to_offset);
  if (!ranges.ok())
    return absl::Status(ranges.status().code(), "dead-letter " + std::string(ranges.status().message()));
  *total = 0;
  for (const consumer::PartitionRange& r : *ranges) *total += uint64_t(r.end - r.from);
  return (*reader)->Read(*ranges, [&](const consumer::Record& m) -> absl::Status {
    auto failure = FromDeadLetter(DeadLetter{m.key, m.value, m.headers});
    if (!failure.ok()) {
      unreadable("partition " + std::to_string(m.partition) + " offset " + std::to_string(m.offset) + ": " +
                 std::string(failure.status().message()));
      return absl::OkStatus();
    }
    if (!replay::Selected(*failure, o.selection)) return absl::OkStatus();
    if (store != nullptr) {
      auto current = store->Get(failure->id);
      if (!current.ok()) return current.status();
      if (current->has_value()) failure->attempt = std::max(failure->attempt, (*current)->attempt);
    }
    fn(*failure);
    return absl::OkStatus();
  });
}

// The store whose current records number a dead-letter replay's attempts
// (read-only, so it is safe while `serve` has it open).
absl::StatusOr<std::unique_ptr<storage::RocksDbOutcomeStore>> AttemptsStore(const ReplayOptions& o) {
  if (o.store.empty() || o.dead_letter_topic.empty()) return nullptr;
  storage::RocksDbOutcomeStore::Options options;
  options.read_only = true;
  return storage::RocksDbOutcomeStore::Open(o.store, options);
}

// Adds the ids of --ids-file, one per line, to the selection.
absl::Status LoadIds(ReplayOptions& o) {
  if (o.ids_file.empty()) return absl::OkStatus();
  std::ifstream in(o.ids_file);
  if (!in) return absl::NotFoundError("cannot read --ids-file " + o.ids_file);
  for (std::string id; std::getline(in, id);) {
    if (!id.empty()) o.selection.ids.insert(id);
  }
  return absl::OkStatus();
}

// The producer of the replayed jobs, once the jobs topic is known to exist:
// a missing topic would hold every message until librdkafka gives up on it
// (message.timeout.ms), and then say only that they were not acknowledged.
absl::StatusOr<std::unique_ptr<storage::KafkaJobProducer>> OpenProducer(const ReplayOptions& o) {
  consumer::TopicCheck check;
  check.brokers = o.brokers;
  check.properties = o.properties;
  check.topics = {o.topic};
  check.timeout = std::chrono::seconds(10);
  if (absl::Status s = consumer::EnsureTopics(check); !s.ok()) {
    if (absl::IsNotFound(s)) {
      return absl::NotFoundError("--topic " + o.topic + ": the topic does not exist on " + o.brokers +
                                 "; name the jobs topic the service reads");
    }
    return absl::Status(s.code(), "--topic " + o.topic + ": " + std::string(s.message()));
  }
  return storage::KafkaJobProducer::Create({o.brokers, o.properties, "app"});
}

// What a replay did with each selected failure, and its closing report.
class Tally {
 public:
  // `producer` is null for a dry run.
  Tally(const ReplayOptions& o, storage::KafkaJobProducer* producer) : o_(o), producer_(producer) {}

  void Take(const Outcome& f, uint64_t total) {
    if (!progress_) progress_.emplace(clock_, total, std::chrono::seconds(1));
    ++selected_;
    if (o_.selection.ids.contains(f.id)) matched_.insert(f.id);
    auto message = replay::ReplayMessage(f, o_.overrides, o_.limits);
    if (!message.ok()) {
      refused_[f.reason]++;
      Note(std::string(message.status().message()));
    } else if (o_.dry_run) {
      std::cout << f.id << "\t" << f.reason << "\t" << *message << "\n";
      ++sent_;
    } else if (absl::Status s = producer_->Send(o_.topic, f.id, *message); !s.ok()) {
      Note("job " + f.id + ": " + std::string(s.message()));
      send_failed_ = true;
    } else {
      ++sent_;
    }
    if (o_.progress) {
      if (auto line = progress_->Update(selected_)) {
        std::cerr << (tty_ ? "\r" : "") << "replay: " << *line << (tty_ ? "" : "\n");
      }
    }
  }

  void Unreadable(const std::string& why) {
    ++unreadable_;
    Note("not a qinfer dead letter, skipped: " + why);
  }

  // Prints the closing report; the exit status (0: everything selected was
  // sent and acknowledged, 1: not).
  int Finish() {
    if (producer_ != nullptr) producer_->Flush([] {});
    if (o_.progress && tty_ && selected_ > 0) std::cerr << "\n";
    ReportUnmatched();
    if (producer_ != nullptr && producer_->failed() > 0) {
      std::cerr << "replay: " << producer_->failed() << " jobs were not delivered: " << producer_->first_error()
                << "\n";
    }
    const uint64_t acked = producer_ != nullptr ? producer_->acked() : 0;
    std::string why;
    for (const auto& [reason, n] : refused_) why += " " + reason + "=" + std::to_string(n);
    std::cerr << "replay: " << (o_.dry_run ? "dry run, nothing published: " : "") << "selected " << selected_ << ", "
              << (o_.dry_run ? "would send " : "sent ") << sent_;
    if (!o_.dry_run) std::cerr << " to " << o_.topic << " (" << acked << " acknowledged)";
    if (!refused_.empty()) std::cerr << ", not replayed " << (selected_ - sent_) << " (by reason:" << why << ")";
    if (unreadable_ > 0) std::cerr << ", " << unreadable_ << " unreadable dead letters";
    std::cerr << "; " << (progress_ ? progress_->Final(selected_) : "0 in 0.0 s") << "\n";
    const bool all = selected_ == sent_ && !send_failed_ && (o_.dry_run || acked == sent_) && unreadable_ == 0;
    const bool none_matched = !o_.selection.ids.empty() && matched_.empty();
    return all && !none_matched ? 0 : 1;
  }

 private:
  static constexpr int kErrorsShown = 10;

  void Note(const std::string& text) {
    if (errors_shown_++ < kErrorsShown) std::cerr << "replay: " << text << "\n";
  }

  void ReportUnmatched() const {
    std::vector<std::string> unmatched;
    for (const std::string& id : o_.selection.ids) {
      if (!matched_.contains(id)) unmatched.push_back(id);
    }
    if (unmatched.empty()) return;
    constexpr size_t kIdsShown = 10;
    std::cerr << "replay: " << unmatched.size() << " of " << o_.selection.ids.size()
              << " requested ids selected no failure record (no such id, or none that matches the selection):";
    for (size_t i = 0; i < unmatched.size() && i < kIdsShown; ++i) std::cerr << " " << unmatched[i];
    if (unmatched.size() > kIdsShown) std::cerr << " and " << (unmatched.size() - kIdsShown) << " more";
    std::cerr << "\n";
  }

  const ReplayOptions& o_;
  storage::KafkaJobProducer* const producer_;
  SystemClock clock_;
  std::optional<replay::Progress> progress_;
  uint64_t selected_ = 0, sent_ = 0, unreadable_ = 0;
  std::map<std::string, uint64_t> refused_;  // why -> count
  const bool tty_ = isatty(STDERR_FILENO);
  int errors_shown_ = 0;
  bool send_failed_ = false;
  std::set<std::string> matched_;  // requested ids that were selected
};

int Refused(absl::string_view why) {
  std::cerr << "replay: " << why << "\n";
  return 2;
}

}  // namespace

int Replay(const ReplayOptions& options) {
  ReplayOptions o = options;
  if (o.store.empty() && o.dead_letter_topic.empty()) {
    return Refused("choose a source: --store DIR or --dead-letter-topic TOPIC");
  }
  auto attempts_store = AttemptsStore(o);
  if (!attempts_store.ok()) return Refused(attempts_store.status().message());
  for (absl::Status s : {replay::CheckSelection(o.selection), replay::CheckOverrides(o.overrides), LoadIds(o)}) {
    if (!s.ok()) return Refused(s.message());
  }
  std::unique_ptr<storage::KafkaJobProducer> producer;
  if (!o.dry_run) {
    auto p = OpenProducer(o);
    if (!p.ok()) return Refused(p.status().message());
    producer = *std::move(p);
  }
  Tally tally(o, producer.get());
  uint64_t total = 0;
  auto take = [&](const Outcome& f) { tally.Take(f, total); };
  absl::Status read = !o.dead_letter_topic.empty()
                          ? FromDeadLetters(o, attempts_store->get(), &total, take,
                                            [&](const std::string& why) { tally.Unreadable(why); })
                          : FromStore(o, &total, take);
  if (!read.ok()) return Refused(read.message());
  return tally.Finish();
}

}  // namespace qinfer::app
