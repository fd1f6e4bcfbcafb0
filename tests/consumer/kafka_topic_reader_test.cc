// KafkaTopicReader's decisions (ranges, caught up) as pure functions, and
// the configurations it refuses before any network step (no broker).
#include "qinfer/consumer/kafka_topic_reader.h"

#include <gtest/gtest.h>

namespace qinfer::consumer {
namespace {

TEST(RangeWithinTest, TakesTheOffsetsBetweenTheBoundsThatThePartitionStillHolds) {
  EXPECT_EQ(RangeWithin("dlq", 0, 0, 10, 0, -1), (PartitionRange{"dlq", 0, 0, 10}));
  // Below the low watermark (deleted by retention): from the low watermark.
  EXPECT_EQ(RangeWithin("dlq", 1, 4, 10, 2, -1), (PartitionRange{"dlq", 1, 4, 10}));
  // to_offset is inclusive.
  EXPECT_EQ(RangeWithin("dlq", 2, 0, 10, 3, 5), (PartitionRange{"dlq", 2, 3, 6}));
  EXPECT_EQ(RangeWithin("dlq", 2, 0, 10, 5, 5), (PartitionRange{"dlq", 2, 5, 6}));
  // Past the end, or an empty partition: nothing.
  EXPECT_EQ(RangeWithin("dlq", 3, 0, 10, 10, -1), std::nullopt);
  EXPECT_EQ(RangeWithin("dlq", 3, 0, 0, 0, -1), std::nullopt);
  EXPECT_EQ(RangeWithin("dlq", 3, 5, 10, 0, 4), std::nullopt);
}

TEST(ReadToEndTest, APartitionIsReadToItsEndOnlyWhenItsNextOffsetReachesTheHighWatermark) {
  // Read in this run: the position decides.
  EXPECT_TRUE(ReadToEnd(10, 3, 0, 10, false));
  EXPECT_FALSE(ReadToEnd(9, 10, 0, 10, false));
  // Not read yet: the committed offset, else where auto.offset.reset starts.
  EXPECT_TRUE(ReadToEnd(-1001, 10, 0, 10, false));
  EXPECT_FALSE(ReadToEnd(-1001, 4, 0, 10, false));
  EXPECT_FALSE(ReadToEnd(-1001, -1001, 0, 10, false));
  EXPECT_TRUE(ReadToEnd(-1001, -1001, 0, 10, true));
  EXPECT_TRUE(ReadToEnd(-1001, -1001, 0, 0, false)) << "an empty partition";
}

TEST(StartsAtEndTest, OnlyTheLatestResetsStartAtTheEnd) {
  for (const char* v : {"latest", "largest", "end"}) EXPECT_TRUE(StartsAtEnd(v)) << v;
  for (const char* v : {"earliest", "smallest", "beginning", "error", ""}) EXPECT_FALSE(StartsAtEnd(v)) << v;
}

ReaderConfig Config(std::map<std::string, std::string> properties) {
  ReaderConfig c;
  c.brokers = "127.0.0.1:1";
  c.group = "g";
  c.client = "collect";
  c.properties = std::move(properties);
  return c;
}

TEST(KafkaTopicReaderTest, AGroupReaderRefusesAutomaticOffsetStoringAndCooperativeRebalancing) {
  auto stored = KafkaTopicReader::Subscribe(Config({{"enable.auto.offset.store", "true"}}), {"t"}, nullptr);
  ASSERT_FALSE(stored.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(stored.status())) << stored.status();
  EXPECT_NE(stored.status().message().find("enable.auto.offset.store must stay false"), std::string::npos);

  auto cooperative =
      KafkaTopicReader::Subscribe(Config({{"partition.assignment.strategy", "cooperative-sticky"}}), {"t"}, nullptr);
  ASSERT_FALSE(cooperative.ok());
  EXPECT_EQ(cooperative.status().message(),
            "kafka property partition.assignment.strategy: collect uses eager rebalancing (range, roundrobin)");
}

TEST(KafkaTopicReaderTest, EitherModeNamesAPropertyLibrdkafkaRefuses) {
  auto group = KafkaTopicReader::Subscribe(Config({{"no.such.property", "1"}}), {"t"}, nullptr);
  ASSERT_FALSE(group.ok());
  EXPECT_NE(group.status().message().find("no.such.property"), std::string::npos) << group.status();
  auto ranges = KafkaTopicReader::ForRanges(Config({{"fetch.wait.max.ms", "soon"}}));
  ASSERT_FALSE(ranges.ok());
  EXPECT_NE(ranges.status().message().find("fetch.wait.max.ms"), std::string::npos) << ranges.status();
}

}  // namespace
}  // namespace qinfer::consumer
