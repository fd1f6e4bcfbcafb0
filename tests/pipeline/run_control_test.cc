#include "qinfer/pipeline/run_control.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace qinfer::pipeline {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class RunControlTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_;
};

TEST_F(RunControlTest, IdleExitFiresOnAnEmptyTopicOnceThePeriodPassesAfterAssignment) {
  RunControl control(clock_, seconds(3));
  Activity a{.assigned = 3};
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  clock_.Advance(seconds(2));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  clock_.Advance(seconds(1));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kIdleExit)
      << "no message ever arrived: the period counts from the assignment";
}

TEST_F(RunControlTest, IdleExitWaitsForTheAssignmentGraceWhenNothingIsAssigned) {
  RunControl control(clock_, seconds(3));
  Activity none{};
  clock_.Advance(seconds(29));
  EXPECT_EQ(control.Tick(none, false, false), RunDecision::kContinue) << "joining a group takes seconds: not idle yet";
  clock_.Advance(RunControl::kAssignmentGrace - seconds(29));
  EXPECT_EQ(control.Tick(none, false, false), RunDecision::kIdleExit)
      << "never assigned (more instances than partitions): exits after the grace";
}

TEST_F(RunControlTest, MessagesPendingJobsAndQueuedJobsKeepItBusy) {
  RunControl control(clock_, seconds(3));
  Activity a{.messages = 10, .pending = 0, .queued = 0, .assigned = 1};
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  clock_.Advance(seconds(10));
  a.pending = 4;  // jobs without a record: still working
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  a.pending = 0;
  a.queued = 2;
  clock_.Advance(seconds(10));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  a.queued = 0;
  clock_.Advance(seconds(2));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  a.messages = 11;  // a new message restarts the period
  clock_.Advance(seconds(2));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  clock_.Advance(seconds(2));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kContinue);
  clock_.Advance(seconds(1));
  EXPECT_EQ(control.Tick(a, false, false), RunDecision::kIdleExit);
}

TEST_F(RunControlTest, NeverIdlesOutWhenIdleExitIsOff) {
  RunControl control(clock_, milliseconds(0));
  clock_.Advance(std::chrono::hours(24));
  EXPECT_EQ(control.Tick({.assigned = 1}, false, false), RunDecision::kContinue);
  EXPECT_EQ(control.Tick({.assigned = 1}, true, false), RunDecision::kStopRequested);
}

TEST_F(RunControlTest, FatalWinsOverAStopRequestWhichWinsOverIdleness) {
  RunControl control(clock_, seconds(1));
  clock_.Advance(seconds(60));
  EXPECT_EQ(control.Tick({}, true, true), RunDecision::kFatal);
  EXPECT_EQ(control.Tick({}, true, false), RunDecision::kStopRequested);
  EXPECT_EQ(control.Tick({}, false, false), RunDecision::kIdleExit);
}

}  // namespace
}  // namespace qinfer::pipeline
