// Lag and committed offsets from librdkafka's statistics JSON.
#include "qinfer/consumer/consumer_statistics.h"

#include <gtest/gtest.h>

namespace qinfer::consumer {
namespace {

// The shape librdkafka 2.0 emits (trimmed): the internal UA partition -1,
// one partition with a committed offset, one with nothing committed yet and
// one whose broker offsets are not known yet.
constexpr const char* kStatistics = R"({
  "name": "rdkafka#consumer-1", "type": "consumer", "ts": 123,
  "topics": {
    "jobs": {
      "topic": "jobs",
      "partitions": {
        "2": {"partition": 2, "committed_offset": -1001, "hi_offset": 40, "lo_offset": 10, "consumer_lag": -1},
        "0": {"partition": 0, "committed_offset": 90, "hi_offset": 100, "lo_offset": 0, "consumer_lag": 10},
        "1": {"partition": 1, "committed_offset": -1001, "hi_offset": -1, "lo_offset": -1, "consumer_lag": -1},
        "-1": {"partition": -1, "committed_offset": -1001, "hi_offset": -1, "lo_offset": -1}
      }
    },
    "other": {"topic": "other", "partitions": {"0": {"partition": 0, "committed_offset": 5, "hi_offset": 9}}}
  }
})";

TEST(ConsumerStatisticsTest, ReadsEachPartitionOfTheTopicWithItsLag) {
  auto parsed = ParsePartitionProgress(kStatistics, "jobs");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 3u) << "UA (-1) is left out";
  EXPECT_EQ((*parsed)[0], (PartitionProgress{0, 90, 0, 100, 10}));
  EXPECT_EQ((*parsed)[1], (PartitionProgress{1, std::nullopt, -1, -1, -1})) << "offsets not known yet: lag unknown";
  EXPECT_EQ((*parsed)[2], (PartitionProgress{2, std::nullopt, 10, 40, 30}))
      << "nothing committed: no committed offset (not -1001), lag from the low watermark";
}

TEST(ConsumerStatisticsTest, ATopicNotInTheStatisticsHasNoPartitionsYet) {
  auto parsed = ParsePartitionProgress(kStatistics, "missing");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
  parsed = ParsePartitionProgress(R"({"name":"x"})", "jobs");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
}

TEST(ConsumerStatisticsTest, MalformedStatisticsAreAnErrorNotACrash) {
  EXPECT_FALSE(ParsePartitionProgress("{not json", "jobs").ok());
  EXPECT_FALSE(ParsePartitionProgress("[]", "jobs").ok());
  EXPECT_FALSE(ParsePartitionProgress(R"({"topics":{"jobs":{"partitions":[1,2]}}})", "jobs").ok());
  auto odd = ParsePartitionProgress(R"({"topics":{"jobs":{"partitions":{"0":{"partition":"zero"}}}}})", "jobs");
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(odd->empty()) << "a partition without a numeric id is skipped";
}

TEST(ConsumerStatisticsTest, ACommittedOffsetPastTheKnownEndIsNoNegativeLag) {
  auto parsed = ParsePartitionProgress(
      R"({"topics":{"jobs":{"partitions":{"0":{"partition":0,"committed_offset":12,"hi_offset":10}}}}})", "jobs");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].lag, 0);
}

// A paused partition gets no fetch responses, so its statistics keep the
// high watermark of the last fetch; a queried one moves it on.
TEST(ConsumerStatisticsTest, QueriedWatermarksMoveTheLagOnButNeverBack) {
  const PartitionProgress stale{0, 100, 0, 750, 650};
  EXPECT_EQ(WithWatermarks(stale, 0, 1600), (PartitionProgress{0, 100, 0, 1600, 1500}));
  EXPECT_EQ(WithWatermarks(stale, 0, 700), stale) << "an older answer does not move it back";
  EXPECT_EQ(WithWatermarks(stale, -1, -1), stale) << "a failed query changes nothing";
  const PartitionProgress uncommitted{0, std::nullopt, 10, 40, 30};
  EXPECT_EQ(WithWatermarks(uncommitted, 20, 1500), (PartitionProgress{0, std::nullopt, 20, 1500, 1480}))
      << "nothing committed: from the (queried) low watermark";
  const PartitionProgress unknown{3, std::nullopt, -1, -1, -1};
  EXPECT_EQ(WithWatermarks(unknown, 0, 5), (PartitionProgress{3, std::nullopt, 0, 5, 5}))
      << "statistics that did not know the offsets yet";
}

}  // namespace
}  // namespace qinfer::consumer
