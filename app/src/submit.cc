#include "submit.h"

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

namespace qinfer::app {
namespace {

struct Delivery {
  std::atomic<uint64_t> acked{0};
  std::atomic<uint64_t> failed{0};
  std::string first_error;
};

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* d = static_cast<Delivery*>(opaque);
  if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    d->acked++;
  } else {
    if (d->failed++ == 0) d->first_error = rd_kafka_err2str(msg->err);
  }
}

}  // namespace

int Submit(const SubmitOptions& o) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (o.file != "-") {
    file.open(o.file);
    if (!file) {
      std::cerr << "submit: cannot open " << o.file << "\n";
      return 2;
    }
    in = &file;
  }
  char err[512];
  Delivery delivery;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> props = {{"bootstrap.servers", o.brokers},
                                              {"enable.idempotence", "true"},
                                              {"linger.ms", "10"}};
  for (const auto& [k, v] : o.properties) props[k] = v;
  for (const auto& [k, v] : props) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      std::cerr << "submit: kafka property " << k << ": " << err << "\n";
      rd_kafka_conf_destroy(conf);
      return 2;
    }
  }
  rd_kafka_conf_set_dr_msg_cb(conf, OnDelivery);
  rd_kafka_conf_set_opaque(conf, &delivery);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  if (rk == nullptr) {
    std::cerr << "submit: cannot create producer: " << err << "\n";
    return 2;
  }

  const bool tty = o.progress && isatty(STDERR_FILENO);
  auto last_progress = std::chrono::steady_clock::now();
  uint64_t line_no = 0, sent = 0, bad = 0;
  std::string line;
  while (std::getline(*in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      std::cerr << "submit: line " << line_no << ": not a JSON object, skipped\n";
      ++bad;
      continue;
    }
    std::string key;
    if (auto it = doc.find("id"); it != doc.end() && it->is_string()) key = it->get<std::string>();
    while (true) {
      rd_kafka_resp_err_t e = rd_kafka_producev(
          rk, RD_KAFKA_V_TOPIC(o.topic.c_str()),
          RD_KAFKA_V_VALUE(line.data(), line.size()),
          RD_KAFKA_V_KEY(key.empty() ? nullptr : key.data(), key.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        std::cerr << "submit: line " << line_no << ": " << rd_kafka_err2str(e) << "\n";
        rd_kafka_destroy(rk);
        return 1;
      }
      rd_kafka_poll(rk, 50);  // local queue full: serve deliveries, retry
    }
    ++sent;
    rd_kafka_poll(rk, 0);
    if (tty && std::chrono::steady_clock::now() - last_progress > std::chrono::milliseconds(250)) {
      last_progress = std::chrono::steady_clock::now();
      std::fprintf(stderr, "\rsubmit: %llu sent, %llu acknowledged, %llu bad lines",
                   (unsigned long long)sent, (unsigned long long)delivery.acked.load(),
                   (unsigned long long)bad);
    }
  }
  // Wait for every delivery report (bounded by message.timeout.ms).
  while (rd_kafka_outq_len(rk) > 0) {
    rd_kafka_flush(rk, 500);
    if (tty) {
      std::fprintf(stderr, "\rsubmit: %llu sent, %llu acknowledged, %llu bad lines",
                   (unsigned long long)sent, (unsigned long long)delivery.acked.load(),
                   (unsigned long long)bad);
    }
  }
  if (tty) std::fprintf(stderr, "\n");
  rd_kafka_destroy(rk);
  std::cout << "submitted " << delivery.acked.load() << " of " << sent << " jobs to "
            << o.topic << " (acknowledged by the broker)";
  if (bad > 0) std::cout << "; skipped " << bad << " bad lines";
  std::cout << "\n";
  if (delivery.failed.load() > 0) {
    std::cerr << "submit: " << delivery.failed.load()
              << " jobs were not delivered: " << delivery.first_error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace qinfer::app
