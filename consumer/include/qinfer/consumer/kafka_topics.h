// Start-up checks of the Kafka cluster: are the brokers reachable, and does
// every topic the configuration names exist? A topic that is missing would
// otherwise fail every delivery to it, job after job.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace qinfer::consumer {

struct TopicCheck {
  std::string brokers;
  // librdkafka properties (security settings, say), passed through.
  std::map<std::string, std::string> properties;
  std::vector<std::string> topics;  // empty names are skipped
  // Create the missing topics (partitions; the broker's default replication)
  // instead of failing.
  bool create = false;
  int partitions = 1;
  std::chrono::milliseconds timeout{15000};
};

// OK when every topic exists (or was created). Errors: Unavailable when no
// broker answered within the timeout; NotFound naming the missing topics and
// the fix; InvalidArgument for a bad property; the broker's error when a
// creation failed.
absl::Status EnsureTopics(const TopicCheck& check);

// Sets each of `properties` on a fresh librdkafka configuration, without a
// client or any network step: InvalidArgument naming the first unknown or
// malformed property (its value redacted when it is a secret), so that a
// mistake in the configuration is told apart from brokers that do not
// answer. `section` names where the property was set (e.g.
// "kafka.consumer."), in the message.
absl::Status CheckProperties(const std::map<std::string, std::string>& properties, const std::string& section);

}  // namespace qinfer::consumer
