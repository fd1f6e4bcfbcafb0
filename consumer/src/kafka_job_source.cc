#include "qinfer/consumer/kafka_job_source.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <thread>
#include <variant>

#include "group_member.h"
#include "qinfer/consumer/backpressure.h"
#include "qinfer/consumer/message_handler.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/thread_name.h"
#include "qinfer/kafka/kafka_log.h"

namespace qinfer::consumer {
namespace {

constexpr std::chrono::milliseconds kStoreInterval{100};
// How long the consumer waits for room in a full job queue before it
// pauses its partitions (Backpressure).
constexpr std::chrono::milliseconds kFullQueueWait{250};
// The most one watermark query (one ListOffsets request per leader) waits;
// the refresher checks for a stop between queries, so this also bounds how
// long Close() and the destructor wait for it.
constexpr std::chrono::milliseconds kWatermarkTimeout{1000};

using TopicPartition = std::pair<std::string, int32_t>;

using internal::Event;
using internal::Queue;
using internal::ServeUntil;
using internal::TopicPartitionList;

}  // namespace

struct KafkaJobSource::Impl {
  SourceConfig config;
  const Clock& clock = *config.clock;
  JobQueue& queue;
  OffsetTracker& tracker;
  Log log = Logger("consumer");
  // librdkafka's log and error callbacks: must outlive rk.
  std::unique_ptr<kafka::KafkaLog> kafka_log;
  rd_kafka_t* rk = nullptr;
  SourceStats stats;
  DecodeStats decode_stats;
  MessageHandler handler;
  std::map<std::pair<std::string, int32_t>, uint64_t> epochs;  // assigned
  Backpressure backpressure{queue, clock, stats, kFullQueueWait};
  bool closed = false;
  // Close() has begun: it commits once itself, so a revoke it causes does
  // not commit again (a synchronous commit has no bound of its own).
  bool closing = false;
  SteadyTime last_store{};
  mutable Mutex progress_mu;
  // From the latest statistics, the assigned partitions only.
  std::vector<std::pair<std::string, PartitionProgress>> progress ABSL_GUARDED_BY(progress_mu);
  // What the refresher works on, and the (low, high) watermarks it last got.
  std::set<TopicPartition> assigned ABSL_GUARDED_BY(progress_mu);
  std::map<TopicPartition, std::pair<int64_t, int64_t>> watermarks ABSL_GUARDED_BY(progress_mu);

  // The watermark refresher. librdkafka's statistics take a partition's
  // high watermark from its fetch responses, and a paused partition (or one
  // whose prefetch queue is full) gets none: its lag would freeze at the
  // pause, under backpressure, exactly when it matters. So every statistics
  // interval this thread asks the partition leaders for the watermarks of
  // every assigned partition (QueryOffsets; Debian's librdkafka 2.0.2 has no
  // asynchronous ListOffsets). Every assigned partition, not only paused
  // ones: a partition whose prefetch queue is full gets no fetch responses
  // either. It is a thread of its own rather than calls between polls: a
  // query blocks for a round trip, and for kWatermarkTimeout when a leader
  // is away, which on the consumer thread would hold back rebalance
  // callbacks, offset stores and a stop request by as much. librdkafka's
  // calls are thread-safe, and a query waits on a reply queue of its own,
  // not on the consumer's.
  std::chrono::milliseconds refresh_interval{0};  // 0: no statistics, no refresher
  std::thread refresher;
  Mutex refresh_mu;
  CondVar refresh_cv;
  bool refresh_stop ABSL_GUARDED_BY(refresh_mu) = false;
  // The tokenizer pool (null: decoded here, on the consumer thread). Last,
  // so that its workers end first.
  std::unique_ptr<DecodePool> pool;

  Impl(SourceConfig c, JobQueue& q, OutcomeSink& r, OffsetTracker& t)
      : config(std::move(c)), queue(q), tracker(t), handler(config.limits, q, r, t, stats) {
    config.limits.image_stats = &decode_stats;
    for (DecoderLimits& limits : config.decode_workers) limits.image_stats = &decode_stats;
    if (config.decode_workers.empty()) return;
    std::vector<std::unique_ptr<MessageHandler>> handlers;
    for (const DecoderLimits& limits : config.decode_workers) {
      handlers.push_back(std::make_unique<MessageHandler>(limits, q, r, t, stats));
    }
    pool = std::make_unique<DecodePool>(std::move(handlers), config.decode_pool, decode_stats);
  }

  // Waits for the messages the pool is decoding (nothing without a pool).
  void DrainDecodes() {
    if (pool != nullptr) pool->Drain();
  }

  ~Impl() {
    pool.reset();  // its workers record and queue through what outlives them
    StopRefresher();
    if (rk == nullptr) return;
    if (closing && !closed) {
      // Close() gave up on the group coordinator. Destroying the handle
      // would still wait for it (librdkafka holds a terminating group until
      // its queued commits time out, session.timeout.ms), so the handle is
      // left to the process's exit, which follows. Its callbacks run only
      // from a poll, and nothing polls it any more. The broker drops the
      // member after its session timeout.
      log.Warn("event=consumer_left_open reason=\"no group coordinator at shutdown\"");
      // librdkafka's threads may still log through it until the exit.
      (void)kafka_log.release();
      return;
    }
    if (!closed) rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }

  // Served by rd_kafka_consumer_poll, on the consumer thread.
  static int OnStatistics(rd_kafka_t*, char* json, size_t len, void* opaque) {
    static_cast<Impl*>(kafka::KafkaLog::Owner(opaque))->Statistics(std::string_view(json, len));
    return 0;  // librdkafka frees json
  }

  void Statistics(std::string_view json) {
    std::vector<std::pair<std::string, PartitionProgress>> mine;
    for (const std::string& topic : config.topics) {
      auto parsed = ParsePartitionProgress(json, topic);
      if (!parsed.ok()) {
        log.Warn("event=statistics_unreadable error=\"%v\"", std::string(parsed.status().message()));
        return;
      }
      for (const PartitionProgress& p : *parsed) {
        if (epochs.contains({topic, p.partition})) mine.emplace_back(topic, p);
      }
    }
    MutexLock lock(&progress_mu);
    progress = std::move(mine);
  }

  void StartRefresher() {
    if (refresh_interval.count() <= 0) return;
    refresher = std::thread([this] {
      StageThread stage("lag");
      RefreshWatermarks();
    });
  }

  void StopRefresher() {
    if (!refresher.joinable()) return;
    {
      MutexLock lock(&refresh_mu);
      refresh_stop = true;
    }
    refresh_cv.SignalAll();
    refresher.join();
  }

  // The refresher's loop: one pass over the assigned partitions every
  // refresh_interval, until StopRefresher().
  void RefreshWatermarks() {
    while (!WaitForStop(refresh_interval)) {
      std::set<TopicPartition> todo;
      {
        MutexLock lock(&progress_mu);
        todo = assigned;
      }
      if (!todo.empty()) {
        const std::map<TopicPartition, int64_t> high = QueryOffsets(todo, RD_KAFKA_OFFSET_END);
        const std::map<TopicPartition, int64_t> low = high.empty() || Stopping()
                                                          ? std::map<TopicPartition, int64_t>{}
                                                          : QueryOffsets(todo, RD_KAFKA_OFFSET_BEGINNING);
        MutexLock lock(&progress_mu);
        for (const auto& [tp, h] : high) {
          if (!assigned.contains(tp)) continue;  // revoked meanwhile
          const auto l = low.find(tp);
          watermarks[tp] = {l == low.end() ? -1 : l->second, h};
        }
      }
    }
  }

  // True once StopRefresher() was called; waits up to `timeout` for it.
  bool WaitForStop(std::chrono::milliseconds timeout) {
    const SteadyTime deadline = clock.Now() + timeout;
    MutexLock lock(&refresh_mu);
    while (!refresh_stop) {
      const auto left = deadline - clock.Now();
      if (left <= left.zero() || !refresh_cv.WaitFor(&refresh_mu, left)) return refresh_stop;
    }
    return true;
  }

  bool Stopping() {
    MutexLock lock(&refresh_mu);
    return refresh_stop;
  }

  // The partitions' high (RD_KAFKA_OFFSET_END) or low (_BEGINNING)
  // watermarks, one ListOffsets request per leader; empty when the leaders
  // did not answer within kWatermarkTimeout (the statistics' figures then
  // stand). rd_kafka_offsets_for_times, not rd_kafka_query_watermark_offsets:
  // both send the same ListOffsets request (the special timestamps -1 and -2
  // mean latest and earliest), but in librdkafka 2.0.2 only
  // offsets_for_times keeps to its timeout; query_watermark_offsets waits
  // for as long as the leader is down (fixed in 2.3.0, librdkafka #4460),
  // which would hold Close() for good.
  std::map<TopicPartition, int64_t> QueryOffsets(const std::set<TopicPartition>& partitions, int64_t which) {
    TopicPartitionList list(rd_kafka_topic_partition_list_new(int(partitions.size())));
    for (const auto& [topic, partition] : partitions) {
      rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = which;
    }
    std::map<TopicPartition, int64_t> out;
    const rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk, list.get(), int(kWatermarkTimeout.count()));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      log.Debug("event=watermarks_unknown partitions=%v error=\"%v\"", partitions.size(), rd_kafka_err2str(err));
      return out;
    }
    for (int i = 0; i < list->cnt; ++i) {
      const rd_kafka_topic_partition_t& tp = list->elems[i];
      if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR && tp.offset >= 0) out[{tp.topic, tp.partition}] = tp.offset;
    }
    return out;
  }

  static void OnRebalance(rd_kafka_t*, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, void* opaque) {
    static_cast<Impl*>(kafka::KafkaLog::Owner(opaque))->Rebalance(err, parts);
  }

  void Rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts) {
    internal::RebalanceHooks hooks;
    hooks.assigning = [this](const std::string& topic, int32_t partition) {
      epochs[{topic, partition}] = tracker.Assign(topic, partition);
      MutexLock lock(&progress_mu);
      assigned.insert({topic, partition});
    };
    hooks.assigned = [this](rd_kafka_topic_partition_list_t* set) { Assigned(set); };
    // Commit what is durable before another member takes over, so it
    // re-processes as little as possible; Close() commits by itself.
    hooks.before_revoke = [this] {
      DrainDecodes();  // what a worker decodes now is recorded before this commit
      StoreOffsets(/*force=*/true);
      return !closing;
    };
    hooks.revoked = [this](const std::string& topic, int32_t partition) {
      tracker.Revoke(topic, partition);
      epochs.erase({topic, partition});
      MutexLock lock(&progress_mu);
      const TopicPartition gone{topic, partition};
      std::erase_if(progress, [&](const auto& p) { return TopicPartition{p.first, p.second.partition} == gone; });
      assigned.erase(gone);
      watermarks.erase(gone);
    };
    hooks.after_revoke = [this] { stats.assigned_partitions = int(epochs.size()); };
    internal::Rebalance(rk, err, parts, log, hooks);
  }

  void Assigned(rd_kafka_topic_partition_list_t* parts) {
    stats.assigned_partitions = int(epochs.size());
    // librdkafka keeps a partition's pause flag across a revoke and a new
    // assignment: a partition paused before a rebalance would otherwise
    // stay paused for good once it comes back. Set it to ours.
    if (backpressure.paused()) {
      rd_kafka_pause_partitions(rk, parts);
    } else {
      rd_kafka_resume_partitions(rk, parts);
    }
  }

  void StoreOffsets(bool force) {
    const SteadyTime now = clock.Now();
    if (!force && now - last_store < kStoreInterval) return;
    last_store = now;
    const std::vector<CommitPoint> points = force ? tracker.Committable() : tracker.TakeCommittable();
    internal::StoreOffsets(rk, points, log);
    if (points.empty()) return;
    stats.offset_stores++;
    stats.offset_store_ns += uint64_t(std::chrono::nanoseconds(clock.Now() - now).count());
  }

  void ApplyBackpressure() {
    const Backpressure::Change change = backpressure.Next();
    if (change == Backpressure::Change::kNone) return;
    rd_kafka_topic_partition_list_t* assignment = nullptr;
    if (rd_kafka_assignment(rk, &assignment) != RD_KAFKA_RESP_ERR_NO_ERROR) return;
    TopicPartitionList owned(assignment);
    if (change == Backpressure::Change::kPause) {
      rd_kafka_pause_partitions(rk, owned.get());
      log.Debug("event=paused partitions=%v", owned->cnt);
    } else {
      rd_kafka_resume_partitions(rk, owned.get());
      log.Debug("event=resumed partitions=%v", owned->cnt);
    }
    backpressure.Applied(change);
  }

  void Handle(const rd_kafka_message_t* msg) {
    stats.messages++;
    RawMessage raw;
    raw.origin.topic = rd_kafka_topic_name(msg->rkt);
    raw.origin.partition = msg->partition;
    raw.origin.offset = msg->offset;
    auto epoch = epochs.find({raw.origin.topic, raw.origin.partition});
    if (epoch == epochs.end()) return;  // not ours any more: the owner reads it
    raw.origin.epoch = epoch->second;
    if (msg->key != nullptr) {
      raw.key = std::string_view(static_cast<const char*>(msg->key), msg->key_len);
    }
    if (msg->payload != nullptr) {
      raw.value = std::string_view(static_cast<const char*>(msg->payload), msg->len);
    }
    if (pool == nullptr) {
      handler.Handle(raw);
    } else if (handler.Track(raw)) {
      // The pool owns its copy: librdkafka's message is destroyed next.
      pool->Submit({std::string(raw.key), std::string(raw.value), raw.origin});
    }
  }
};

std::map<std::string, std::string> AtLeastOnceConsumerProperties(const std::string& brokers, const std::string& group) {
  return {
      {"bootstrap.servers", brokers},
      {"group.id", group},
      {"enable.auto.offset.store", "false"},
      {"enable.auto.commit", "true"},
      {"auto.commit.interval.ms", "1000"},
      {"auto.offset.reset", "earliest"},
      {"partition.assignment.strategy", "range,roundrobin"},
      // librdkafka's prefetch is memory outside the scheduler's byte bound:
      // 16 MiB instead of its 64 MiB default.
      {"queued.max.messages.kbytes", "16384"},
  };
}

KafkaJobSource::KafkaJobSource(std::unique_ptr<Impl> impl) : impl_(std::move(impl)), stats_(impl_->stats) {}

KafkaJobSource::~KafkaJobSource() = default;

absl::StatusOr<std::unique_ptr<KafkaJobSource>> KafkaJobSource::Create(SourceConfig config, JobQueue& queue,
                                                                       OutcomeSink& recorder,
                                                                       OffsetTracker& tracker) {
  if (config.brokers.empty()) {
    return absl::InvalidArgumentError("kafka.brokers is empty: set it to host:port");
  }
  if (config.topics.empty()) {
    return absl::InvalidArgumentError("kafka.jobs_topic is empty: name the jobs topic");
  }
  if ((config.limits.takes_tokens && config.limits.vocab_size <= 0) || config.limits.max_tokens == 0) {
    return absl::InvalidArgumentError("vocab_size and max_tokens must be positive");
  }
  auto impl = std::make_unique<Impl>(std::move(config), queue, recorder, tracker);
  const SourceConfig& c = impl->config;

  std::map<std::string, std::string> props = AtLeastOnceConsumerProperties(c.brokers, c.group_id);
  // Lag and committed offsets per partition, for /metrics and /status.
  props["statistics.interval.ms"] = "5000";
  for (const auto& [k, v] : c.properties) props[k] = v;
  {
    // NewHandle below refuses a value that is not a number.
    const std::string& interval = props["statistics.interval.ms"];
    int ms = 0;
    std::from_chars(interval.data(), interval.data() + interval.size(), ms);
    impl->refresh_interval = std::chrono::milliseconds(std::max(ms, 0));
  }
  if (props["enable.auto.offset.store"] != "false") {
    return absl::InvalidArgumentError(
        "kafka property enable.auto.offset.store must stay false: offsets are "
        "stored only after results are durable");
  }
  impl->kafka_log = std::make_unique<kafka::KafkaLog>(impl->log, "consumer", props, RealClock());
  absl::StatusOr<rd_kafka_t*> rk =
      kafka::NewHandle(RD_KAFKA_CONSUMER, *impl->kafka_log, impl.get(), [](rd_kafka_conf_t* conf) {
        rd_kafka_conf_set_rebalance_cb(conf, &Impl::OnRebalance);
        rd_kafka_conf_set_stats_cb(conf, &Impl::OnStatistics);
      });
  if (!rk.ok()) return rk.status();
  impl->rk = *rk;
  rd_kafka_poll_set_consumer(impl->rk);

  TopicPartitionList topics(rd_kafka_topic_partition_list_new(int(c.topics.size())));
  for (const std::string& t : c.topics) {
    rd_kafka_topic_partition_list_add(topics.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  }
  if (rd_kafka_resp_err_t e = rd_kafka_subscribe(impl->rk, topics.get()); e) {
    return absl::InternalError(std::string("subscribe: ") + rd_kafka_err2str(e));
  }
  impl->log.Info("event=subscribed brokers=%v group=%v topics=%v", c.brokers, c.group_id, c.topics.size());
  impl->StartRefresher();
  return std::unique_ptr<KafkaJobSource>(new KafkaJobSource(std::move(impl)));
}

absl::Status KafkaJobSource::Run(const std::atomic<bool>& stop) {
  Impl& s = *impl_;
  while (!stop.load()) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(s.rk, int(s.config.poll_timeout.count()));
    if (msg != nullptr) {
      if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        s.Handle(msg);
      } else if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        const bool fatal = msg->err == RD_KAFKA_RESP_ERR__FATAL;
        s.log.Warn("event=consume_error error=\"%v\"", s.kafka_log->Redact(rd_kafka_message_errstr(msg)));
        if (fatal) {
          rd_kafka_message_destroy(msg);
          return absl::InternalError("fatal Kafka consumer error");
        }
      }
      rd_kafka_message_destroy(msg);
    }
    s.ApplyBackpressure();
    s.StoreOffsets(/*force=*/false);
  }
  return absl::OkStatus();
}

const DecodeStats& KafkaJobSource::decode_stats() const { return impl_->decode_stats; }

std::vector<PartitionProgress> KafkaJobSource::partitions() const {
  MutexLock lock(&impl_->progress_mu);
  std::vector<PartitionProgress> out;
  out.reserve(impl_->progress.size());
  for (const auto& [topic, p] : impl_->progress) {
    const auto queried = impl_->watermarks.find({topic, p.partition});
    out.push_back(
        queried == impl_->watermarks.end() ? p : WithWatermarks(p, queried->second.first, queried->second.second));
  }
  return out;
}

absl::Status KafkaJobSource::Close(std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  if (s.closed) return absl::OkStatus();
  const SteadyTime deadline = s.clock.Now() + timeout;
  s.closing = true;
  s.StopRefresher();
  s.DrainDecodes();
  s.StoreOffsets(/*force=*/true);
  // The final commit and the group leave both wait on the group coordinator,
  // which may be gone; each is served from a queue of ours so that neither
  // waits past the deadline.
  Queue q(rd_kafka_queue_new(s.rk));
  absl::Status status = absl::OkStatus();
  rd_kafka_resp_err_t err = rd_kafka_commit_queue(s.rk, nullptr, q.get(), nullptr, nullptr);
  bool answered = err != RD_KAFKA_RESP_ERR_NO_ERROR;  // refused at once
  ServeUntil(
      q.get(), s.clock, deadline, [&] { return answered; },
      [&](rd_kafka_event_t* ev) {
        if (rd_kafka_event_type(ev) != RD_KAFKA_EVENT_OFFSET_COMMIT) return;
        err = rd_kafka_event_error(ev);
        answered = true;
      });
  // NO_OFFSET: nothing new to commit, which is fine.
  if (!answered) {
    status = absl::DeadlineExceededError("final commit: no answer from the group coordinator in time");
  } else if (err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR__NO_OFFSET) {
    status = absl::UnavailableError(std::string("final commit: ") + rd_kafka_err2str(err));
  }
  if (rd_kafka_error_t* e = rd_kafka_consumer_close_queue(s.rk, q.get()); e != nullptr) {
    s.log.Warn("event=close_failed error=\"%v\"", rd_kafka_error_string(e));
    rd_kafka_error_destroy(e);
    return status;
  }
  // Leaving the group revokes the assignment; the revoke arrives here as an
  // event and is handled as any other.
  auto closed = [&] { return rd_kafka_consumer_closed(s.rk) != 0; };
  ServeUntil(q.get(), s.clock, deadline, closed, [&](rd_kafka_event_t* ev) {
    if (rd_kafka_event_type(ev) != RD_KAFKA_EVENT_REBALANCE) return;
    s.Rebalance(rd_kafka_event_error(ev), rd_kafka_event_topic_partition_list(ev));
  });
  s.closed = closed();
  if (!s.closed) {
    s.log.Warn("event=close_timeout timeout_ms=%v pending_offsets=%v", timeout.count(), s.tracker.pending());
    if (status.ok()) status = absl::DeadlineExceededError("leaving the group: no answer in time");
    return status;
  }
  s.log.Info("event=closed pending_offsets=%v", s.tracker.pending());
  return status;
}

}  // namespace qinfer::consumer
