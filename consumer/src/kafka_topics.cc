#include "qinfer/consumer/kafka_topics.h"

#include <librdkafka/rdkafka.h>

#include <memory>
#include <set>

#include "absl/strings/str_join.h"
#include "qinfer/core/logging.h"
#include "qinfer/kafka/kafka_log.h"

namespace qinfer::consumer {
namespace {

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaDeleter>;

absl::Status CreateTopics(rd_kafka_t* rk, const std::vector<std::string>& names, const TopicCheck& check) {
  char err[512];
  std::vector<rd_kafka_NewTopic_t*> topics;
  for (const std::string& name : names) {
    topics.push_back(rd_kafka_NewTopic_new(name.c_str(), check.partitions, -1, err, sizeof(err)));
    if (topics.back() == nullptr) {
      topics.pop_back();
      for (auto* t : topics) rd_kafka_NewTopic_destroy(t);
      return absl::InvalidArgumentError("topic " + name + ": " + err);
    }
  }
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, topics.data(), topics.size(), nullptr, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, int(check.timeout.count()));
  absl::Status status = absl::OkStatus();
  if (event == nullptr) {
    status = absl::UnavailableError("creating topics timed out");
  } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    status = absl::UnavailableError(std::string("creating topics: ") + rd_kafka_event_error_string(event));
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &n);
    for (size_t i = 0; i < n && status.ok(); ++i) {
      rd_kafka_resp_err_t e = rd_kafka_topic_result_error(results[i]);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        status = absl::UnavailableError(std::string("creating topic ") + rd_kafka_topic_result_name(results[i]) + ": " +
                                        rd_kafka_topic_result_error_string(results[i]));
      }
    }
  }
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  for (auto* t : topics) rd_kafka_NewTopic_destroy(t);
  return status;
}

}  // namespace

absl::Status EnsureTopics(const TopicCheck& check) {
  std::set<std::string> wanted;
  for (const std::string& t : check.topics) {
    if (!t.empty()) wanted.insert(t);
  }
  if (wanted.empty()) return absl::OkStatus();

  std::map<std::string, std::string> props = {{"bootstrap.servers", check.brokers}};
  for (const auto& [k, v] : check.properties) props[k] = v;
  // Declared before the handle: librdkafka logs through it until the
  // handle is destroyed.
  kafka::KafkaLog kafka_log(Logger("consumer"), "topic_check", props, RealClock());
  absl::StatusOr<rd_kafka_t*> handle = kafka::NewHandle(RD_KAFKA_PRODUCER, kafka_log, nullptr);
  if (!handle.ok()) return handle.status();
  KafkaHandle rk(*handle);

  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk.get(), /*all_topics=*/1, nullptr, &md, int(check.timeout.count()));
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::UnavailableError("kafka.brokers=" + check.brokers + ": no broker answered within " +
                                  std::to_string(check.timeout.count()) + " ms (" + rd_kafka_err2str(e) +
                                  "); check the address and that the brokers run");
  }
  std::vector<std::string> missing;
  std::set<std::string> present;
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) present.insert(md->topics[i].topic);
  }
  rd_kafka_metadata_destroy(md);
  for (const std::string& t : wanted) {
    if (!present.contains(t)) missing.push_back(t);
  }
  if (missing.empty()) return absl::OkStatus();
  const std::string names = absl::StrJoin(missing, ", ");
  if (!check.create) {
    return absl::NotFoundError("topic(s) " + names + " do not exist on " + check.brokers +
                               ": create them, fix the names in the configuration, or set "
                               "kafka.create_topics=true");
  }
  if (absl::Status s = CreateTopics(rk.get(), missing, check); !s.ok()) return s;
  Logger("consumer").Info("event=topics_created topics=%v partitions=%v", names, check.partitions);
  return absl::OkStatus();
}

absl::Status CheckProperties(const std::map<std::string, std::string>& properties, const std::string& section) {
  std::unique_ptr<rd_kafka_conf_t, void (*)(rd_kafka_conf_t*)> conf(rd_kafka_conf_new(), &rd_kafka_conf_destroy);
  return kafka::ApplyProperties(conf.get(), properties, section);
}

}  // namespace qinfer::consumer
