#include "replay.h"

#include <librdkafka/rdkafka.h>
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

#include "job_producer.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/dead_letter.h"
#include "qinfer/core/logging.h"
#include "qinfer/kafka/kafka_log.h"
#include "qinfer/storage/kafka_properties.h"
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

// Reads the dead-letter topic's range with an assigned (group-less)
// consumer; `total` gets the number of messages in the range. With a
// store, each letter's attempt becomes that of the id's current record in
// it when that is later: a letter is a snapshot of one try, and the job may
// have been replayed since.
absl::Status FromDeadLetters(const ReplayOptions& o, const storage::RocksDbOutcomeStore* store, uint64_t* total,
                             const std::function<void(const Outcome&)>& fn,
                             const std::function<void(const std::string&)>& unreadable) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> props = {{"bootstrap.servers", o.brokers},
                                              {"group.id", "qinfer-replay"},
                                              {"enable.auto.commit", "false"},
                                              {"enable.partition.eof", "true"}};
  for (const auto& [k, v] : o.consumer_properties) props[k] = v;
  if (absl::Status s = storage::ApplyKafkaProperties(conf, props); !s.ok()) {
    rd_kafka_conf_destroy(conf);
    return s;
  }
  // Declared before the handle's owner: librdkafka logs through it until
  // the handle is destroyed.
  kafka::KafkaLog kafka_log(Logger("app"), "replay", props, kafka::SteadyClock());
  kafka_log.Install(conf, nullptr);
  absl::StatusOr<rd_kafka_t*> handle = kafka::NewHandle(RD_KAFKA_CONSUMER, conf, kafka_log);
  if (!handle.ok()) return handle.status();
  rd_kafka_t* rk = *handle;
  std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> owner(rk, [](rd_kafka_t* k) {
    rd_kafka_consumer_close(k);
    rd_kafka_destroy(k);
  });
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* t = rd_kafka_topic_new(rk, o.dead_letter_topic.c_str(), nullptr);
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t, &md, 10000);
  rd_kafka_topic_destroy(t);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::UnavailableError("dead-letter topic " + o.dead_letter_topic + ": " + rd_kafka_err2str(e));
  }
  std::vector<int32_t> partitions;
  if (md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) partitions.push_back(md->topics[0].partitions[i].id);
  }
  rd_kafka_metadata_destroy(md);
  if (partitions.empty()) return absl::NotFoundError("dead-letter topic " + o.dead_letter_topic + " does not exist");
  if (o.partition >= 0) {
    if (std::find(partitions.begin(), partitions.end(), o.partition) == partitions.end()) {
      return absl::NotFoundError("dead-letter topic " + o.dead_letter_topic + " has no partition " +
                                 std::to_string(o.partition));
    }
    partitions = {o.partition};
  }
  // Each partition from from_offset up to (excluding) its end or to_offset + 1.
  std::map<int32_t, int64_t> stop;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(int(partitions.size()));
  *total = 0;
  for (int32_t p : partitions) {
    int64_t low = 0, high = 0;
    e = rd_kafka_query_watermark_offsets(rk, o.dead_letter_topic.c_str(), p, &low, &high, 10000);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_topic_partition_list_destroy(list);
      return absl::UnavailableError("dead-letter topic " + o.dead_letter_topic + ": " + rd_kafka_err2str(e));
    }
    const int64_t from = std::max(low, o.from_offset);
    const int64_t end = o.to_offset >= 0 ? std::min(high, o.to_offset + 1) : high;
    if (from >= end) continue;
    stop[p] = end;
    *total += uint64_t(end - from);
    rd_kafka_topic_partition_list_add(list, o.dead_letter_topic.c_str(), p)->offset = from;
  }
  e = stop.empty() ? RD_KAFKA_RESP_ERR_NO_ERROR : rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return absl::UnavailableError(rd_kafka_err2str(e));
  while (!stop.empty()) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 1000);
    if (m == nullptr) continue;
    std::unique_ptr<rd_kafka_message_t, void (*)(rd_kafka_message_t*)> hold(m, rd_kafka_message_destroy);
    auto it = stop.find(m->partition);
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (it != stop.end()) stop.erase(it);
      continue;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) return absl::UnavailableError(kafka_log.Redact(rd_kafka_message_errstr(m)));
    if (it == stop.end() || m->offset >= it->second) continue;
    if (m->offset + 1 >= it->second) stop.erase(it);
    DeadLetter letter;
    if (m->key != nullptr) letter.key.assign(static_cast<const char*>(m->key), m->key_len);
    if (m->payload != nullptr) letter.value.assign(static_cast<const char*>(m->payload), m->len);
    rd_kafka_headers_t* headers = nullptr;
    if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const char* name;
      const void* value;
      size_t size;
      for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
           ++i) {
        letter.headers.emplace_back(name, value != nullptr ? std::string(static_cast<const char*>(value), size) : "");
      }
    }
    auto failure = FromDeadLetter(letter);
    if (!failure.ok()) {
      unreadable("partition " + std::to_string(m->partition) + " offset " + std::to_string(m->offset) + ": " +
                 std::string(failure.status().message()));
      continue;
    }
    if (!replay::Selected(*failure, o.selection)) continue;
    if (store != nullptr) {
      auto current = store->Get(failure->id);
      if (!current.ok()) return current.status();
      if (current->has_value()) failure->attempt = std::max(failure->attempt, (*current)->attempt);
    }
    fn(*failure);
  }
  return absl::OkStatus();
}

// The store whose current records number a dead-letter replay's attempts
// (read-only, so it is safe while `serve` has it open).
absl::StatusOr<std::unique_ptr<storage::RocksDbOutcomeStore>> AttemptsStore(const ReplayOptions& o) {
  if (o.store.empty() || o.dead_letter_topic.empty()) return nullptr;
  storage::RocksDbOutcomeStore::Options options;
  options.read_only = true;
  return storage::RocksDbOutcomeStore::Open(o.store, options);
}

}  // namespace

int Replay(const ReplayOptions& options) {
  ReplayOptions o = options;
  if (o.store.empty() && o.dead_letter_topic.empty()) {
    std::cerr << "replay: choose a source: --store DIR or --dead-letter-topic TOPIC\n";
    return 2;
  }
  auto attempts_store = AttemptsStore(o);
  if (!attempts_store.ok()) {
    std::cerr << "replay: " << attempts_store.status().message() << "\n";
    return 2;
  }
  for (absl::Status s : {replay::CheckSelection(o.selection), replay::CheckOverrides(o.overrides)}) {
    if (!s.ok()) {
      std::cerr << "replay: " << s.message() << "\n";
      return 2;
    }
  }
  if (!o.ids_file.empty()) {
    std::ifstream in(o.ids_file);
    if (!in) {
      std::cerr << "replay: cannot read --ids-file " << o.ids_file << "\n";
      return 2;
    }
    for (std::string id; std::getline(in, id);) {
      if (!id.empty()) o.selection.ids.insert(id);
    }
  }
  std::unique_ptr<JobProducer> producer;
  if (!o.dry_run) {
    // A missing topic would hold every message until librdkafka gives up on
    // it (message.timeout.ms), and then say only that they were not
    // acknowledged.
    consumer::TopicCheck check;
    check.brokers = o.brokers;
    check.properties = o.properties;
    check.topics = {o.topic};
    check.timeout = std::chrono::seconds(10);
    if (absl::Status s = consumer::EnsureTopics(check); !s.ok()) {
      if (absl::IsNotFound(s)) {
        std::cerr << "replay: --topic " << o.topic << ": the topic does not exist on " << o.brokers
                  << "; name the jobs topic the service reads\n";
      } else {
        std::cerr << "replay: --topic " << o.topic << ": " << s.message() << "\n";
      }
      return 2;
    }
    auto p = JobProducer::Create(o.brokers, o.properties);
    if (!p.ok()) {
      std::cerr << "replay: " << p.status().message() << "\n";
      return 2;
    }
    producer = *std::move(p);
  }

  SystemClock clock;
  std::optional<replay::Progress> progress;
  uint64_t total = 0, selected = 0, sent = 0, unreadable = 0;
  std::map<std::string, uint64_t> refused;  // why -> count
  const bool tty = isatty(STDERR_FILENO);
  constexpr int kErrorsShown = 10;
  int errors_shown = 0;
  bool send_failed = false;
  auto note = [&](const std::string& text) {
    if (errors_shown++ < kErrorsShown) std::cerr << "replay: " << text << "\n";
  };
  std::set<std::string> matched;  // requested ids that were selected
  auto take = [&](const Outcome& f) {
    if (!progress) progress.emplace(clock, total, std::chrono::seconds(1));
    ++selected;
    if (o.selection.ids.contains(f.id)) matched.insert(f.id);
    auto message = replay::ReplayMessage(f, o.overrides, o.limits);
    if (!message.ok()) {
      refused[f.reason]++;
      note(std::string(message.status().message()));
    } else if (o.dry_run) {
      std::cout << f.id << "\t" << f.reason << "\t" << *message << "\n";
      ++sent;
    } else if (absl::Status s = producer->Send(o.topic, f.id, *message); !s.ok()) {
      note("job " + f.id + ": " + std::string(s.message()));
      send_failed = true;
    } else {
      ++sent;
    }
    if (o.progress) {
      if (auto line = progress->Update(selected)) std::cerr << (tty ? "\r" : "") << "replay: " << *line << (tty ? "" : "\n");
    }
  };
  absl::Status read = !o.dead_letter_topic.empty()
                          ? FromDeadLetters(o, attempts_store->get(), &total, take, [&](const std::string& why) {
                              ++unreadable;
                              note("not a qinfer dead letter, skipped: " + why);
                            })
                          : FromStore(o, &total, take);
  if (!read.ok()) {
    std::cerr << "replay: " << read.message() << "\n";
    return 2;
  }
  if (producer) {
    producer->Flush([] {});
  }
  if (o.progress && tty && selected > 0) std::cerr << "\n";
  std::vector<std::string> unmatched;
  for (const std::string& id : o.selection.ids) {
    if (!matched.contains(id)) unmatched.push_back(id);
  }
  if (!unmatched.empty()) {
    constexpr size_t kIdsShown = 10;
    std::cerr << "replay: " << unmatched.size() << " of " << o.selection.ids.size()
              << " requested ids selected no failure record (no such id, or none that matches the selection):";
    for (size_t i = 0; i < unmatched.size() && i < kIdsShown; ++i) std::cerr << " " << unmatched[i];
    if (unmatched.size() > kIdsShown) std::cerr << " and " << (unmatched.size() - kIdsShown) << " more";
    std::cerr << "\n";
  }
  if (producer && producer->failed() > 0) {
    std::cerr << "replay: " << producer->failed() << " jobs were not delivered: " << producer->first_error() << "\n";
  }
  const uint64_t acked = producer ? producer->acked() : 0;
  std::string why;
  for (const auto& [reason, n] : refused) why += " " + reason + "=" + std::to_string(n);
  std::cerr << "replay: " << (o.dry_run ? "dry run, nothing published: " : "") << "selected " << selected
            << ", " << (o.dry_run ? "would send " : "sent ") << sent;
  if (!o.dry_run) std::cerr << " to " << o.topic << " (" << acked << " acknowledged)";
  if (!refused.empty()) std::cerr << ", not replayed " << (selected - sent) << " (by reason:" << why << ")";
  if (unreadable > 0) std::cerr << ", " << unreadable << " unreadable dead letters";
  std::cerr << "; " << (progress ? progress->Final(selected) : "0 in 0.0 s") << "\n";
  const bool all = selected == sent && !send_failed && (o.dry_run || acked == sent) && unreadable == 0;
  const bool none_matched = !o.selection.ids.empty() && matched.empty();
  return all && !none_matched ? 0 : 1;
}

}  // namespace qinfer::app
