#pragma once

#include <map>
#include <string>

namespace qinfer::app {

struct SubmitOptions {
  std::string brokers = "127.0.0.1:9092";
  std::string topic = "jobs";
  std::string file;  // JSONL; "-" = standard input
  std::map<std::string, std::string> properties;  // librdkafka, verbatim
  bool progress = true;  // on a terminal only
};

// Publishes every JSON-object line of the file as one job message (key: its
// `id` when present). A line that is not a JSON object is reported with its
// line number and skipped. Returns 0 when every good line was acknowledged.
int Submit(const SubmitOptions& options);

}  // namespace qinfer::app
