#include "qinfer/consumer/backpressure.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace qinfer::consumer {
namespace {

using std::chrono::milliseconds;
using Change = Backpressure::Change;

// A queue that is full, with room to resume or not, as the test says; it
// can get room back after some sleeps on the clock (the executor taking a
// batch while the consumer waits).
class SetQueue final : public JobQueue {
 public:
  explicit SetQueue(const testing::FakeClock& clock) : clock_(clock) {}
  absl::Status Push(Job) override { return absl::OkStatus(); }
  bool IsFull() const override { return full_ && (room_after_ < 0 || clock_.sleeps() < room_after_); }
  bool HasRoomToResume() const override { return resume_; }

  bool full_ = false;
  bool resume_ = false;
  int room_after_ = -1;  // sleeps of the clock after which it has room (-1: never)

 private:
  const testing::FakeClock& clock_;
};

class BackpressureTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_;
  SetQueue queue_{clock_};
  SourceStats stats_;
  Backpressure backpressure_{queue_, clock_, stats_, milliseconds(250)};
};

TEST_F(BackpressureTest, AQueueWithRoomChangesNothing) {
  EXPECT_EQ(backpressure_.Next(), Change::kNone);
  EXPECT_EQ(stats_.full_waits.load(), 0u);
  EXPECT_EQ(clock_.sleeps(), 0);
}

TEST_F(BackpressureTest, AFullQueueThatGetsRoomWithinTheWaitIsNotPaused) {
  queue_.full_ = true;
  queue_.room_after_ = 30;  // 30 ms later
  EXPECT_EQ(backpressure_.Next(), Change::kNone);
  EXPECT_FALSE(backpressure_.paused());
  EXPECT_EQ(stats_.full_waits.load(), 1u);
  EXPECT_EQ(stats_.pauses.load(), 0u);
  EXPECT_EQ(clock_.slept(), milliseconds(30));
}

TEST_F(BackpressureTest, AQueueStillFullAfterTheWaitPausesThenResumesOnlyWithRoomToResume) {
  queue_.full_ = true;
  EXPECT_EQ(backpressure_.Next(), Change::kPause);
  EXPECT_GE(clock_.slept(), milliseconds(250));
  EXPECT_LT(clock_.slept(), milliseconds(252)) << "waits the bound, no longer";
  backpressure_.Applied(Change::kPause);
  EXPECT_TRUE(backpressure_.paused());
  EXPECT_TRUE(stats_.paused.load());
  EXPECT_EQ(stats_.pauses.load(), 1u);

  // Paused: no more waiting; room below the bound is not yet room to resume.
  queue_.full_ = false;
  const int sleeps = clock_.sleeps();
  EXPECT_EQ(backpressure_.Next(), Change::kNone);
  EXPECT_EQ(clock_.sleeps(), sleeps);
  queue_.resume_ = true;
  EXPECT_EQ(backpressure_.Next(), Change::kResume);
  backpressure_.Applied(Change::kResume);
  EXPECT_FALSE(backpressure_.paused());
  EXPECT_FALSE(stats_.paused.load());
  EXPECT_EQ(stats_.pauses.load(), 1u);
  EXPECT_EQ(stats_.full_waits.load(), 1u);
}

TEST_F(BackpressureTest, AChangeNotAppliedLeavesTheStateAsItWas) {
  queue_.full_ = true;
  EXPECT_EQ(backpressure_.Next(), Change::kPause);
  // The caller could not read its assignment: nothing was paused.
  EXPECT_FALSE(backpressure_.paused());
  EXPECT_EQ(stats_.pauses.load(), 0u);
}

}  // namespace
}  // namespace qinfer::consumer
