#include "qinfer/storage/kafka_outcome_publisher.h"

#include <atomic>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "qinfer/core/dead_letter.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/thread_name.h"
#include "qinfer/kafka/kafka_log.h"

namespace qinfer::storage {
namespace {

// How long one rd_kafka_poll may block: bounds how late the publisher thread
// notices a stop request.
constexpr int kPollMs = 50;
// After a purge, how long the destructor waits for librdkafka to report the
// purged messages.
constexpr std::chrono::milliseconds kPurgeWait{2000};
constexpr std::chrono::milliseconds kQueueFullBackoff{5};
// Default of topic.metadata.propagation.max.ms (see Create).
constexpr int kReplyTopicPropagationMs = 1000;

// One published outcome between Publish and its `done`: owned by the
// message's opaque while librdkafka holds the message.
struct Pending {
  std::string topic;
  std::string id;
  OutcomePublisher::Done done;
};

absl::Status KafkaError(rd_kafka_resp_err_t err, std::string_view what, const Pending& p) {
  std::string msg = "kafka ";
  msg.append(what).append(" topic=").append(p.topic).append(" job=").append(p.id).append(": ").append(
      rd_kafka_err2str(err));
  switch (err) {
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
      return absl::DeadlineExceededError(msg);
    case RD_KAFKA_RESP_ERR__PURGE_QUEUE:
    case RD_KAFKA_RESP_ERR__PURGE_INFLIGHT:
      return absl::CancelledError(msg);
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
      return absl::NotFoundError(msg);
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
      return absl::InvalidArgumentError(msg);
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
      return absl::PermissionDeniedError(msg);
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
      return absl::ResourceExhaustedError(msg);
    case RD_KAFKA_RESP_ERR__FATAL:
      return absl::InternalError(msg);
    default:
      return absl::UnavailableError(msg);
  }
}

}  // namespace

struct KafkaOutcomePublisher::Impl {
  PublisherConfig config;
  Log log = Logger("storage");
  // librdkafka's log and error callbacks; outlives rk (Shutdown destroys it).
  std::unique_ptr<kafka::KafkaLog> kafka_log;
  rd_kafka_t* rk = nullptr;

  std::thread poller;
  std::atomic<std::thread::id> poller_id{};
  std::atomic<bool> stop{false};
  std::atomic<bool> closing{false};  // Publish now cancels instead

  mutable Mutex mu;
  CondVar idle;                                // signalled when `outstanding` drops
  size_t outstanding ABSL_GUARDED_BY(mu) = 0;  // done not yet returned
  // Messages librdkafka holds, so the destructor can finish any it never
  // reported (it destroys them silently).
  std::unordered_set<Pending*> held ABSL_GUARDED_BY(mu);
  // Completions decided outside a delivery report, run by the publisher
  // thread so that `done` never runs on the caller's stack.
  std::vector<std::pair<std::unique_ptr<Pending>, absl::Status>> deferred ABSL_GUARDED_BY(mu);

  bool OnPublisherThread() const { return std::this_thread::get_id() == poller_id.load(); }

  void Complete(std::unique_ptr<Pending> p, const absl::Status& status) {
    if (p->done) p->done(status);
    {
      MutexLock lock(&mu);
      --outstanding;
    }
    idle.SignalAll();
  }

  void Defer(std::unique_ptr<Pending> p, absl::Status status) {
    MutexLock lock(&mu);
    deferred.emplace_back(std::move(p), std::move(status));
  }

  // Runs the completions deferred so far (not those they defer in turn).
  // Returns false when there were none.
  bool RunDeferred() {
    std::vector<std::pair<std::unique_ptr<Pending>, absl::Status>> batch;
    {
      MutexLock lock(&mu);
      batch.swap(deferred);
    }
    for (auto& [p, status] : batch) Complete(std::move(p), status);
    return !batch.empty();
  }

  void PollLoop() {
    poller_id.store(std::this_thread::get_id());
    while (!stop.load()) {
      bool busy;
      {
        MutexLock lock(&mu);
        busy = !deferred.empty();
      }
      rd_kafka_poll(rk, busy ? 0 : kPollMs);
      RunDeferred();
    }
  }

  absl::Status WaitIdle(std::chrono::milliseconds timeout) {
    const Clock& clock = *config.clock;
    const SteadyTime deadline = clock.Now() + timeout;
    MutexLock lock(&mu);
    while (outstanding != 0) {
      const auto left = deadline - clock.Now();
      if (left <= left.zero() || (!idle.WaitFor(&mu, left) && outstanding != 0)) break;
    }
    if (outstanding == 0) return absl::OkStatus();
    return absl::DeadlineExceededError("kafka publisher: " + std::to_string(outstanding) +
                                       " outcomes still in flight after " + std::to_string(timeout.count()) + " ms");
  }

  const std::string& TopicFor(const Outcome& o) const {
    if (!o.ok) return config.dead_letter_topic;
    return o.reply_to.empty() ? config.default_reply_topic : o.reply_to;
  }

  // librdkafka's delivery report; `opaque` is kafka_log's, whose owner is
  // this Impl.
  static void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
    auto* self = static_cast<Impl*>(kafka::KafkaLog::Owner(opaque));
    std::unique_ptr<Pending> p(static_cast<Pending*>(msg->_private));
    {
      MutexLock lock(&self->mu);
      self->held.erase(p.get());
    }
    absl::Status status;
    if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      status = KafkaError(msg->err, "delivery", *p);
      self->log.Warn("event=publish_failed topic=%v job=%v error=\"%v\"", p->topic, p->id, rd_kafka_err2str(msg->err));
    } else {
      self->log.Trace(
          "event=publish_delivered topic=%v job=%v partition=%v "
          "offset=%v",
          p->topic, p->id, msg->partition, msg->offset);
    }
    self->Complete(std::move(p), status);
  }

  // Finishes every outstanding outcome and releases the producer.
  void Shutdown() {
    absl::Status flushed = WaitIdle(config.close_timeout);
    closing.store(true);
    if (!flushed.ok()) {
      log.Warn("event=publisher_close_timeout outstanding=%v action=purge", InFlight());
      rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
      (void)WaitIdle(kPurgeWait);  // the purged messages report Cancelled
    }
    stop.store(true);
    poller.join();
    rd_kafka_destroy(rk);
    rk = nullptr;
    // Whatever librdkafka never reported is ours again; no callback can run
    // any more, so finish them here, on this thread.
    std::unordered_set<Pending*> left;
    {
      MutexLock lock(&mu);
      left.swap(held);
    }
    if (!left.empty()) {
      log.Warn("event=publisher_unreported_at_close count=%v", left.size());
    }
    for (Pending* raw : left) {
      std::unique_ptr<Pending> p(raw);
      absl::Status status =
          absl::CancelledError("kafka publisher closed before delivery topic=" + p->topic + " job=" + p->id);
      Complete(std::move(p), status);
    }
    // A done may publish again (a retry); `closing` turns that into another
    // deferred Cancelled, so this ends once the callers stop retrying.
    while (RunDeferred()) {
    }
    log.Info("event=publisher_closed");
  }

  size_t InFlight() const {
    MutexLock lock(&mu);
    return outstanding;
  }
};

KafkaOutcomePublisher::KafkaOutcomePublisher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaOutcomePublisher::~KafkaOutcomePublisher() { impl_->Shutdown(); }

absl::StatusOr<std::unique_ptr<KafkaOutcomePublisher>> KafkaOutcomePublisher::Create(const PublisherConfig& config) {
  const auto& props = config.properties;
  if (config.brokers.empty() && !props.contains("bootstrap.servers") && !props.contains("metadata.broker.list")) {
    return absl::InvalidArgumentError(
        "kafka publisher: brokers is empty (set brokers or the "
        "bootstrap.servers property)");
  }
  auto impl = std::make_unique<Impl>();
  impl->config = config;

  std::map<std::string, std::string> all = {
      {"enable.idempotence", "true"},  // no duplicates from internal retries
      {"linger.ms", "5"},              // results trickle in per batch
      // A reply_to naming a topic that does not exist: librdkafka holds its
      // messages until the topic has been missing from the metadata this
      // long (default 30 s) before it reports the unknown topic, and the
      // job's partition cannot commit past it meanwhile. The configured
      // topics are checked at start-up; a reply_to is the job's own word,
      // so a missing one is reported (permanent: a notice goes to the
      // dead-letter topic) within about a second.
      {"topic.metadata.propagation.max.ms", std::to_string(kReplyTopicPropagationMs)},
  };
  if (!config.brokers.empty()) all["bootstrap.servers"] = config.brokers;
  for (const auto& [k, v] : props) all[k] = v;
  impl->kafka_log = std::make_unique<kafka::KafkaLog>(impl->log, "publisher", all, RealClock());
  absl::StatusOr<rd_kafka_t*> rk =
      kafka::NewHandle(RD_KAFKA_PRODUCER, *impl->kafka_log, impl.get(),
                       [](rd_kafka_conf_t* conf) { rd_kafka_conf_set_dr_msg_cb(conf, &Impl::OnDelivery); });
  if (!rk.ok()) return rk.status();
  impl->rk = *rk;
  Impl* raw = impl.get();
  impl->poller = std::thread([raw] {
    StageThread stage("publish");
    raw->PollLoop();
  });
  impl->log.Info(
      "event=publisher_created brokers=%v default_reply_topic=%v "
      "dead_letter_topic=%v",
      config.brokers, config.default_reply_topic, config.dead_letter_topic);
  return std::unique_ptr<KafkaOutcomePublisher>(new KafkaOutcomePublisher(std::move(impl)));
}

bool KafkaOutcomePublisher::WantsToPublish(const Outcome& outcome) const { return !impl_->TopicFor(outcome).empty(); }

void KafkaOutcomePublisher::Publish(const Outcome& outcome, std::string_view json, Done done) {
  Impl& m = *impl_;
  auto p = std::make_unique<Pending>(Pending{m.TopicFor(outcome), outcome.id, std::move(done)});
  {
    MutexLock lock(&m.mu);
    ++m.outstanding;
  }
  if (m.closing.load()) {
    absl::Status status = absl::CancelledError("kafka publisher is closing job=" + outcome.id);
    m.Defer(std::move(p), std::move(status));
    return;
  }
  if (p->topic.empty()) {
    m.Defer(std::move(p), absl::FailedPreconditionError(
                              "kafka publisher: no topic for job=" + outcome.id +
                              (outcome.ok ? " (no reply_to and no default reply topic)" : " (no dead-letter topic)")));
    return;
  }
  // Results: the record's JSON. Failures: the dead-letter convention, the
  // original message value with the failure in headers.
  std::string letter_value;
  std::string_view value = json;
  rd_kafka_headers_t* headers = nullptr;
  if (!outcome.ok) {
    DeadLetter letter = ToDeadLetter(outcome);
    letter_value = std::move(letter.value);
    value = letter_value;
    headers = rd_kafka_headers_new(letter.headers.size());
    for (const auto& [name, text] : letter.headers) {
      rd_kafka_header_add(headers, name.data(), ssize_t(name.size()), text.data(), ssize_t(text.size()));
    }
  }
  Pending* raw = p.get();
  {
    MutexLock lock(&m.mu);
    m.held.insert(raw);
  }
  // The publisher thread drains the queue, so it must not wait for room.
  const bool may_wait = !m.OnPublisherThread();
  const Clock& clock = *m.config.clock;
  const SteadyTime deadline = clock.Now() + m.config.queue_full_timeout;
  rd_kafka_resp_err_t err;
  while (true) {
    // librdkafka takes the headers only when it takes the message; a
    // refused attempt leaves them ours, for the next try or to destroy.
    rd_kafka_headers_t* attempt_headers = headers != nullptr ? rd_kafka_headers_copy(headers) : nullptr;
    err = rd_kafka_producev(m.rk, RD_KAFKA_V_TOPIC(raw->topic.c_str()), RD_KAFKA_V_KEY(raw->id.data(), raw->id.size()),
                            RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                            RD_KAFKA_V_HEADERS(attempt_headers), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_OPAQUE(raw), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR && attempt_headers != nullptr) {
      rd_kafka_headers_destroy(attempt_headers);
    }
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (headers != nullptr) rd_kafka_headers_destroy(headers);
      // librdkafka owns it now; the delivery report takes it back (and may
      // already have).
      (void)p.release();
      return;
    }
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL || !may_wait || clock.Now() >= deadline) {
      break;
    }
    clock.SleepFor(kQueueFullBackoff);
  }
  if (headers != nullptr) rd_kafka_headers_destroy(headers);
  {
    MutexLock lock(&m.mu);
    m.held.erase(raw);
  }
  m.log.Warn("event=publish_rejected topic=%v job=%v error=\"%v\"", raw->topic, raw->id, rd_kafka_err2str(err));
  absl::Status status = KafkaError(err, "produce", *raw);
  m.Defer(std::move(p), std::move(status));
}

absl::Status KafkaOutcomePublisher::Flush(std::chrono::milliseconds timeout) {
  if (impl_->OnPublisherThread()) {
    return absl::FailedPreconditionError("kafka publisher: Flush called from a done callback");
  }
  return impl_->WaitIdle(timeout);
}

size_t KafkaOutcomePublisher::InFlight() const { return impl_->InFlight(); }

}  // namespace qinfer::storage
