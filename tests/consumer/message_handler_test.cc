// One message's way from the consumer into the queue or a failure record,
// without Kafka: a queue that takes, refuses or closes on command, a sink
// that keeps what it is given, and the real offset tracker.
#include "qinfer/consumer/message_handler.h"

#include <gtest/gtest.h>

#include "consumer_fakes.h"

namespace qinfer::consumer {
namespace {

const DecoderLimits kLimits{/*vocab_size=*/100, /*max_tokens=*/8};

using testing::CommandedQueue;
using testing::KeptRecords;

class MessageHandlerTest : public ::testing::Test {
 protected:
  MessageHandlerTest() { epoch_ = tracker_.Assign("jobs", 0); }

  void Handle(int64_t offset, std::string_view value) {
    RawMessage m;
    m.value = value;
    m.origin = {"jobs", 0, offset, epoch_};
    handler_.Handle(m);
  }
  std::vector<CommitPoint> Committable() { return tracker_.Committable(); }

  uint64_t epoch_ = 0;
  OffsetTracker tracker_;
  CommandedQueue queue_;
  KeptRecords records_{tracker_};
  SourceStats stats_;
  MessageHandler handler_{kLimits, queue_, records_, tracker_, stats_};
};

TEST_F(MessageHandlerTest, AJobIsQueuedAndItsOffsetWaitsForItsRecord) {
  Handle(0, R"({"id": "a", "input_ids": [1, 2, 3]})");
  ASSERT_EQ(queue_.jobs().size(), 1u);
  EXPECT_EQ(queue_.jobs()[0].id, "a");
  EXPECT_EQ(queue_.jobs()[0].origin.offset, 0);
  EXPECT_TRUE(records_.records().empty());
  EXPECT_EQ(tracker_.pending(), 1u) << "tracked, not committable before its record";
  EXPECT_TRUE(Committable().empty());
}

TEST_F(MessageHandlerTest, AnInvalidMessageBecomesAnInvalidRecordAndIsCommittable) {
  Handle(0, "not json");
  ASSERT_EQ(records_.records().size(), 1u);
  EXPECT_EQ(records_.records()[0].reason, reason::kInvalid);
  EXPECT_EQ(stats_.rejected.load(), 1u);
  ASSERT_EQ(Committable().size(), 1u);
  EXPECT_EQ(Committable()[0].next_offset, 1) << "the next offset to read";
}

TEST_F(MessageHandlerTest, AJobNoBucketTakesBecomesATooLongRecord) {
  queue_.longest = 2;
  Handle(0, R"({"id": "long", "input_ids": [1, 2, 3]})");
  ASSERT_EQ(records_.records().size(), 1u);
  EXPECT_EQ(records_.records()[0].id, "long");
  EXPECT_EQ(records_.records()[0].reason, reason::kTooLong);
  EXPECT_NE(records_.records()[0].error.find("no bucket"), std::string::npos) << records_.records()[0].error;
  EXPECT_EQ(tracker_.pending(), 0u);
}

TEST_F(MessageHandlerTest, AMessageTheClosingQueueRefusesHasNoRecordAndStaysUncommitted) {
  queue_.closed = true;
  Handle(0, R"({"id": "late", "input_ids": [1]})");
  EXPECT_TRUE(records_.records().empty()) << "no record: read again after the restart";
  EXPECT_EQ(stats_.refused.load(), 1u);
  EXPECT_EQ(tracker_.pending(), 1u);
  EXPECT_TRUE(Committable().empty());
}

TEST_F(MessageHandlerTest, AReplayIsCounted) {
  Handle(0, R"({"id": "r", "input_ids": [1], "replay_of": {"topic": "jobs", "partition": 0, "offset": 9}})");
  Handle(1, R"({"id": "s", "input_ids": [1]})");
  EXPECT_EQ(stats_.replays.load(), 1u);
  EXPECT_EQ(queue_.jobs().size(), 2u);
}

TEST_F(MessageHandlerTest, AMessageOfARevokedAssignmentIsLeftToItsNewOwner) {
  tracker_.Revoke("jobs", 0);
  Handle(0, R"({"id": "gone", "input_ids": [1]})");
  EXPECT_TRUE(queue_.jobs().empty());
  EXPECT_TRUE(records_.records().empty());
}

}  // namespace
}  // namespace qinfer::consumer
