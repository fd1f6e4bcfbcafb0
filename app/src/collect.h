#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace qinfer::app {

struct CollectOptions {
  std::string brokers = "127.0.0.1:9092";
  // What to collect: at least one of the two (they may be the same topic).
  std::string reply_topic;
  std::string dead_letter_topic;
  std::string store;                              // the RocksDB directory it writes (created when missing)
  std::string group = "qinfer-collect";           // consumer group of its own
  std::map<std::string, std::string> properties;  // librdkafka, verbatim
  // > 0: exit 0 once everything read is in the store and nothing arrived
  // for this long (at least 30 s until partitions are assigned). 0: run
  // until SIGINT or SIGTERM.
  int idle_exit_seconds = 0;
  // A larger message (key, value and headers) is unreadable: counted,
  // logged and skipped.
  size_t max_message_bytes = size_t{64} << 20;
  bool progress = true;  // a progress line on stderr every few seconds
};

// `qinfer collect`: folds the reply and dead-letter topics into one outcome
// store (see qinfer/collect/collector.h); offsets are committed only once
// what they hold is durable in the store. Returns 0 after a signal or an
// idle exit, 1 when the store or the consumer failed for good, 2 when it
// cannot start (bad options, a missing topic, unreachable brokers, a store
// that does not open).
int Collect(const CollectOptions& options);

}  // namespace qinfer::app
