#include "qinfer/consumer/kafka_topic_reader.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstring>

#include "group_member.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/core/logging.h"
#include "qinfer/kafka/kafka_log.h"

namespace qinfer::consumer {
namespace {

// The most a metadata or watermark request waits for the broker.
constexpr int kRangesTimeoutMs = 10000;
constexpr int kCaughtUpTimeoutMs = 5000;
constexpr int kReadPollMs = 1000;

using TopicPartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, void (*)(rd_kafka_topic_partition_list_t*)>;

TopicPartitionList NewList(int size) {
  return TopicPartitionList(rd_kafka_topic_partition_list_new(size), rd_kafka_topic_partition_list_destroy);
}

// The message as plain data; only its size when it is over `max_bytes`.
Record ToRecord(const rd_kafka_message_t* m, size_t max_bytes) {
  Record out;
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

}  // namespace

std::optional<PartitionRange> RangeWithin(const std::string& topic, int32_t partition, int64_t low, int64_t high,
                                          int64_t from_offset, int64_t to_offset) {
  const int64_t from = std::max(low, from_offset);
  const int64_t end = to_offset >= 0 ? std::min(high, to_offset + 1) : high;
  if (from >= end) return std::nullopt;
  return PartitionRange{topic, partition, from, end};
}

bool ReadToEnd(int64_t position, int64_t committed, int64_t low, int64_t high, bool starts_at_end) {
  int64_t at = position >= 0 ? position : committed;
  if (at < 0) at = starts_at_end ? high : low;
  return at >= high;
}

bool StartsAtEnd(const std::string& reset) { return reset == "latest" || reset == "largest" || reset == "end"; }

struct KafkaTopicReader::Impl {
  ReaderConfig config;
  Log log;
  BeforeRevoke before_revoke;  // empty for ForRanges
  bool starts_at_end = false;
  int assigned = 0;
  bool closed = false;
  // librdkafka's log and error callbacks: must outlive rk.
  std::unique_ptr<kafka::KafkaLog> kafka_log;
  rd_kafka_t* rk = nullptr;

  explicit Impl(const ReaderConfig& c) : config(c), log(Logger(c.logger)) {}

  ~Impl() {
    if (rk == nullptr) return;
    if (!closed) rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }

  absl::Status Open(const std::map<std::string, std::string>& props) {
    kafka_log = std::make_unique<kafka::KafkaLog>(log, config.client, props, RealClock());
    const bool group = static_cast<bool>(before_revoke);
    absl::StatusOr<rd_kafka_t*> handle =
        kafka::NewHandle(RD_KAFKA_CONSUMER, *kafka_log, this, [group](rd_kafka_conf_t* conf) {
          if (group) rd_kafka_conf_set_rebalance_cb(conf, &Impl::OnRebalance);
        });
    if (!handle.ok()) return handle.status();
    rk = *handle;
    return absl::OkStatus();
  }

  static void OnRebalance(rd_kafka_t*, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, void* opaque) {
    static_cast<Impl*>(kafka::KafkaLog::Owner(opaque))->Rebalance(err, parts);
  }

  void Rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts) {
    internal::RebalanceHooks hooks;
    hooks.assigned = [this](rd_kafka_topic_partition_list_t* set) { assigned = set->cnt; };
    // Make what was read durable and commit it before another member takes
    // the partitions over.
    hooks.before_revoke = [this] {
      std::optional<std::vector<CommitPoint>> points = before_revoke();
      if (points) internal::StoreOffsets(rk, *points, log);
      return points.has_value();
    };
    hooks.after_revoke = [this] { assigned = 0; };
    internal::Rebalance(rk, err, parts, log, hooks);
  }

  // Polled's view of a message, which the caller destroys.
  Polled ToPolled(const rd_kafka_message_t* m) const {
    Polled out;
    if (m == nullptr) return out;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      out.kind = Polled::Kind::kRecord;
      out.record = ToRecord(m, config.max_message_bytes);
    } else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      out.kind = Polled::Kind::kEndOfPartition;
      out.record.topic = rd_kafka_topic_name(m->rkt);
      out.record.partition = m->partition;
      out.record.offset = m->offset;
    } else {
      out.kind = m->err == RD_KAFKA_RESP_ERR__FATAL ? Polled::Kind::kFatal : Polled::Kind::kError;
      out.error = kafka_log->Redact(rd_kafka_message_errstr(m));
    }
    return out;
  }

  // The partitions of `topic`, empty when it does not exist.
  absl::StatusOr<std::vector<int32_t>> Partitions(const std::string& topic) {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    const rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t, &md, kRangesTimeoutMs);
    rd_kafka_topic_destroy(t);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return absl::UnavailableError("topic " + topic + ": " + rd_kafka_err2str(e));
    std::vector<int32_t> partitions;
    if (md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      for (int i = 0; i < md->topics[0].partition_cnt; ++i) partitions.push_back(md->topics[0].partitions[i].id);
    }
    rd_kafka_metadata_destroy(md);
    return partitions;
  }
};

absl::StatusOr<std::unique_ptr<KafkaTopicReader>> KafkaTopicReader::Subscribe(const ReaderConfig& config,
                                                                              const std::vector<std::string>& topics,
                                                                              BeforeRevoke before_revoke) {
  std::map<std::string, std::string> props = AtLeastOnceConsumerProperties(config.brokers, config.group);
  for (const auto& [k, v] : config.properties) props[k] = v;
  if (props["enable.auto.offset.store"] != "false") {
    return absl::InvalidArgumentError(
        "kafka property enable.auto.offset.store must stay false: offsets are stored "
        "only once what was read is durable");
  }
  // The rebalance callback assigns and revokes whole sets.
  if (props["partition.assignment.strategy"].find("cooperative") != std::string::npos) {
    return absl::InvalidArgumentError("kafka property partition.assignment.strategy: " + config.client +
                                      " uses eager rebalancing (range, roundrobin)");
  }
  auto impl = std::make_unique<Impl>(config);
  impl->before_revoke = before_revoke ? std::move(before_revoke) : [] {
    return std::optional<std::vector<CommitPoint>>(std::vector<CommitPoint>{});
  };
  impl->starts_at_end = StartsAtEnd(props["auto.offset.reset"]);
  if (absl::Status s = impl->Open(props); !s.ok()) return s;
  rd_kafka_poll_set_consumer(impl->rk);
  TopicPartitionList subscription = NewList(int(topics.size()));
  for (const std::string& t : topics) {
    rd_kafka_topic_partition_list_add(subscription.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  }
  if (rd_kafka_resp_err_t e = rd_kafka_subscribe(impl->rk, subscription.get()); e) {
    return absl::InternalError(std::string("subscribe: ") + rd_kafka_err2str(e));
  }
  return std::unique_ptr<KafkaTopicReader>(new KafkaTopicReader(std::move(impl)));
}

absl::StatusOr<std::unique_ptr<KafkaTopicReader>> KafkaTopicReader::ForRanges(const ReaderConfig& config) {
  std::map<std::string, std::string> props = {{"bootstrap.servers", config.brokers},
                                              {"group.id", config.group},
                                              {"enable.auto.commit", "false"},
                                              {"enable.partition.eof", "true"}};
  for (const auto& [k, v] : config.properties) props[k] = v;
  auto impl = std::make_unique<Impl>(config);
  if (absl::Status s = impl->Open(props); !s.ok()) return s;
  return std::unique_ptr<KafkaTopicReader>(new KafkaTopicReader(std::move(impl)));
}

KafkaTopicReader::KafkaTopicReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaTopicReader::~KafkaTopicReader() = default;

Polled KafkaTopicReader::Poll(std::chrono::milliseconds timeout) {
  rd_kafka_message_t* m = rd_kafka_consumer_poll(impl_->rk, int(timeout.count()));
  Polled out = impl_->ToPolled(m);
  if (m != nullptr) rd_kafka_message_destroy(m);
  return out;
}

void KafkaTopicReader::StoreOffsets(const std::vector<CommitPoint>& points) {
  internal::StoreOffsets(impl_->rk, points, impl_->log);
}

int KafkaTopicReader::assigned() const { return impl_->assigned; }

bool KafkaTopicReader::CaughtUp() {
  rd_kafka_t* rk = impl_->rk;
  rd_kafka_topic_partition_list_t* raw = nullptr;
  if (rd_kafka_assignment(rk, &raw) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  TopicPartitionList position(raw, rd_kafka_topic_partition_list_destroy);
  TopicPartitionList committed(rd_kafka_topic_partition_list_copy(raw), rd_kafka_topic_partition_list_destroy);
  if (rd_kafka_position(rk, position.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  if (rd_kafka_committed(rk, committed.get(), kCaughtUpTimeoutMs) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  for (int i = 0; i < position->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = position->elems[i];
    int64_t low = 0, high = 0;
    if (rd_kafka_query_watermark_offsets(rk, p.topic, p.partition, &low, &high, kCaughtUpTimeoutMs) !=
        RD_KAFKA_RESP_ERR_NO_ERROR) {
      return false;
    }
    if (!ReadToEnd(p.offset, committed->elems[i].offset, low, high, impl_->starts_at_end)) return false;
  }
  return true;
}

void KafkaTopicReader::Close() {
  Impl& s = *impl_;
  if (s.closed) return;
  const rd_kafka_resp_err_t commit = rd_kafka_commit(s.rk, nullptr, /*async=*/0);
  if (commit != RD_KAFKA_RESP_ERR_NO_ERROR && commit != RD_KAFKA_RESP_ERR__NO_OFFSET) {
    s.log.Warn("event=commit_failed error=\"%v\"", rd_kafka_err2str(commit));
  }
  rd_kafka_consumer_close(s.rk);
  s.closed = true;
}

absl::StatusOr<std::vector<PartitionRange>> KafkaTopicReader::Ranges(const std::string& topic, int32_t partition,
                                                                     int64_t from_offset, int64_t to_offset) {
  absl::StatusOr<std::vector<int32_t>> partitions = impl_->Partitions(topic);
  if (!partitions.ok()) return partitions.status();
  if (partitions->empty()) return absl::NotFoundError("topic " + topic + " does not exist");
  if (partition >= 0) {
    if (std::find(partitions->begin(), partitions->end(), partition) == partitions->end()) {
      return absl::NotFoundError("topic " + topic + " has no partition " + std::to_string(partition));
    }
    *partitions = {partition};
  }
  std::vector<PartitionRange> out;
  for (int32_t p : *partitions) {
    int64_t low = 0, high = 0;
    const rd_kafka_resp_err_t e =
        rd_kafka_query_watermark_offsets(impl_->rk, topic.c_str(), p, &low, &high, kRangesTimeoutMs);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return absl::UnavailableError("topic " + topic + ": " + rd_kafka_err2str(e));
    if (auto range = RangeWithin(topic, p, low, high, from_offset, to_offset)) out.push_back(*std::move(range));
  }
  return out;
}

absl::Status KafkaTopicReader::Read(const std::vector<PartitionRange>& ranges,
                                    const std::function<absl::Status(const Record&)>& fn) {
  if (ranges.empty()) return absl::OkStatus();
  std::map<std::pair<std::string, int32_t>, int64_t> stop;  // -> end of the range
  TopicPartitionList list = NewList(int(ranges.size()));
  for (const PartitionRange& r : ranges) {
    stop[{r.topic, r.partition}] = r.end;
    rd_kafka_topic_partition_list_add(list.get(), r.topic.c_str(), r.partition)->offset = r.from;
  }
  if (rd_kafka_resp_err_t e = rd_kafka_assign(impl_->rk, list.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::UnavailableError(rd_kafka_err2str(e));
  }
  while (!stop.empty()) {
    Polled polled = Poll(std::chrono::milliseconds(kReadPollMs));
    const Record& r = polled.record;
    switch (polled.kind) {
      case Polled::Kind::kNothing:
        continue;
      case Polled::Kind::kError:
      case Polled::Kind::kFatal:
        return absl::UnavailableError(polled.error);
      case Polled::Kind::kEndOfPartition:
        stop.erase({r.topic, r.partition});
        continue;
      case Polled::Kind::kRecord:
        break;
    }
    auto it = stop.find({r.topic, r.partition});
    if (it == stop.end() || r.offset >= it->second) continue;
    if (r.offset + 1 >= it->second) stop.erase(it);
    if (absl::Status s = fn(r); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace qinfer::consumer
