#include "qinfer/consumer/offset_tracker.h"

#include <gtest/gtest.h>

namespace qinfer::consumer {
namespace {

class OffsetTrackerTest : public ::testing::Test {
 protected:
  Origin At(int64_t offset) { return {"jobs", 0, offset, epoch_}; }
  void SetUp() override { epoch_ = tracker_.Assign("jobs", 0); }

  OffsetTracker tracker_;
  uint64_t epoch_ = 0;
};

TEST_F(OffsetTrackerTest, OutOfOrderCompletionCommitsOnlyTheContiguousPrefix) {
  for (int64_t o = 10; o < 15; ++o) ASSERT_TRUE(tracker_.Track(At(o)));
  tracker_.Ack(At(12));
  tracker_.Ack(At(13));
  EXPECT_TRUE(tracker_.TakeCommittable().empty()) << "10 is not done yet";
  tracker_.Ack(At(10));
  EXPECT_EQ(tracker_.TakeCommittable(), (std::vector<CommitPoint>{{"jobs", 0, 11}}));
  tracker_.Ack(At(11));
  EXPECT_EQ(tracker_.TakeCommittable(), (std::vector<CommitPoint>{{"jobs", 0, 14}}));
  tracker_.Ack(At(14));
  EXPECT_EQ(tracker_.TakeCommittable(), (std::vector<CommitPoint>{{"jobs", 0, 15}}));
  EXPECT_EQ(tracker_.pending(), 0u);
}

TEST_F(OffsetTrackerTest, TakeCommittableReportsEachAdvanceOnce) {
  ASSERT_TRUE(tracker_.Track(At(0)));
  tracker_.Ack(At(0));
  EXPECT_EQ(tracker_.TakeCommittable().size(), 1u);
  EXPECT_TRUE(tracker_.TakeCommittable().empty());
  EXPECT_EQ(tracker_.Committable(), (std::vector<CommitPoint>{{"jobs", 0, 1}}));
}

TEST_F(OffsetTrackerTest, GapsInOffsetsDoNotBlockTheCommit) {
  // Compacted topics and transaction markers leave holes in offsets.
  ASSERT_TRUE(tracker_.Track(At(3)));
  ASSERT_TRUE(tracker_.Track(At(7)));
  tracker_.Ack(At(7));
  tracker_.Ack(At(3));
  EXPECT_EQ(tracker_.TakeCommittable(), (std::vector<CommitPoint>{{"jobs", 0, 8}}));
}

TEST_F(OffsetTrackerTest, DuplicateAckIsHarmless) {
  ASSERT_TRUE(tracker_.Track(At(0)));
  ASSERT_TRUE(tracker_.Track(At(1)));
  tracker_.Ack(At(1));
  tracker_.Ack(At(1));
  EXPECT_TRUE(tracker_.TakeCommittable().empty());
  EXPECT_EQ(tracker_.pending(), 2u);
}

TEST_F(OffsetTrackerTest, AckFromARevokedAssignmentIsIgnored) {
  ASSERT_TRUE(tracker_.Track(At(0)));
  const Origin stale = At(0);
  tracker_.Revoke("jobs", 0);
  epoch_ = tracker_.Assign("jobs", 0);  // reassigned: a new epoch
  ASSERT_TRUE(tracker_.Track(At(0)));
  tracker_.Ack(stale);
  EXPECT_TRUE(tracker_.TakeCommittable().empty());
  EXPECT_FALSE(tracker_.Track(stale)) << "stale epoch";
  tracker_.Ack(At(0));
  EXPECT_EQ(tracker_.TakeCommittable(), (std::vector<CommitPoint>{{"jobs", 0, 1}}));
}

TEST_F(OffsetTrackerTest, PartitionsAreIndependent) {
  const uint64_t e1 = tracker_.Assign("jobs", 1);
  ASSERT_TRUE(tracker_.Track(At(0)));
  ASSERT_TRUE(tracker_.Track({"jobs", 1, 0, e1}));
  tracker_.Ack({"jobs", 1, 0, e1});
  EXPECT_EQ(tracker_.TakeCommittable(), (std::vector<CommitPoint>{{"jobs", 1, 1}}));
  EXPECT_FALSE(tracker_.Track({"other", 0, 0, e1})) << "not assigned";
}

}  // namespace
}  // namespace qinfer::consumer
