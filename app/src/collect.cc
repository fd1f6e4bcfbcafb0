#include "collect.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "qinfer/collect/collector.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/core/logging.h"
#include "qinfer/kafka/kafka_log.h"
#include "qinfer/core/recorder.h"
#include "qinfer/pipeline/run_control.h"
#include "qinfer/storage/kafka_properties.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::atomic<bool> g_collect_stop{false};
void OnCollectSignal(int) { g_collect_stop = true; }

// Messages held before a write, and the longest a held message waits for
// one: few, short writes keep the uncommitted tail small.
constexpr size_t kMaxHeld = 1000;
// And the bytes they may hold (values, keys, headers), whatever their count.
constexpr size_t kMaxHeldBytes = size_t{64} << 20;
constexpr milliseconds kMaxHoldTime{200};
constexpr int kStoreAttempts = 5;
constexpr milliseconds kStoreBackoff{100};  // times the attempt number
constexpr std::chrono::seconds kProgressEvery{5};

using TopicPartitionList =
    std::unique_ptr<rd_kafka_topic_partition_list_t, void (*)(rd_kafka_topic_partition_list_t*)>;

// The consumer's state, shared with librdkafka's rebalance callback (which
// runs inside rd_kafka_consumer_poll, on the one thread that polls).
struct Consumer {
  rd_kafka_t* rk = nullptr;
  collect::Collector* collector = nullptr;
  int assigned = 0;
  bool fatal = false;
  Log log = Logger("collect");

  // Writes what the collector holds (retrying a failing store a few times)
  // and stores the offsets past it for librdkafka's commit. False (fatal)
  // when the store keeps failing: nothing held is then committed.
  bool WriteAndStoreOffsets() {
    if (fatal) return false;
    absl::StatusOr<std::vector<collect::Position>> positions;
    const absl::Status written = WriteWithRetries(
        [&] {
          positions = collector->Flush();
          return positions.status();
        },
        kStoreAttempts, kStoreBackoff, log, nullptr);
    if (!written.ok()) {
      fatal = true;
      log.Error("event=fatal cause=store error=\"%v\" (offsets not committed)",
                std::string(written.message()));
      return false;
    }
    if (positions->empty()) return true;
    TopicPartitionList list(rd_kafka_topic_partition_list_new(int(positions->size())),
                            rd_kafka_topic_partition_list_destroy);
    for (const collect::Position& p : *positions) {
      rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset = p.next_offset;
    }
    if (rd_kafka_resp_err_t err = rd_kafka_offsets_store(rk, list.get()); err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      // A partition revoked meanwhile: its new owner re-reads from the last
      // commit, and writing those outcomes again is harmless.
      log.Debug("event=offsets_store_partial error=%v", rd_kafka_err2str(err));
    }
    return true;
  }

  static void OnRebalance(rd_kafka_t*, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                          void* opaque) {
    static_cast<Consumer*>(kafka::KafkaLog::Owner(opaque))->Rebalance(err, parts);
  }

  void Rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts) {
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      rd_kafka_assign(rk, parts);
      assigned = parts->cnt;
      for (int i = 0; i < parts->cnt; ++i) {
        log.Info("event=assigned topic=%v partition=%v", parts->elems[i].topic, parts->elems[i].partition);
      }
      return;
    }
    // Revoke (or error): make what was read durable and commit it before
    // another member takes the partitions over.
    if (WriteAndStoreOffsets()) rd_kafka_commit(rk, nullptr, /*async=*/0);
    for (int i = 0; i < parts->cnt; ++i) {
      log.Info("event=revoked topic=%v partition=%v", parts->elems[i].topic, parts->elems[i].partition);
    }
    rd_kafka_assign(rk, nullptr);
    assigned = 0;
  }
};

// The message as plain data; only its size when it is over the bound.
collect::Message ToMessage(const rd_kafka_message_t* m, size_t max_bytes) {
  collect::Message out;
  out.topic = rd_kafka_topic_name(m->rkt);
  out.partition = m->partition;
  out.offset = m->offset;
  size_t bytes = m->key_len + m->len;
  std::vector<std::pair<const char*, std::pair<const void*, size_t>>> headers;
  rd_kafka_headers_t* hdrs = nullptr;
  // rd_kafka_message_headers takes a non-const message; it only parses.
  if (rd_kafka_message_headers(const_cast<rd_kafka_message_t*>(m), &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      bytes += std::strlen(name) + size;
      headers.push_back({name, {value, size}});
    }
  }
  if (bytes > max_bytes) {
    out.oversized_bytes = bytes;
    return out;
  }
  if (m->key != nullptr) out.key.assign(static_cast<const char*>(m->key), m->key_len);
  if (m->payload != nullptr) out.value.assign(static_cast<const char*>(m->payload), m->len);
  for (const auto& [name, value] : headers) {
    out.headers.emplace_back(
        name, value.first != nullptr ? std::string(static_cast<const char*>(value.first), value.second) : "");
  }
  return out;
}

// True when every assigned partition has been read up to its end, the high
// watermark the broker reports now. A partition not read from in this run
// starts at its committed offset, else (auto.offset.reset) at its low
// watermark, or at its end when `starts_at_end`.
bool CaughtUp(rd_kafka_t* rk, bool starts_at_end) {
  constexpr int kTimeoutMs = 5000;
  rd_kafka_topic_partition_list_t* raw = nullptr;
  if (rd_kafka_assignment(rk, &raw) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  TopicPartitionList position(raw, rd_kafka_topic_partition_list_destroy);
  TopicPartitionList committed(rd_kafka_topic_partition_list_copy(raw), rd_kafka_topic_partition_list_destroy);
  if (rd_kafka_position(rk, position.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  if (rd_kafka_committed(rk, committed.get(), kTimeoutMs) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  for (int i = 0; i < position->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = position->elems[i];
    int64_t low = 0, high = 0;
    if (rd_kafka_query_watermark_offsets(rk, p.topic, p.partition, &low, &high, kTimeoutMs) !=
        RD_KAFKA_RESP_ERR_NO_ERROR) {
      return false;
    }
    int64_t at = p.offset >= 0 ? p.offset : committed->elems[i].offset;
    if (at < 0) at = starts_at_end ? high : low;
    if (at < high) return false;
  }
  return true;
}

int StartFailed(const std::string& what) {
  Logger("collect").Error("event=start_failed error=\"%v\"", what);
  return 2;
}

}  // namespace

int Collect(const CollectOptions& o) {
  auto log = Logger("collect");
  struct sigaction sa {};
  sa.sa_handler = OnCollectSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  if (o.store.empty()) return StartFailed("--store is required");
  if (o.reply_topic.empty() && o.dead_letter_topic.empty()) {
    return StartFailed("name a topic to collect: --reply-topic, --dead-letter-topic, or both");
  }
  if (o.idle_exit_seconds < 0) return StartFailed("--idle-exit must be 0 (off) or a number of seconds");
  if (o.max_message_bytes == 0) return StartFailed("--max-message-bytes must be positive");
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
    return StartFailed(why);
  }

  auto store = storage::RocksDbOutcomeStore::Open(o.store);
  if (!store.ok()) return StartFailed(std::string(store.status().message()));
  collect::Collector collector(**store, collect::Topics{o.reply_topic, o.dead_letter_topic});

  // At-least-once, as in the serving consumer: offsets are stored only once
  // their outcomes are durable, and librdkafka commits what was stored.
  // Eager rebalancing: the callback below assigns and revokes whole sets.
  std::map<std::string, std::string> props = consumer::AtLeastOnceConsumerProperties(o.brokers, o.group);
  for (const auto& [k, v] : o.properties) props[k] = v;
  if (props["enable.auto.offset.store"] != "false") {
    return StartFailed("kafka property enable.auto.offset.store must stay false: offsets are stored only "
                       "once their outcomes are in the store");
  }
  if (props["partition.assignment.strategy"].find("cooperative") != std::string::npos) {
    return StartFailed("kafka property partition.assignment.strategy: collect uses eager rebalancing "
                       "(range, roundrobin)");
  }
  Consumer c;
  c.collector = &collector;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (absl::Status s = storage::ApplyKafkaProperties(conf, props); !s.ok()) {
    rd_kafka_conf_destroy(conf);
    return StartFailed(std::string(s.message()));
  }
  // Declared before the handle's owner: librdkafka logs through it until
  // the handle is destroyed.
  kafka::KafkaLog kafka_log(log, "collect", props, kafka::SteadyClock());
  kafka_log.Install(conf, &c);
  rd_kafka_conf_set_rebalance_cb(conf, &Consumer::OnRebalance);
  absl::StatusOr<rd_kafka_t*> rk = kafka::NewHandle(RD_KAFKA_CONSUMER, conf, kafka_log);
  if (!rk.ok()) return StartFailed(std::string(rk.status().message()));
  c.rk = *rk;
  std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> owner(c.rk, rd_kafka_destroy);
  rd_kafka_poll_set_consumer(c.rk);
  TopicPartitionList subscription(rd_kafka_topic_partition_list_new(int(topics.size())),
                                  rd_kafka_topic_partition_list_destroy);
  for (const std::string& t : topics) {
    rd_kafka_topic_partition_list_add(subscription.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  }
  if (rd_kafka_resp_err_t e = rd_kafka_subscribe(c.rk, subscription.get()); e) {
    return StartFailed(std::string("subscribe: ") + rd_kafka_err2str(e));
  }
  log.Info("event=collecting brokers=%v group=%v reply_topic=%v dead_letter_topic=%v store=%v", o.brokers,
           o.group, o.reply_topic, o.dead_letter_topic, o.store);

  SystemClock clock;
  std::optional<pipeline::RunControl> control;
  control.emplace(clock, std::chrono::seconds(o.idle_exit_seconds));
  const std::string reset = props["auto.offset.reset"];
  const bool starts_at_end = reset == "latest" || reset == "largest" || reset == "end";
  pipeline::RunDecision decision;
  const auto started = steady_clock::now();
  auto first_held = steady_clock::now();
  auto next_progress = started + kProgressEvery;
  uint64_t progress_shown = 0;
  bool consumer_fatal = false;
  while (true) {
    decision = control->Tick({collector.stats().messages, collector.held(), 0, c.assigned},
                             g_collect_stop.load(), c.fatal || consumer_fatal);
    if (decision == pipeline::RunDecision::kIdleExit && !CaughtUp(c.rk, starts_at_end)) {
      // Quiet, but not at the end of every partition (a slow fetch): wait
      // for another idle period.
      log.Info("event=idle_not_caught_up idle_seconds=%v", o.idle_exit_seconds);
      control.emplace(clock, std::chrono::seconds(o.idle_exit_seconds));
      continue;
    }
    if (decision != pipeline::RunDecision::kContinue) break;
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c.rk, 100);
    if (m != nullptr) {
      std::unique_ptr<rd_kafka_message_t, void (*)(rd_kafka_message_t*)> hold(m, rd_kafka_message_destroy);
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (collector.held() == 0) first_held = steady_clock::now();
        collector.Add(ToMessage(m, o.max_message_bytes));
      } else if (m->err == RD_KAFKA_RESP_ERR__FATAL) {
        consumer_fatal = true;
        log.Error("event=fatal cause=consumer error=\"%v\"", kafka_log.Redact(rd_kafka_message_errstr(m)));
      } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        log.Warn("event=consume_error error=\"%v\"", kafka_log.Redact(rd_kafka_message_errstr(m)));
      }
    }
    // Write when enough is held, when a held message waited long enough, or
    // when the partitions have nothing more for now.
    if (collector.held() >= kMaxHeld || collector.held_bytes() >= kMaxHeldBytes ||
        (collector.held() > 0 && (m == nullptr || steady_clock::now() - first_held >= kMaxHoldTime))) {
      c.WriteAndStoreOffsets();
    }
    if (o.progress && steady_clock::now() >= next_progress) {
      next_progress = steady_clock::now() + kProgressEvery;
      const collect::CollectStats& s = collector.stats();
      if (s.messages != progress_shown) {
        progress_shown = s.messages;
        const double secs = std::chrono::duration<double>(steady_clock::now() - started).count();
        log.Info("event=progress messages=%v results=%v failures=%v notices=%v unreadable=%v rate=%.0f/s",
                 s.messages, s.results, s.failures, s.notices, s.unreadable, secs > 0 ? s.messages / secs : 0.0);
      }
    }
  }
  if (decision == pipeline::RunDecision::kIdleExit) {
    log.Info("event=idle_exit idle_seconds=%v", o.idle_exit_seconds);
  }

  // Make durable what was read, commit it, leave the group.
  const bool written = c.WriteAndStoreOffsets();
  rd_kafka_resp_err_t commit = rd_kafka_commit(c.rk, nullptr, /*async=*/0);
  if (commit != RD_KAFKA_RESP_ERR_NO_ERROR && commit != RD_KAFKA_RESP_ERR__NO_OFFSET) {
    log.Warn("event=commit_failed error=\"%v\"", rd_kafka_err2str(commit));
  }
  rd_kafka_consumer_close(c.rk);

  const collect::CollectStats& s = collector.stats();
  auto results = (*store)->CountResults();
  auto failures = (*store)->CountFailures();
  auto superseded = (*store)->CountSuperseded();
  log.Info("event=summary run_seconds=%.1f messages=%v results=%v failures=%v notices=%v unreadable=%v "
           "writes=%v store_results=%v store_failures=%v store_superseded=%v",
           std::chrono::duration<double>(steady_clock::now() - started).count(), s.messages, s.results,
           s.failures, s.notices, s.unreadable, s.writes, results.ok() ? int64_t(*results) : -1,
           failures.ok() ? int64_t(*failures) : -1, superseded.ok() ? int64_t(*superseded) : -1);
  return written && !consumer_fatal ? 0 : 1;
}

}  // namespace qinfer::app
