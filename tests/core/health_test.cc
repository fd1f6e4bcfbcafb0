// The probes behind /healthz and /readyz, on a FakeClock.
#include "qinfer/core/health.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace qinfer {
namespace {

using std::chrono::seconds;

TEST(LivenessTest, StartUpNeverFailsItHoweverLongItTakes) {
  testing::FakeClock clock;
  Health health;
  health.Beat(clock.Now());
  clock.Advance(std::chrono::hours(1));  // a long calibration
  EXPECT_TRUE(Liveness(health, clock.Now(), seconds(120)).ok);
}

// A start-up that hangs (a calibration that never returns) is restarted:
// past health.startup_timeout_s /healthz fails until start-up is done.
TEST(LivenessTest, AStartUpPastItsDeadlineFailsItUntilStarted) {
  testing::FakeClock clock;
  Health health;
  health.SetStartupDeadline(clock.Now(), seconds(600));
  health.Beat(clock.Now());
  clock.Advance(seconds(600));
  EXPECT_TRUE(Liveness(health, clock.Now(), seconds(120)).ok) << "at the deadline: still alive";
  clock.Advance(seconds(1));
  const ProbeResult probe = Liveness(health, clock.Now(), seconds(120));
  EXPECT_FALSE(probe.ok);
  EXPECT_EQ(probe.text, "start-up not done after 601 s (limit health.startup_timeout_s = 600 s)");
  health.SetStarted();
  health.Beat(clock.Now());
  EXPECT_TRUE(Liveness(health, clock.Now(), seconds(120)).ok) << "started: the deadline no longer applies";
}

TEST(LivenessTest, AStartedExecutorWithoutAHeartbeatPastTheLimitFailsItSayingWhy) {
  testing::FakeClock clock;
  Health health;
  health.SetStarted();
  health.Beat(clock.Now());
  clock.Advance(seconds(120));
  EXPECT_TRUE(Liveness(health, clock.Now(), seconds(120)).ok) << "at the limit: still alive";
  clock.Advance(seconds(1));
  const ProbeResult probe = Liveness(health, clock.Now(), seconds(120));
  EXPECT_FALSE(probe.ok);
  EXPECT_EQ(probe.text, "executor stalled: no heartbeat for 121 s (limit health.executor_stall_s = 120 s)");
  health.Beat(clock.Now());
  EXPECT_TRUE(Liveness(health, clock.Now(), seconds(120)).ok) << "a beat brings it back";
}

TEST(LivenessTest, AFatalConditionFailsItWithTheCause) {
  testing::FakeClock clock;
  Health health;
  health.Beat(clock.Now());
  health.RaiseFatal(fatal_cause::kStore, "disk full");
  const ProbeResult probe = Liveness(health, clock.Now(), seconds(120));
  EXPECT_FALSE(probe.ok);
  EXPECT_EQ(probe.text, "fatal: store: disk full");
}

TEST(ReadinessTest, ReadyOnlyOnceStartedWithPartitionsAndUntilDraining) {
  Health health;
  EXPECT_EQ(Readiness(health, 3).text, "not ready: starting (loading the model, memory plan)");
  health.SetStarted();
  EXPECT_EQ(Readiness(health, 0).text, "not ready: no partitions assigned");
  EXPECT_FALSE(Readiness(health, 0).ok);
  EXPECT_TRUE(Readiness(health, 1).ok);
  EXPECT_EQ(Readiness(health, 1).text, "ready");
  health.SetDraining();
  EXPECT_FALSE(Readiness(health, 1).ok);
  EXPECT_EQ(Readiness(health, 1).text, "not ready: draining");
}

TEST(ReadinessTest, AFatalConditionMakesItNotReady) {
  Health health;
  health.SetStarted();
  health.RaiseFatal(fatal_cause::kConsumer, "broker gone");
  EXPECT_FALSE(Readiness(health, 2).ok);
  EXPECT_EQ(Readiness(health, 2).text, "not ready: fatal: consumer");
}

}  // namespace
}  // namespace qinfer
