#include "job_producer.h"

#include <librdkafka/rdkafka.h>

#include "qinfer/core/logging.h"
#include "qinfer/kafka/kafka_log.h"
#include "qinfer/storage/kafka_properties.h"

namespace qinfer::app {

absl::StatusOr<std::unique_ptr<JobProducer>> JobProducer::Create(
    const std::string& brokers, const std::map<std::string, std::string>& properties) {
  std::unique_ptr<JobProducer> p(new JobProducer());
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> props = {
      {"bootstrap.servers", brokers}, {"enable.idempotence", "true"}, {"linger.ms", "10"}};
  for (const auto& [k, v] : properties) props[k] = v;
  if (absl::Status s = storage::ApplyKafkaProperties(conf, props); !s.ok()) {
    rd_kafka_conf_destroy(conf);
    return s;
  }
  p->kafka_log_ = std::make_unique<kafka::KafkaLog>(Logger("app"), "producer", props, kafka::SteadyClock());
  p->kafka_log_->Install(conf, &p->delivery_);
  rd_kafka_conf_set_dr_msg_cb(conf, &JobProducer::OnDelivery);
  absl::StatusOr<rd_kafka_t*> rk = kafka::NewHandle(RD_KAFKA_PRODUCER, conf, *p->kafka_log_);
  if (!rk.ok()) return rk.status();
  p->rk_ = *rk;
  return p;
}

JobProducer::JobProducer() = default;

JobProducer::~JobProducer() {
  if (rk_ != nullptr) rd_kafka_destroy(rk_);
}

void JobProducer::OnDelivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* d = static_cast<Delivery*>(kafka::KafkaLog::Owner(opaque));
  if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    d->acked++;
  } else if (d->failed++ == 0) {
    d->first_error = rd_kafka_err2str(msg->err);
  }
}

absl::Status JobProducer::Send(const std::string& topic, std::string_view key, std::string_view value) {
  while (true) {
    rd_kafka_resp_err_t e = rd_kafka_producev(
        rk_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
        RD_KAFKA_V_KEY(key.empty() ? nullptr : key.data(), key.size()),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_poll(rk_, 0);
      return absl::OkStatus();
    }
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) return absl::UnavailableError(rd_kafka_err2str(e));
    rd_kafka_poll(rk_, 50);  // local queue full: serve deliveries, retry
  }
}

void JobProducer::Flush(const std::function<void()>& waiting) {
  while (rd_kafka_outq_len(rk_) > 0) {
    rd_kafka_flush(rk_, 500);
    if (waiting) waiting();
  }
}

}  // namespace qinfer::app
