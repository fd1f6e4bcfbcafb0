#include "qinfer/storage/kafka_job_producer.h"

#include <librdkafka/rdkafka.h>

#include <atomic>

#include "qinfer/core/logging.h"
#include "qinfer/kafka/kafka_log.h"

namespace qinfer::storage {

struct KafkaJobProducer::Impl {
  std::atomic<uint64_t> acked{0};
  std::atomic<uint64_t> failed{0};
  std::string first_error;  // set by the first failed delivery report
  // librdkafka's log and error callbacks; outlives rk.
  std::unique_ptr<kafka::KafkaLog> kafka_log;
  rd_kafka_t* rk = nullptr;

  ~Impl() {
    if (rk != nullptr) rd_kafka_destroy(rk);
  }

  // Served by rd_kafka_poll and rd_kafka_flush, on the caller's thread.
  static void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
    auto* d = static_cast<Impl*>(kafka::KafkaLog::Owner(opaque));
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      d->acked++;
    } else if (d->failed++ == 0) {
      d->first_error = rd_kafka_err2str(msg->err);
    }
  }
};

absl::StatusOr<std::unique_ptr<KafkaJobProducer>> KafkaJobProducer::Create(const JobProducerConfig& config) {
  auto impl = std::make_unique<Impl>();
  std::map<std::string, std::string> props = {
      {"bootstrap.servers", config.brokers}, {"enable.idempotence", "true"}, {"linger.ms", "10"}};
  for (const auto& [k, v] : config.properties) props[k] = v;
  impl->kafka_log = std::make_unique<kafka::KafkaLog>(Logger(config.logger), "producer", props, RealClock());
  absl::StatusOr<rd_kafka_t*> rk =
      kafka::NewHandle(RD_KAFKA_PRODUCER, *impl->kafka_log, impl.get(),
                       [](rd_kafka_conf_t* conf) { rd_kafka_conf_set_dr_msg_cb(conf, &Impl::OnDelivery); });
  if (!rk.ok()) return rk.status();
  impl->rk = *rk;
  return std::unique_ptr<KafkaJobProducer>(new KafkaJobProducer(std::move(impl)));
}

KafkaJobProducer::KafkaJobProducer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaJobProducer::~KafkaJobProducer() = default;

uint64_t KafkaJobProducer::acked() const { return impl_->acked.load(); }
uint64_t KafkaJobProducer::failed() const { return impl_->failed.load(); }
const std::string& KafkaJobProducer::first_error() const { return impl_->first_error; }

absl::Status KafkaJobProducer::Send(const std::string& topic, std::string_view key, std::string_view value) {
  rd_kafka_t* rk = impl_->rk;
  while (true) {
    rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                                              RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                              RD_KAFKA_V_KEY(key.empty() ? nullptr : key.data(), key.size()),
                                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_poll(rk, 0);
      return absl::OkStatus();
    }
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) return absl::UnavailableError(rd_kafka_err2str(e));
    rd_kafka_poll(rk, 50);  // local queue full: serve deliveries, retry
  }
}

void KafkaJobProducer::Flush(const std::function<void()>& waiting) {
  while (rd_kafka_outq_len(impl_->rk) > 0) {
    rd_kafka_flush(impl_->rk, 500);
    if (waiting) waiting();
  }
}

}  // namespace qinfer::storage
