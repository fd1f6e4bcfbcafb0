// When `qinfer collect` writes what it holds, and so stores the offsets past it.
#include <gtest/gtest.h>

#include "qinfer/collect/collector.h"

namespace qinfer::collect {
namespace {

using std::chrono::milliseconds;

TEST(FlushDueTest, NothingHeldIsNeverWritten) {
  const FlushPolicy p;
  EXPECT_FALSE(FlushDue(p, 0, 0, milliseconds(0), true));
  EXPECT_FALSE(FlushDue(p, 0, 0, milliseconds(5000), false));
}

TEST(FlushDueTest, HeldMessagesWaitForMoreWhileMoreArriveAndTheOldestIsYoung) {
  const FlushPolicy p;
  EXPECT_FALSE(FlushDue(p, 1, 10, milliseconds(0), false));
  EXPECT_FALSE(FlushDue(p, p.max_held - 1, p.max_held_bytes - 1, p.max_hold_time - milliseconds(1), false));
}

TEST(FlushDueTest, AFullHoldAnOldMessageOrAQuietPollWritesAtOnce) {
  const FlushPolicy p;
  EXPECT_TRUE(FlushDue(p, p.max_held, 10, milliseconds(0), false)) << "count";
  EXPECT_TRUE(FlushDue(p, 1, p.max_held_bytes, milliseconds(0), false)) << "bytes";
  EXPECT_TRUE(FlushDue(p, 1, 10, p.max_hold_time, false)) << "age";
  EXPECT_TRUE(FlushDue(p, 1, 10, milliseconds(0), true)) << "nothing more for now";
}

TEST(FlushDueTest, ThePolicysBoundsAreItsOwn) {
  FlushPolicy p;
  p.max_held = 2;
  p.max_held_bytes = 100;
  p.max_hold_time = milliseconds(10);
  EXPECT_FALSE(FlushDue(p, 1, 99, milliseconds(9), false));
  EXPECT_TRUE(FlushDue(p, 2, 0, milliseconds(0), false));
  EXPECT_TRUE(FlushDue(p, 1, 100, milliseconds(0), false));
  EXPECT_TRUE(FlushDue(p, 1, 0, milliseconds(10), false));
}

}  // namespace
}  // namespace qinfer::collect
